// git is known safe for a fixed set of read-only subcommands, called by name (an alias could run
// anything), with options from each subcommand's allowlist: an option not listed (`-c`, `--output`,
// `--ext-diff`, `--show-signature`, `--no-index`, an abbreviation…) makes the command not known
// safe. Long options with a value are accepted only as `--name=value`: git reads some of them
// with an optional value, and taking the next word for a value could leave a path unchecked.

import type { CommandRule, RuleContext } from './command-rule.js';
import { hasOption, longOptions, parseOptions, type OptionTable } from './parse-options.js';
import { firstProblem } from './program-rule.js';
import { isSecretPath } from '../workspace/index.js';
import { bracketEnd, type ShellWord } from './shell-word.js';

/**
 * Even read-only subcommands start programs that repository content names: `core.fsmonitor` on
 * every `status`/`diff`, filter drivers (`filter.<name>.clean`, picked by `.gitattributes`) when
 * git hashes work-tree files, `diff.external` and `diff.<driver>.command`/`textconv` in
 * `diff`/`log -p`/`show`. A repository can be hostile, so git is known safe only in the sandbox.
 */
export const GIT_RUNS_CONFIGURED_PROGRAMS =
  "git runs programs that the repository's configuration names (core.fsmonitor, filter and diff drivers, textconv); outside the sandbox that needs a person's approval";

/** Global options (before the subcommand) that change nothing but output or path matching. */
const GLOBAL_FLAGS = new Set([
  '--no-pager',
  '-P',
  '--no-replace-objects',
  '--literal-pathspecs',
  '--glob-pathspecs',
  '--noglob-pathspecs',
  '--icase-pathspecs',
  '--no-optional-locks',
  '--no-advice',
]);

/** log, show, diff, shortlog: revision walking and diff output, nothing that runs or writes. */
const HISTORY: OptionTable = {
  flags: 'psuzwbRiEFPm',
  values: { n: 'text' },
  optionalValues: 'MCUSGl',
  numeric: true,
  long: longOptions(
    ...['--oneline', '--graph', '--all', '--branches[=]', '--tags[=]', '--remotes[=]', '--decorate[=]', '--no-decorate'],
    ...['--abbrev-commit', '--no-abbrev-commit', '--abbrev[=]', '--no-abbrev', '--pretty[=]', '--format[=]', '--date[=]'],
    ...['--relative-date', '--stat[=]', '--shortstat', '--numstat', '--dirstat[=]', '--summary', '--name-only'],
    ...['--name-status', '--raw', '--patch', '--no-patch', '--patch-with-stat', '--follow', '--first-parent', '--merges'],
    ...['--no-merges', '--min-parents[=]', '--max-parents[=]', '--reverse', '--max-count[=]', '--skip[=]', '--since[=]'],
    ...['--until[=]', '--after[=]', '--before[=]', '--author[=]', '--committer[=]', '--grep[=]', '--all-match'],
    ...['--invert-grep', '--regexp-ignore-case', '--extended-regexp', '--fixed-strings', '--perl-regexp', '--topo-order'],
    ...['--date-order', '--author-date-order', '--left-right', '--cherry-pick', '--cherry-mark', '--cherry', '--boundary'],
    ...['--full-history', '--simplify-by-decoration', '--simplify-merges', '--ancestry-path', '--no-walk[=]', '--do-walk'],
    ...['--color[=]', '--no-color', '--word-diff[=]', '--word-diff-regex[=]', '--color-words[=]', '--unified[=]'],
    ...['--ignore-all-space', '--ignore-space-change', '--ignore-space-at-eol', '--ignore-blank-lines', '--ignore-cr-at-eol'],
    ...['--find-renames[=]', '--find-copies[=]', '--find-copies-harder', '--no-renames', '--diff-filter[=]', '--no-ext-diff'],
    ...['--no-textconv', '--full-index', '--binary', '--src-prefix[=]', '--dst-prefix[=]', '--no-prefix', '--relative[=]@meta'],
    ...['--no-relative', '--minimal', '--patience', '--histogram', '--diff-algorithm[=]', '--pickaxe-all', '--pickaxe-regex'],
    ...['--use-mailmap', '--no-use-mailmap', '--mailmap', '--no-mailmap', '--no-notes', '--expand-tabs[=]', '--no-expand-tabs'],
    ...['--log-size', '--source', '--parents', '--children', '--cc', '--diff-merges[=]', '--no-diff-merges'],
    // diff
    ...['--cached', '--staged', '--merge-base', '--exit-code', '--quiet', '--check', '--ita-invisible-in-index'],
    // shortlog
    ...['--summary', '--numbered', '--email', '--group[=]'],
  ),
};

const SUBCOMMANDS: Readonly<Record<string, OptionTable>> = {
  log: HISTORY,
  show: HISTORY,
  diff: HISTORY,
  shortlog: { ...HISTORY, flags: `${HISTORY.flags}nce`, values: {} },
  status: {
    flags: 'sbvz',
    optionalValues: 'u',
    long: longOptions(
      ...['--short', '--branch', '--show-stash', '--porcelain[=]', '--long', '--verbose', '--untracked-files[=]'],
      ...['--ignored[=]', '--ignore-submodules[=]', '--column[=]', '--no-column', '--ahead-behind', '--no-ahead-behind'],
      ...['--renames', '--no-renames', '--find-renames[=]', '--null'],
    ),
  },
  branch: {
    flags: 'arlvqi',
    long: longOptions(
      ...['--all', '--remotes', '--list', '--verbose', '--quiet', '--show-current', '--contains[=]', '--no-contains[=]'],
      ...['--merged[=]', '--no-merged[=]', '--points-at[=]', '--sort[=]', '--format[=]', '--color[=]', '--no-color'],
      ...['--column[=]', '--no-column', '--ignore-case', '--abbrev[=]', '--no-abbrev', '--omit-empty'],
    ),
  },
  'rev-parse': {
    flags: 'q',
    long: longOptions(
      ...['--show-toplevel', '--show-prefix', '--show-cdup', '--git-dir', '--git-common-dir', '--absolute-git-dir'],
      ...['--is-inside-work-tree', '--is-inside-git-dir', '--is-bare-repository', '--is-shallow-repository'],
      ...['--show-superproject-working-tree', '--abbrev-ref[=]', '--short[=]', '--verify', '--quiet', '--symbolic'],
      ...['--symbolic-full-name', '--all', '--branches[=]', '--tags[=]', '--remotes[=]', '--show-object-format[=]'],
    ),
  },
  'ls-files': {
    flags: 'cdmoiskutvzf',
    values: { x: 'text', X: 'read' },
    long: longOptions(
      ...['--cached', '--deleted', '--modified', '--others', '--ignored', '--stage', '--killed', '--unmerged'],
      ...['--full-name', '--error-unmatch', '--exclude-standard', '--directory', '--no-empty-directory', '--eol'],
      ...['--deduplicate', '--sparse', '--abbrev[=]', '--exclude[=]', '--exclude-from[=]@read', '--exclude-per-directory[=]'],
      '--format[=]',
    ),
  },
  blame: {
    flags: 'lstfnpecw',
    values: { L: 'text' },
    optionalValues: 'MC',
    long: longOptions(
      ...['--porcelain', '--line-porcelain', '--incremental', '--root', '--show-stats', '--show-name', '--show-number'],
      ...['--show-email', '--date[=]', '--abbrev[=]', '--ignore-rev[=]'],
    ),
  },
  describe: {
    long: longOptions(
      // Not --dirty/--broken: they refresh the index (a write to .git).
      ...['--tags', '--all', '--always', '--long', '--abbrev[=]', '--exact-match'],
      ...['--first-parent', '--match[=]', '--exclude[=]', '--contains', '--candidates[=]'],
    ),
  },
};

/** Names that stand for every kind of secret file, to test a glob against (SECRET_FILE_GLOBS). */
const SECRET_SAMPLES = [
  '.env',
  '.env.local',
  'a.pem',
  'a.key',
  'a.p12',
  'a.pfx',
  'a.jks',
  'a.keystore',
  'id_rsa',
  'id_dsa',
  'id_ecdsa',
  'id_ed25519',
  '.npmrc',
  '.pypirc',
  '.netrc',
  '_netrc',
  '.pgpass',
  '.htpasswd',
  '.git-credentials',
  'credentials.json',
  '.aws/credentials',
  '.aws/config',
  '.docker/config.json',
  '.kube/config',
];

/** git's wildmatch without FNM_PATHNAME, as pathspecs use it: `*` crosses `/`; brackets as any character. */
function pathspecPattern(pattern: string): RegExp {
  let source = '';
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index]!;
    if (char === '*') source += '.*';
    else if (char === '?') source += '.';
    else if (char === '[') {
      // Read as bash reads a bracket (git's wildmatch agrees on `[]x]` and `[!]x]`); one with a
      // class inside, whose `]` is not its end, matches anything here: the safe side.
      const close = bracketEnd(pattern, index);
      if (close === 'unsure') return /^/;
      source += '.';
      if (close !== -1) index = close;
    } else if (char === '\\' && index + 1 < pattern.length) source += pattern[++index]!.replace(/[.+^${}()|\\/*?[\]]/g, '\\$&');
    else source += char.replace(/[.+^${}()|\\/]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 'is');
}

/**
 * The path part of an operand as git reads it: after the last `:` (`HEAD:.env`, `:0:.env`,
 * `HEAD^{/fix:x}:.env`), without pathspec magic (`:(icase).ENV`, `:!x`, `:/x`) or `./`.
 */
function pathPart(text: string): string {
  let path = text;
  const magic = /^:\([^)]*\)/.exec(path);
  if (magic !== null) path = path.slice(magic[0].length);
  else if (/^:[/!^]/.test(path)) path = path.slice(2);
  const colon = path.lastIndexOf(':');
  if (colon !== -1) path = path.slice(colon + 1);
  return path.replace(/^(\.\/)+/, '');
}

/**
 * A secret file named as a path, a `<rev>:<path>` blob or a pathspec that can match one
 * (`git show HEAD:.env`, `git log -p -- '.e*'`): its contents come out of the repository even
 * when the sandbox masks the file itself, since `.git` stays readable. Globs — git's own
 * pathspec matching, or bash's before git runs — are tested against a name of each kind of
 * secret file, at any depth.
 */
function secretOperand(words: readonly ShellWord[], context: RuleContext): string | null {
  let problem: string | null = null;
  for (const word of words) {
    // A `:` inside a bracket (`[[:alpha:]]`) is no revision separator, so the whole operand is
    // tried as a pathspec too, not only the part after its last `:`.
    const candidates = [pathPart(word.text), word.text.replace(/^(\.\/)+/, '')];
    let secret = isSecretPath(word.text) || candidates.some((path) => isSecretPath(path));
    for (const path of candidates) {
      // A backslash makes a pathspec a pattern for git too (`.en\\v` matches `.env`).
      if (secret || !/[*?[\\]/.test(path)) continue;
      const pattern = pathspecPattern(path);
      secret = SECRET_SAMPLES.some(
        (sample) => pattern.test(sample) || pattern.test(`x/${sample}`) || pattern.test(`${path.replace(/[^/]*$/, '')}${sample}`),
      );
    }
    if (secret) {
      context.secretRead(word.text, 'repository');
      problem ??= `\`${word.text}\` names a secret file (or a pattern that matches one), whose contents git would show`;
    }
  }
  return problem;
}

/**
 * Format placeholders that make git verify signatures (`%G?`, `%GS`…, for-each-ref's
 * `%(signature)`): that runs `gpg.program`, which the repository's own configuration names.
 */
function formatProblem(options: readonly { name: string; value: ShellWord | null }[]): string | null {
  for (const option of options) {
    if (!['--format', '--pretty'].includes(option.name) || option.value === null) continue;
    if (/%G|%\(signature/i.test(option.value.text))
      return `${option.name}: signature placeholders run gpg.program, which the repository names`;
  }
  const merges = options.find((option) => option.name === '--diff-merges');
  if (merges?.value && !/^(off|none|on|first-parent|1|separate|m|combined|c|dense-combined|cc)$/.test(merges.value.text)) {
    return `--diff-merges=${merges.value.text} is not known to be harmless (remerge writes objects into .git)`;
  }
  return null;
}

/** `git branch` lists only when given no name, or with a listing option that takes patterns. */
function branchProblem(parsed: ReturnType<typeof parseOptions>, subcommand: string): string | null {
  if (subcommand !== 'branch' || !parsed.ok) return null;
  const listing = hasOption(parsed.parsed, '-l', '--list', '--contains', '--no-contains', '--merged', '--no-merged', '--points-at');
  const [name] = parsed.parsed.operands;
  return name !== undefined && !listing ? `git branch ${name.text} would create a branch` : null;
}

export const gitRule: CommandRule = (args: readonly ShellWord[], context: RuleContext) => {
  if (context.outsideSandbox) return GIT_RUNS_CONFIGURED_PROGRAMS;
  let index = 0;
  while (index < args.length && args[index]!.text.startsWith('-')) {
    const option = args[index]!.text;
    if (option === '-C') {
      const directory = args[index + 1];
      if (directory === undefined) return 'git -C needs a directory';
      if (directory.kind !== 'static') return `git -C \`${directory.text}\` is a glob`;
      const problem = context.checkMetadata(directory);
      if (problem !== null) return `git -C: ${problem}`;
      index += 2;
      continue;
    }
    if (!GLOBAL_FLAGS.has(option))
      return `git ${option} is not one of the global options known to be harmless (-c, --git-dir, --exec-path... change what git runs)`;
    index++;
  }
  const subcommand = args[index];
  if (subcommand === undefined) return 'no subcommand given';
  const table = subcommand.kind === 'static' ? SUBCOMMANDS[subcommand.text] : undefined;
  if (table === undefined) {
    return `git ${subcommand.text} is not one of the read-only subcommands (${Object.keys(SUBCOMMANDS).join(', ')})`;
  }
  const rest = args.slice(index + 1);
  const parsed = parseOptions(`git ${subcommand.text}`, rest, table);
  if (!parsed.ok) return parsed.problem;
  const { options, operands } = parsed.parsed;
  const checks: (string | null)[] = [];
  for (const option of options) {
    if (option.value === null || option.kind === 'text') continue;
    checks.push(option.kind === 'read' ? context.checkRead(option.value) : context.checkMetadata(option.value));
  }
  // Revisions and paths are not told apart: a revision like `HEAD~1` resolves inside the root
  // anyway, and `git diff <outside> <inside>` would silently become `--no-index`.
  for (const operand of operands) checks.push(context.checkRead(operand));
  // Secrets first, so every secret the command names is noted even when another check fails.
  const secret = secretOperand(operands, context);
  return secret ?? formatProblem(options) ?? firstProblem(checks) ?? branchProblem(parsed, subcommand.text);
};
