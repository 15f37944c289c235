// The allowlist: for each program that can be known safe, the rule its arguments must pass.
// A rule returns null when the arguments are safe, or the reason they are not. Anything not in
// this table needs approval. "Safe" means: no writes, no running other programs, no network, it
// terminates on its own, and literal paths stay inside the project root.

import { operands, optionIs, parseOptions, type OptionSpec, type ParsedArgument } from './parse-options.js';
import { gitRule } from './git-rule.js';
import { sedRule } from './sed-rule.js';
import { mayBeOption, type ShellWord } from './shell-word.js';
import type { CommandRule } from './command-rule.js';

export type { CommandRule, RuleContext } from './command-rule.js';

interface ForbiddenOptions {
  flags: readonly string[];
  reason: string;
}

interface FlagRuleSpec extends OptionSpec {
  forbidden?: readonly ForbiddenOptions[];
  /** Options whose value is a file the command reads. */
  readOptions?: readonly string[];
  /** What the operands are. */
  operands?: 'read' | 'metadata' | 'text';
  /** The first operand is a pattern, unless one of these options supplies the pattern. */
  patternUnless?: readonly string[];
  /** Words the shell expands at run time are refused when some option of the program is harmful. */
  dynamic: 'allow' | 'refuse';
  maxOperands?: { count: number; reason: string };
}

export function firstProblem(checks: Iterable<string | null>): string | null {
  for (const problem of checks) if (problem !== null) return problem;
  return null;
}

function refuseDynamic(parsed: readonly ParsedArgument[]): string | null {
  const unknown = parsed.find((argument) => argument.kind === 'unknown');
  return unknown === undefined
    ? null
    : `\`${unknown.word.text}\` is expanded by the shell at run time and could become an option this rule refuses`;
}

function forbiddenProblem(parsed: readonly ParsedArgument[], forbidden: readonly ForbiddenOptions[]): string | null {
  for (const argument of parsed) {
    if (argument.kind !== 'option') continue;
    const hit = forbidden.find((entry) => optionIs(argument.name, entry.flags));
    if (hit !== undefined) return `${argument.name} ${hit.reason}`;
  }
  return null;
}

export function flagRule(spec: FlagRuleSpec): CommandRule {
  return (args, context) => {
    const parsed = parseOptions(args, spec);
    if (spec.dynamic === 'refuse') {
      const problem = refuseDynamic(parsed);
      if (problem !== null) return problem;
    }
    const forbidden = forbiddenProblem(parsed, spec.forbidden ?? []);
    if (forbidden !== null) return forbidden;
    for (const argument of parsed) {
      if (argument.kind !== 'option' || argument.value === null) continue;
      if (spec.readOptions !== undefined && optionIs(argument.name, spec.readOptions)) {
        const problem = context.checkRead(argument.value);
        if (problem !== null) return `${argument.name}: ${problem}`;
      }
    }
    // A run-time word that may or may not be an option is checked as a path too: when it names
    // a file, it is one the command reads.
    let files = parsed.flatMap((argument) => (argument.kind === 'operand' || argument.kind === 'unknown' ? [argument.word] : []));
    if (spec.patternUnless !== undefined) {
      const patternGiven = parsed.some((argument) => argument.kind === 'option' && optionIs(argument.name, spec.patternUnless ?? []));
      if (!patternGiven) files = files.slice(1);
    }
    if (spec.maxOperands !== undefined && files.length > spec.maxOperands.count) return spec.maxOperands.reason;
    if (spec.operands === 'read') return firstProblem(files.map((file) => context.checkRead(file)));
    if (spec.operands === 'metadata') return firstProblem(files.map((file) => context.checkMetadata(file)));
    return null;
  };
}

const anyArguments: CommandRule = () => null;

const changeDirectory: CommandRule = (args, context) => {
  const parsed = parseOptions(args);
  const problem = refuseDynamic(parsed);
  if (problem !== null) return problem;
  const option = parsed.find((argument) => argument.kind === 'option' && !['-L', '-P'].includes(argument.name));
  if (option !== undefined && option.kind === 'option') return `${option.name} is not a recognised option`;
  const [target, ...others] = operands(parsed);
  if (target === undefined) return 'without a directory it goes to $HOME, outside the project root';
  if (others.length > 0) return 'takes a single directory';
  if (target.kind === 'static' && target.text === '-') return '`cd -` goes to $OLDPWD, which is unknown';
  return context.changeDirectory(target);
};

// Bash's printf builtin has one option, -v, and it assigns a shell variable (even PATH).
const printfRule: CommandRule = (args) => {
  const first = args[0];
  if (first === undefined) return null;
  if (first.kind !== 'static' && mayBeOption(first)) return `the format \`${first.text}\` is expanded at run time and could become -v`;
  if (first.text.startsWith('-v')) return '-v assigns a shell variable';
  return null;
};

// `test -v NAME` looks NAME up as a variable, and bash evaluates an array subscript in it as
// arithmetic, which runs command substitutions: `test -v 'a[$(rm -rf ~)]'` executes `rm`. The
// name can arrive at run time too (`"$(echo -v)"`), so a run-time word that may be an option is
// refused like a literal -v.
const testRule: CommandRule = (args) => {
  for (const word of args) {
    if (word.kind === 'static' && word.text === '-v') return '-v evaluates an array subscript as arithmetic, which can run commands';
    if (word.kind !== 'static' && mayBeOption(word)) return `\`${word.text}\` is expanded at run time and could become -v`;
  }
  return null;
};

// `seq inf` (and `infinity`, `nan`, which GNU seq parses as floats) never ends.
const seqRule: CommandRule = (args) => {
  for (const word of args) {
    if (word.kind !== 'static') return `\`${word.text}\` is expanded at run time and could make seq endless (\`inf\`)`;
    if (/^[+-]?(inf(inity)?|nan)$/i.test(word.text)) return `\`${word.text}\` makes seq count forever`;
  }
  return null;
};

const dateOptions: OptionSpec = {
  shortWithValue: 'dfr',
  shortWithOptionalValue: 'I',
  longWithValue: ['--date', '--file', '--reference', '--rfc-3339'],
};

const dateFlags = flagRule({
  ...dateOptions,
  dynamic: 'refuse',
  readOptions: ['-f', '--file'],
  forbidden: [{ flags: ['-s', '--set'], reason: 'sets the system clock' }],
});

// `date MMDDhhmm` (an operand that is not +FORMAT) sets the clock, like -s.
const dateRule: CommandRule = (args, context) => {
  const problem = dateFlags(args, context);
  if (problem !== null) return problem;
  const setting = operands(parseOptions(args, dateOptions)).find((word) => !word.text.startsWith('+'));
  return setting === undefined ? null : `the operand \`${setting.text}\` (not a +FORMAT) sets the system clock`;
};

const findForbidden = new Map<string, string>([
  ['-exec', 'runs a command for each file'],
  ['-execdir', 'runs a command for each file'],
  ['-ok', 'runs a command for each file'],
  ['-okdir', 'runs a command for each file'],
  ['-delete', 'deletes files'],
  ['-fprint', 'writes to a file'],
  ['-fprint0', 'writes to a file'],
  ['-fprintf', 'writes to a file'],
  ['-fls', 'writes to a file'],
]);

const EXPRESSION_START = /^[-(!),]/;

const findRule: CommandRule = (args, context) => {
  const unknown = args.find((word) => word.kind !== 'static' && mayBeOption(word));
  if (unknown !== undefined) {
    return `\`${unknown.text}\` is expanded by the shell at run time and could become an action such as -delete`;
  }
  for (const word of args) {
    const reason = findForbidden.get(word.text);
    if (reason !== undefined && word.kind === 'static') return `${word.text} ${reason}`;
  }
  let index = 0;
  // Leading options come before the starting points: -H -L -P, -D <debug>, -O<level>.
  while (index < args.length && /^-([HLP]|O\d*|D)$/.test(args[index]!.text)) {
    index += args[index]!.text === '-D' ? 2 : 1;
  }
  const starts: ShellWord[] = [];
  while (index < args.length && !EXPRESSION_START.test(args[index]!.text)) starts.push(args[index++]!);
  const filesFrom = args.findIndex((word) => word.text === '-files0-from');
  const filesFromList = filesFrom === -1 ? undefined : args[filesFrom + 1];
  const checks = starts.map((word) => context.checkMetadata(word));
  if (filesFromList !== undefined) checks.push(context.checkRead(filesFromList));
  return firstProblem(checks);
};

const jqTwoValueOptions = new Set(['--arg', '--argjson', '--slurpfile', '--rawfile']);

const jqRule: CommandRule = (args, context) => {
  const rest: ShellWord[] = [];
  const checks: (string | null)[] = [];
  for (let index = 0; index < args.length; index++) {
    const word = args[index]!;
    if (word.kind === 'static' && jqTwoValueOptions.has(word.text)) {
      const file = args[index + 2];
      if (file === undefined) return `${word.text} needs a name and a value`;
      if (word.text === '--slurpfile' || word.text === '--rawfile') checks.push(context.checkRead(file));
      index += 2;
      continue;
    }
    rest.push(word);
  }
  const parsed = parseOptions(rest, { shortWithValue: 'fL', longWithValue: ['--from-file', '--indent', '--library-path'] });
  const fromFile = parsed.find((argument) => argument.kind === 'option' && optionIs(argument.name, ['-f', '--from-file']));
  for (const argument of parsed) {
    if (argument.kind === 'option' && argument.value !== null && optionIs(argument.name, ['-f', '--from-file', '-L', '--library-path'])) {
      checks.push(context.checkRead(argument.value));
    }
  }
  // After --args/--jsonargs operands are strings, not files; they are still checked as paths,
  // since telling which side of --args an operand sits on is not worth a false "safe".
  const inputs = operands(parsed).slice(fromFile === undefined ? 1 : 0);
  checks.push(...inputs.map((word) => context.checkRead(word)));
  return firstProblem(checks);
};

const grepSpec: FlagRuleSpec = {
  dynamic: 'allow',
  shortWithValue: 'efmABCdD',
  longWithValue: [
    '--regexp',
    '--file',
    '--max-count',
    '--after-context',
    '--before-context',
    '--context',
    '--label',
    '--include',
    '--exclude',
    '--exclude-dir',
    '--exclude-from',
    '--binary-files',
    '--devices',
    '--directories',
    '--group-separator',
  ],
  readOptions: ['-f', '--file', '--exclude-from'],
  patternUnless: ['-e', '-f', '--regexp', '--file'],
  operands: 'read',
};

const rgRule = flagRule({
  dynamic: 'refuse',
  shortWithValue: 'ABCdEefgjmMrtT',
  longWithValue: [
    '--after-context',
    '--before-context',
    '--context',
    '--max-depth',
    '--encoding',
    '--regexp',
    '--file',
    '--glob',
    '--iglob',
    '--threads',
    '--max-count',
    '--max-columns',
    '--replace',
    '--type',
    '--type-not',
    '--type-add',
    '--type-clear',
    '--ignore-file',
    '--pre',
    '--pre-glob',
    '--hostname-bin',
    '--colors',
    '--sort',
    '--sortr',
    '--max-filesize',
    '--path-separator',
    '--engine',
    '--context-separator',
    '--field-context-separator',
    '--field-match-separator',
    '--hyperlink-format',
    '--dfa-size-limit',
    '--regex-size-limit',
  ],
  forbidden: [
    { flags: ['--pre', '--pre-glob'], reason: 'runs a preprocessor command on every file' },
    { flags: ['--hostname-bin'], reason: 'runs a program to get the host name' },
    { flags: ['-z', '--search-zip'], reason: 'runs decompression programs on compressed files' },
  ],
  readOptions: ['-f', '--file', '--ignore-file'],
  patternUnless: ['-e', '-f', '--regexp', '--file'],
  operands: 'read',
});

export const COMMAND_RULES: ReadonlyMap<string, CommandRule> = new Map<string, CommandRule>([
  ['echo', anyArguments],
  ['printf', printfRule],
  ['true', anyArguments],
  ['false', anyArguments],
  ['test', testRule],
  ['[', testRule],
  ['pwd', anyArguments],
  ['whoami', anyArguments],
  ['uname', anyArguments],
  ['which', anyArguments],
  ['basename', anyArguments],
  ['dirname', anyArguments],
  ['realpath', anyArguments],
  ['seq', seqRule],
  ['numfmt', anyArguments],
  ['tr', anyArguments],
  ['df', anyArguments],
  ['cd', changeDirectory],
  ['date', dateRule],
  ['cat', flagRule({ dynamic: 'allow', operands: 'read' })],
  ['tac', flagRule({ dynamic: 'allow', shortWithValue: 's', longWithValue: ['--separator'], operands: 'read' })],
  // GNU base64 only prints; BSD base64 (macOS) also has -o/--output and -i/--input <file>.
  [
    'base64',
    flagRule({
      dynamic: 'refuse',
      shortWithValue: 'wo',
      longWithValue: ['--wrap', '--output', '--input'],
      forbidden: [{ flags: ['-o', '--output'], reason: 'writes to a file' }],
      readOptions: ['--input'],
      operands: 'read',
    }),
  ],
  ['head', flagRule({ dynamic: 'allow', shortWithValue: 'nc', longWithValue: ['--lines', '--bytes'], operands: 'read' })],
  ['wc', flagRule({ dynamic: 'allow', longWithValue: ['--files0-from'], readOptions: ['--files0-from'], operands: 'read' })],
  ['nl', flagRule({ dynamic: 'allow', shortWithValue: 'bdfhilnsvw', operands: 'read' })],
  [
    'cut',
    flagRule({
      dynamic: 'allow',
      shortWithValue: 'bcdf',
      longWithValue: ['--bytes', '--characters', '--delimiter', '--fields', '--output-delimiter'],
      operands: 'read',
    }),
  ],
  ['cmp', flagRule({ dynamic: 'allow', shortWithValue: 'in', longWithValue: ['--ignore-initial', '--bytes'], operands: 'read' })],
  ['comm', flagRule({ dynamic: 'allow', longWithValue: ['--output-delimiter'], operands: 'read' })],
  [
    'diff',
    flagRule({
      dynamic: 'allow',
      shortWithValue: 'CUFIxXSLW',
      longWithValue: [
        '--label',
        '--from-file',
        '--to-file',
        '--exclude',
        '--exclude-from',
        '--ignore-matching-lines',
        '--show-function-line',
        '--starting-file',
        '--width',
        '--tabsize',
        '--horizon-lines',
        '--context',
        '--unified',
      ],
      forbidden: [{ flags: ['--output'], reason: 'writes to a file' }],
      readOptions: ['-X', '--exclude-from', '--from-file', '--to-file'],
      operands: 'read',
    }),
  ],
  [
    'ls',
    flagRule({
      dynamic: 'allow',
      shortWithValue: 'ITw',
      longWithValue: [
        '--block-size',
        '--format',
        '--hide',
        '--ignore',
        '--indicator-style',
        '--quoting-style',
        '--sort',
        '--tabsize',
        '--time',
        '--time-style',
        '--width',
      ],
      operands: 'metadata',
    }),
  ],
  ['stat', flagRule({ dynamic: 'allow', shortWithValue: 'c', longWithValue: ['--format', '--printf'], operands: 'metadata' })],
  [
    'du',
    flagRule({
      dynamic: 'allow',
      shortWithValue: 'BdtX',
      longWithValue: ['--block-size', '--max-depth', '--threshold', '--exclude', '--exclude-from', '--files0-from', '--time-style'],
      readOptions: ['-X', '--exclude-from', '--files0-from'],
      operands: 'metadata',
    }),
  ],
  [
    'file',
    flagRule({
      dynamic: 'refuse',
      shortWithValue: 'efmFP',
      longWithValue: ['--exclude', '--exclude-quiet', '--files-from', '--magic-file', '--separator', '--parameter'],
      forbidden: [{ flags: ['-C', '--compile'], reason: 'writes a compiled magic file' }],
      readOptions: ['-f', '--files-from', '-m', '--magic-file'],
      operands: 'metadata',
    }),
  ],
  // tree reads every letter of a cluster as an option, even after one that takes a value.
  [
    'tree',
    flagRule({
      dynamic: 'refuse',
      forbidden: [
        { flags: ['-o'], reason: 'writes the listing to a file' },
        { flags: ['-R'], reason: 'writes an index file into every directory (with -H)' },
        // The operands become files whose lines are printed as the tree: a way to show any file.
        { flags: ['--fromfile', '--fromtabfile'], reason: 'prints the contents of the files it is given' },
      ],
      operands: 'metadata',
    }),
  ],
  [
    'tail',
    flagRule({
      dynamic: 'refuse',
      shortWithValue: 'ncs',
      longWithValue: ['--lines', '--bytes', '--pid', '--sleep-interval', '--max-unchanged-stats'],
      forbidden: [{ flags: ['-f', '-F', '--follow'], reason: 'follows the file and never ends' }],
      operands: 'read',
    }),
  ],
  [
    'sort',
    flagRule({
      dynamic: 'refuse',
      shortWithValue: 'kotTS',
      longWithValue: [
        '--key',
        '--output',
        '--field-separator',
        '--temporary-directory',
        '--buffer-size',
        '--parallel',
        '--batch-size',
        '--compress-program',
        '--random-source',
        '--files0-from',
        '--sort',
      ],
      forbidden: [
        { flags: ['-o', '--output'], reason: 'writes the result to a file' },
        { flags: ['--compress-program'], reason: 'runs a program to compress temporary files' },
        { flags: ['-T', '--temporary-directory'], reason: 'writes temporary files to a chosen directory' },
      ],
      readOptions: ['--random-source', '--files0-from'],
      operands: 'read',
    }),
  ],
  [
    'uniq',
    flagRule({
      dynamic: 'refuse',
      shortWithValue: 'fsw',
      longWithValue: ['--skip-fields', '--skip-chars', '--check-chars'],
      operands: 'read',
      maxOperands: { count: 1, reason: 'a second operand is an output file that uniq writes' },
    }),
  ],
  ['grep', flagRule(grepSpec)],
  ['egrep', flagRule(grepSpec)],
  ['fgrep', flagRule(grepSpec)],
  ['rg', rgRule],
  ['find', findRule],
  ['jq', jqRule],
  ['sed', sedRule],
  ['git', gitRule],
]);

/** Programs whose job is to run another command (or code): never known safe, never granted by prefix. */
export const COMMAND_RUNNERS: ReadonlyMap<string, string> = new Map([
  ['eval', 'runs its arguments as shell code'],
  ['exec', 'replaces the shell with another command'],
  ['source', 'runs a script in the current shell'],
  ['.', 'runs a script in the current shell'],
  ['env', 'runs another command with a changed environment'],
  ['xargs', 'runs a command built from its input'],
  ['sudo', 'runs a command as another user'],
  ['doas', 'runs a command as another user'],
  ['su', 'runs a command as another user'],
  ['nohup', 'runs a command that outlives the shell'],
  ['setsid', 'runs a command in a new session'],
  ['time', 'runs another command'],
  ['timeout', 'runs another command'],
  ['nice', 'runs another command'],
  ['stdbuf', 'runs another command'],
  ['watch', 'runs a command repeatedly and never ends'],
  ['command', 'runs another command, bypassing functions'],
  ['builtin', 'runs a shell builtin'],
  ['coproc', 'runs a command in the background'],
  ['trap', 'runs a command when the shell gets a signal'],
]);

export const UNSAFE_PROGRAM_REASONS: ReadonlyMap<string, string> = new Map([
  ['awk', 'awk programs can run commands (system()) and write files'],
  ['gawk', 'awk programs can run commands (system()) and write files'],
  ['mawk', 'awk programs can run commands (system()) and write files'],
  ['nawk', 'awk programs can run commands (system()) and write files'],
]);
