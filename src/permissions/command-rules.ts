// The allowlist: for each program that can be known safe, the options known to be harmless and
// what its operands are. Anything not in a program's table (an option, a spelling) makes the
// command not known safe; anything not in this map needs the sandbox or approval. "Safe" means:
// no writes, no running other programs, no network, and every path it reads stays inside the
// project root (after symlinks) and is not a secret file. Termination is bounded by the call's
// timeout and resource limits, not decided here.

import type { CommandRule } from './command-rule.js';
import { findRule } from './find-rule.js';
import { gitRule } from './git-rule.js';
import { hasOption, longOptions, parseOptions, type OptionTable } from './parse-options.js';
import { programRule, type ProgramSpec } from './program-rule.js';
import { sedRule } from './sed-rule.js';
import type { ShellWord } from './shell-word.js';

export type { CommandRule, RuleContext } from './command-rule.js';

const anyArguments: CommandRule = () => null;

const changeDirectory: CommandRule = (args, context) => {
  const result = parseOptions('cd', args, { flags: 'LP' });
  if (!result.ok) return result.problem;
  const [target, ...others] = result.parsed.operands;
  if (target === undefined) return 'without a directory it goes to $HOME, outside the project root';
  if (others.length > 0) return 'takes a single directory';
  if (target.text === '-') return '`cd -` goes to $OLDPWD, which is unknown';
  if (target.kind !== 'static') return `the directory \`${target.text}\` is a glob`;
  return context.changeDirectory(target);
};

// Bash's printf builtin has one option, -v, and it assigns a shell variable (even PATH).
const printfRule: CommandRule = (args) => {
  const first = args[0];
  if (first === undefined) return null;
  if (first.kind === 'glob') return `the format \`${first.text}\` is a glob`;
  if (first.text.startsWith('-') && first.text !== '--') return `${first.text}: printf's only option, -v, assigns a shell variable`;
  return null;
};

/** Operators of `test` / `[`; `-v` and `-R` are not among them: they evaluate array subscripts. */
const TEST_FILE_OPERATORS = new Set(['-a', '-b', '-c', '-d', '-e', '-f', '-g', '-h', '-k', '-p', '-r', '-s', '-u', '-w', '-x']);
const TEST_OTHER_OPERATORS = new Set([
  ...['-G', '-L', '-N', '-O', '-S'],
  ...['-t', '-z', '-n', '-o', '!', '(', ')', '=', '==', '!=', '<', '>'],
  ...['-eq', '-ne', '-lt', '-le', '-gt', '-ge', '-ef', '-nt', '-ot'],
]);

const testRule: CommandRule = (args, context) => {
  for (const [index, word] of args.entries()) {
    if (word.kind === 'glob') return `\`${word.text}\` is a glob`;
    if (!word.text.startsWith('-') || word.text === '-') continue;
    const isFile = TEST_FILE_OPERATORS.has(word.text) || ['-G', '-L', '-N', '-O', '-S'].includes(word.text);
    if (!isFile && !TEST_OTHER_OPERATORS.has(word.text)) {
      return `\`${word.text}\` is not one of the test operators known to be harmless (-v and -R evaluate array subscripts)`;
    }
    if (isFile && args[index + 1] !== undefined) {
      const problem = context.checkMetadata(args[index + 1]!);
      if (problem !== null) return problem;
    }
    // -ef, -nt and -ot compare two files: both sides are paths.
    if (['-ef', '-nt', '-ot'].includes(word.text)) {
      for (const side of [args[index - 1], args[index + 1]]) {
        const problem = side === undefined ? null : context.checkMetadata(side);
        if (problem !== null) return problem;
      }
    }
  }
  return null;
};

// `seq inf` (and `infinity`, `nan`, which GNU seq parses as floats) never ends.
const seqRule = programRule('seq', {
  options: { flags: 'w', values: { f: 'text', s: 'text' }, long: longOptions('--format=', '--separator=', '--equal-width') },
  operands: 'text',
  floor: true,
  check: ({ operands }) => {
    // Whole numbers only: `inf`, and a step below the precision of a long double (`seq 1 1e-20 2`),
    // make seq count for ever.
    const bad = operands.find((word) => !/^[+-]?\d{1,18}$/.test(word.text));
    return bad === undefined ? null : `\`${bad.text}\` is not a plain whole number (\`inf\` or a tiny step would make seq count for ever)`;
  },
});

// `date MMDDhhmm` (an operand that is not +FORMAT) sets the clock, like -s.
const dateRule = programRule('date', {
  options: {
    flags: 'Ru',
    // Not -f/--file: each line it reads may set `TZ="<any file>"`, which date then opens.
    values: { d: 'text', r: 'metadata' },
    optionalValues: 'I',
    long: longOptions(
      '--date=',
      '--debug',
      '--iso-8601[=]',
      '--resolution',
      '--rfc-email',
      '--rfc-3339=',
      '--reference=@meta',
      '--utc',
      '--universal',
    ),
  },
  operands: 'text',
  floor: true,
  check: ({ operands, options }) => {
    // A date string can name a time zone file (`TZ="/any/file" now`), which date then opens.
    const zone = options.find((option) => (option.name === '-d' || option.name === '--date') && /TZ\s*=/i.test(option.value?.text ?? ''));
    if (zone !== undefined) return `${zone.name}: a \`TZ=\` in the date string names a file date would read`;
    const setting = operands.find((word) => !word.text.startsWith('+'));
    return setting === undefined ? null : `the operand \`${setting.text}\` (not a +FORMAT) sets the system clock`;
  },
});

// GNU tail's obsolete `+N` operand form has a follow flag (`tail +5f`): it never ends.
const tailRule = programRule('tail', {
  options: {
    flags: 'qvz',
    values: { c: 'text', n: 'text' },
    numeric: true,
    long: longOptions('--bytes=', '--lines=', '--quiet', '--silent', '--verbose', '--zero-terminated'),
  },
  operands: 'read',
  floor: true,
  check: ({ operands }) => {
    const obsolete = operands.find((word) => word.text.startsWith('+'));
    return obsolete === undefined ? null : `\`${obsolete.text}\`: tail reads a \`+\` operand as an option (\`+f\` follows forever)`;
  },
});

// Not -R/--dereference-recursive: it follows links out of the root. Not every option of grep is
// harmless to a glob that expands into one (-f, --exclude-from name files).
const GREP_TABLE: OptionTable = {
  flags: 'EFGPiyvwxcLloqsbHhnTZzaIrU',
  values: { m: 'text', A: 'text', B: 'text', C: 'text', e: 'text', f: 'read' },
  numeric: true,
  long: longOptions(
    ...['--extended-regexp', '--fixed-strings', '--basic-regexp', '--perl-regexp', '--regexp=', '--file=@read'],
    ...['--ignore-case', '--no-ignore-case', '--word-regexp', '--line-regexp', '--null-data', '--no-messages'],
    ...['--invert-match', '--max-count=', '--byte-offset', '--line-number', '--line-buffered', '--with-filename'],
    ...['--no-filename', '--label=', '--only-matching', '--quiet', '--silent', '--binary-files=', '--text'],
    ...['--recursive', '--include=', '--exclude=', '--exclude-from=@read', '--exclude-dir='],
    ...['--files-without-match', '--files-with-matches', '--count', '--initial-tab', '--null', '--before-context='],
    ...['--after-context=', '--context=', '--group-separator=', '--no-group-separator', '--color[=]', '--colour[=]'],
    '--binary',
  ),
};

/** grep: outside the sandbox only on the files named, never recursively (it would read secret files). */
const grepSpec: ProgramSpec = {
  options: GREP_TABLE,
  operands: 'read',
  patternUnless: ['-e', '-f', '--regexp', '--file'],
  floor: true,
  check: (parsed, context) =>
    context.outsideSandbox && hasOption(parsed, '-r', '--recursive')
      ? 'a recursive grep reads every file, secret ones included; outside the sandbox that needs approval'
      : null,
};

// Not -L/--follow: it follows links out of the root.
const rgRule = programRule('rg', {
  options: {
    flags: 'iISsvwxnNlcoFUuaqp0HPb',
    // -e PATTERN, -g GLOB, -t/-T TYPE, -r REPLACEMENT, -E ENCODING are text; -f FILE is read.
    values: {
      A: 'text',
      B: 'text',
      C: 'text',
      m: 'text',
      M: 'text',
      j: 'text',
      d: 'text',
      e: 'text',
      g: 'text',
      t: 'text',
      T: 'text',
      r: 'text',
      E: 'text',
      f: 'read',
    },
    long: longOptions(
      ...['--after-context=', '--before-context=', '--context=', '--max-count=', '--max-columns=', '--max-columns-preview'],
      ...['--threads=', '--max-depth=', '--type=', '--type-not=', '--type-add=', '--type-clear=', '--glob=', '--iglob='],
      ...['--regexp=', '--file=@read', '--replace=', '--encoding=', '--ignore-case', '--case-sensitive', '--smart-case'],
      ...['--invert-match', '--word-regexp', '--line-regexp', '--line-number', '--no-line-number', '--files-with-matches'],
      ...['--files-without-match', '--count', '--count-matches', '--only-matching', '--fixed-strings', '--multiline'],
      ...['--multiline-dotall', '--unrestricted', '--hidden', '--no-ignore', '--no-ignore-vcs', '--no-ignore-dot'],
      ...['--no-ignore-parent', '--no-ignore-global', '--no-ignore-exclude', '--no-ignore-files', '--text'],
      ...['--quiet', '--null', '--with-filename', '--no-filename', '--heading', '--no-heading', '--pretty', '--column'],
      ...['--no-column', '--vimgrep', '--json', '--trim', '--files', '--type-list', '--stats', '--no-messages', '--color='],
      ...['--sort=', '--sortr=', '--passthru', '--byte-offset', '--pcre2', '--engine=', '--context-separator='],
      ...['--no-config', '--one-file-system', '--binary', '--crlf', '--null-data', '--ignore-file=@read', '--max-filesize='],
      '--ignore-file-case-insensitive',
    ),
  },
  operands: 'read',
  patternUnless: ['-e', '-f', '--regexp', '--file', '--files', '--type-list'],
  floor: false,
});

function gnu(program: string, spec: Omit<ProgramSpec, 'floor'> & { floor?: boolean }): [string, CommandRule] {
  return [program, programRule(program, { floor: true, ...spec })];
}

export const COMMAND_RULES: ReadonlyMap<string, CommandRule> = new Map<string, CommandRule>([
  ['echo', anyArguments],
  ['true', anyArguments],
  ['false', anyArguments],
  ['printf', printfRule],
  ['test', testRule],
  ['[', testRule],
  gnu('pwd', { options: { flags: 'LP' }, operands: 'text', maxOperands: { count: 0, reason: 'pwd takes no operands' } }),
  gnu('whoami', { options: {}, operands: 'text' }),
  gnu('id', { options: { flags: 'ugGnrza' }, operands: 'text' }),
  gnu('uname', {
    options: {
      flags: 'asnrvmpio',
      long: longOptions(
        ...['--all', '--kernel-name', '--nodename', '--kernel-release', '--kernel-version', '--machine'],
        ...['--processor', '--hardware-platform', '--operating-system'],
      ),
    },
    operands: 'text',
  }),
  gnu('basename', {
    options: { flags: 'az', values: { s: 'text' }, long: longOptions('--multiple', '--suffix=', '--zero') },
    operands: 'text',
  }),
  gnu('dirname', { options: { flags: 'z', long: longOptions('--zero') }, operands: 'text' }),
  gnu('realpath', {
    options: {
      flags: 'emLPqsz',
      long: longOptions(
        ...['--canonicalize-existing', '--canonicalize-missing', '--logical', '--physical', '--quiet', '--strip'],
        ...['--no-symlinks', '--zero', '--relative-to=@meta', '--relative-base=@meta'],
      ),
    },
    operands: 'metadata',
  }),
  gnu('which', { options: { flags: 'a' }, operands: 'text' }),
  ['seq', seqRule],
  gnu('numfmt', {
    options: {
      flags: 'z',
      values: { d: 'text' },
      long: longOptions(
        ...['--debug', '--delimiter=', '--field=', '--format=', '--from=', '--from-unit=', '--grouping', '--header[=]'],
        ...['--invalid=', '--padding=', '--round=', '--suffix=', '--to=', '--to-unit=', '--zero-terminated'],
      ),
    },
    operands: 'text',
  }),
  gnu('tr', {
    options: { flags: 'cCdst', long: longOptions('--complement', '--delete', '--squeeze-repeats', '--truncate-set1') },
    operands: 'text',
  }),
  gnu('df', {
    options: {
      flags: 'ahHiklPTv',
      values: { B: 'text', t: 'text', x: 'text' },
      long: longOptions(
        ...['--all', '--block-size=', '--human-readable', '--si', '--inodes', '--local', '--no-sync', '--output[=]'],
        ...['--portability', '--total', '--type=', '--print-type', '--exclude-type='],
      ),
    },
    operands: 'metadata',
  }),
  ['cd', changeDirectory],
  ['date', dateRule],
  gnu('cat', {
    options: {
      everyOptionHarmless: true,
      flags: 'AbeEnstTuv',
      long: longOptions(
        ...['--show-all', '--number-nonblank', '--show-ends', '--number', '--squeeze-blank', '--show-tabs'],
        '--show-nonprinting',
      ),
    },
    operands: 'read',
  }),
  // tac copies a pipe to a temporary file: outside the sandbox that is a write.
  gnu('tac', {
    floor: false,
    options: { everyOptionHarmless: true, flags: 'br', values: { s: 'text' }, long: longOptions('--before', '--regex', '--separator=') },
    operands: 'read',
  }),
  // Only GNU's options: BSD base64 (macOS) reads -i FILE and writes -o FILE.
  gnu('base64', { options: { flags: 'd', values: { w: 'text' }, long: longOptions('--decode', '--wrap=') }, operands: 'read' }),
  gnu('head', {
    options: {
      everyOptionHarmless: true,
      flags: 'qvz',
      values: { c: 'text', n: 'text' },
      numeric: true,
      long: longOptions('--bytes=', '--lines=', '--quiet', '--silent', '--verbose', '--zero-terminated'),
    },
    operands: 'read',
  }),
  ['tail', tailRule],
  // Not --files0-from: it reads the names of more files from a file, which no check sees.
  gnu('wc', {
    options: {
      flags: 'cmlLw',
      long: longOptions('--bytes', '--chars', '--lines', '--max-line-length', '--words', '--total='),
    },
    operands: 'read',
  }),
  gnu('nl', {
    options: {
      everyOptionHarmless: true,
      flags: 'p',
      values: { b: 'text', d: 'text', f: 'text', h: 'text', i: 'text', l: 'text', n: 'text', s: 'text', v: 'text', w: 'text' },
      long: longOptions(
        ...['--body-numbering=', '--section-delimiter=', '--footer-numbering=', '--header-numbering='],
        ...['--line-increment=', '--join-blank-lines=', '--number-format=', '--no-renumber', '--number-separator='],
        ...['--starting-line-number=', '--number-width='],
      ),
    },
    operands: 'read',
  }),
  gnu('cut', {
    options: {
      everyOptionHarmless: true,
      flags: 'nsz',
      values: { b: 'text', c: 'text', d: 'text', f: 'text' },
      long: longOptions(
        ...['--bytes=', '--characters=', '--delimiter=', '--fields=', '--complement', '--only-delimited'],
        ...['--output-delimiter=', '--zero-terminated'],
      ),
    },
    operands: 'read',
  }),
  gnu('paste', {
    options: {
      everyOptionHarmless: true,
      flags: 'sz',
      values: { d: 'text' },
      long: longOptions('--delimiters=', '--serial', '--zero-terminated'),
    },
    operands: 'read',
  }),
  gnu('rev', { options: { everyOptionHarmless: true }, operands: 'read' }),
  gnu('cmp', {
    options: {
      everyOptionHarmless: true,
      flags: 'bls',
      values: { i: 'text', n: 'text' },
      long: longOptions('--print-bytes', '--ignore-initial=', '--verbose', '--bytes=', '--quiet', '--silent'),
    },
    operands: 'read',
  }),
  gnu('comm', {
    options: {
      everyOptionHarmless: true,
      flags: '123z',
      long: longOptions('--check-order', '--nocheck-order', '--output-delimiter=', '--total', '--zero-terminated'),
    },
    operands: 'read',
  }),
  // Not -l/--paginate: it runs `pr`. Not -r/--recursive: it follows links out of the root. Not
  // outside the sandbox: given directories (even without -r) it prints every file they share,
  // secret ones included.
  gnu('diff', {
    floor: false,
    options: {
      flags: 'qscuenytTNiEZbwBadpH',
      values: { C: 'text', U: 'text', W: 'text', F: 'text', x: 'text', X: 'read', S: 'text', I: 'text', D: 'text' },
      long: longOptions(
        ...['--normal', '--brief', '--report-identical-files', '--context[=]', '--unified[=]', '--ed', '--rcs'],
        ...['--side-by-side', '--width=', '--left-column', '--suppress-common-lines', '--show-c-function'],
        ...['--show-function-line=', '--label=', '--expand-tabs', '--initial-tab', '--tabsize=', '--suppress-blank-empty'],
        ...['--no-dereference', '--new-file', '--unidirectional-new-file', '--ignore-file-name-case'],
        ...['--no-ignore-file-name-case', '--exclude=', '--exclude-from=@read', '--starting-file=', '--from-file=@read'],
        ...['--to-file=@read', '--ignore-case', '--ignore-tab-expansion', '--ignore-trailing-space'],
        ...['--ignore-space-change', '--ignore-all-space', '--ignore-blank-lines', '--ignore-matching-lines=', '--text'],
        ...['--strip-trailing-cr', '--ifdef=', '--minimal', '--horizon-lines=', '--speed-large-files', '--color[=]'],
      ),
    },
    operands: 'read',
  }),
  gnu('ls', {
    options: {
      everyOptionHarmless: true,
      flags: 'aAbBcCdDfFgGhHiklmnNopqQrRsStuUvxXZ1',
      values: { I: 'text', T: 'text', w: 'text' },
      long: longOptions(
        ...['--all', '--almost-all', '--author', '--escape', '--block-size=', '--ignore-backups', '--color[=]'],
        ...['--directory', '--dired', '--classify[=]', '--file-type', '--format=', '--full-time'],
        ...['--group-directories-first', '--no-group', '--human-readable', '--si', '--dereference-command-line'],
        ...['--dereference-command-line-symlink-to-dir', '--hide=', '--hyperlink[=]', '--indicator-style=', '--inode'],
        ...['--ignore=', '--kibibytes', '--literal', '--numeric-uid-gid', '--hide-control-chars'],
        ...['--show-control-chars', '--quote-name', '--quoting-style=', '--reverse', '--recursive', '--size', '--sort='],
        ...['--time=', '--time-style=', '--tabsize=', '--width=', '--context', '--zero'],
      ),
    },
    operands: 'metadata',
  }),
  gnu('stat', {
    options: {
      everyOptionHarmless: true,
      flags: 'Lft',
      values: { c: 'text' },
      long: longOptions('--dereference', '--file-system', '--cached=', '--format=', '--printf=', '--terse'),
    },
    operands: 'metadata',
  }),
  // Not --files0-from (names read from a file) nor -L (follows every link, out of the root).
  gnu('du', {
    options: {
      flags: '0abcDHhklmPSsx',
      values: { B: 'text', d: 'text', t: 'text', X: 'read' },
      long: longOptions(
        ...['--null', '--all', '--apparent-size', '--block-size=', '--bytes', '--total', '--dereference-args'],
        ...['--max-depth=', '--human-readable', '--inodes', '--count-links'],
        ...['--no-dereference', '--separate-dirs', '--si', '--summarize', '--threshold=', '--time[=]', '--time-style='],
        ...['--exclude-from=@read', '--exclude=', '--one-file-system'],
      ),
    },
    operands: 'metadata',
  }),
  // Not -p (it resets access times: a write), -z/-Z (decompressors), -C (writes a magic file).
  gnu('file', {
    options: {
      flags: 'bhiLkNr',
      long: longOptions(
        ...['--brief', '--mime', '--mime-type', '--mime-encoding', '--no-dereference', '--dereference'],
        ...['--keep-going', '--no-pad', '--raw', '--extension', '--apple'],
      ),
    },
    // file reads the start of every file to tell its type: a read of contents.
    operands: 'read',
  }),
  // tree reads every letter of a cluster as an option, even after one that takes a value; not -o
  // (writes the listing), -R/-H (write index files), --fromfile (prints files as the tree).
  gnu('tree', {
    options: {
      flags: 'adfiqNQpugshDFvtcUrCnJX',
      values: { L: 'text', P: 'text', I: 'text' },
      separateValues: true,
      long: longOptions(
        ...['--noreport', '--dirsfirst', '--si', '--du', '--prune', '--gitignore', '--matchdirs', '--ignore-case'],
        ...['--charset=', '--filelimit=', '--timefmt=', '--sort='],
      ),
    },
    operands: 'metadata',
  }),
  // sort spills large inputs to temporary files: outside the sandbox those are writes.
  gnu('sort', {
    floor: false,
    options: {
      flags: 'bdfgiMhnRrVcCmsuz',
      values: { k: 'text', t: 'text' },
      long: longOptions(
        ...['--ignore-leading-blanks', '--dictionary-order', '--ignore-case', '--general-numeric-sort'],
        ...['--ignore-nonprinting', '--month-sort', '--human-numeric-sort', '--numeric-sort', '--random-sort'],
        ...['--random-source=@read', '--reverse', '--sort=', '--version-sort', '--check[=]', '--debug'],
        ...['--key=', '--merge', '--stable', '--field-separator=', '--parallel=', '--unique'],
        '--zero-terminated',
      ),
    },
    operands: 'read',
  }),
  gnu('uniq', {
    options: {
      flags: 'cdDiuz',
      values: { f: 'text', s: 'text', w: 'text' },
      long: longOptions(
        ...['--count', '--repeated', '--all-repeated[=]', '--skip-fields=', '--group[=]', '--ignore-case'],
        ...['--skip-chars=', '--unique', '--zero-terminated', '--check-chars='],
      ),
    },
    operands: 'read',
    maxOperands: { count: 1, reason: 'a second operand is an output file that uniq writes' },
  }),
  ['grep', programRule('grep', grepSpec)],
  ['rg', rgRule],
  ['find', findRule],
  ['sed', sedRule],
  ['git', gitRule],
]);

export type { ShellWord };
