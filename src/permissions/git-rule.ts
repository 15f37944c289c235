// git is known safe for a fixed set of read-only subcommands, called by name (an alias could
// run anything), with no option that runs a program or writes a file. Configuration options
// (`-c`, `--config-env`) are refused outright: `core.pager`, `diff.external` and friends turn
// configuration into command execution.

import { optionIs, parseOptions, type OptionSpec } from './parse-options.js';
import type { CommandRule, RuleContext } from './command-rule.js';
import { isSecretPath } from '../workspace/index.js';
import { mayBeOption, type ShellWord } from './shell-word.js';

const READ_ONLY_SUBCOMMANDS = new Set([
  'status',
  'log',
  'diff',
  'show',
  'branch',
  'rev-parse',
  'ls-files',
  'blame',
  'describe',
  'shortlog',
]);

/**
 * Even read-only subcommands start programs that repository content names: `core.fsmonitor` on
 * every `status`/`diff`, filter drivers (`filter.<name>.clean`, picked by `.gitattributes`) when
 * git hashes work-tree files, `diff.external` and `diff.<driver>.command`/`textconv` in
 * `diff`/`log -p`/`show`. A repository can be hostile, so git is known safe only in the sandbox.
 */
export const GIT_RUNS_CONFIGURED_PROGRAMS =
  "git runs programs that the repository's configuration names (core.fsmonitor, filter and diff drivers, textconv); outside the sandbox that needs a person's approval";

/** Global options (before the subcommand) that change nothing but output or path matching. */
const HARMLESS_GLOBAL_OPTIONS = new Set([
  '--no-pager',
  '-P',
  '-p',
  '--paginate',
  '--no-replace-objects',
  '--literal-pathspecs',
  '--glob-pathspecs',
  '--noglob-pathspecs',
  '--icase-pathspecs',
  '--no-optional-locks',
  '--no-advice',
]);

const GLOBAL_OPTION_REASONS: readonly { flags: readonly string[]; reason: string }[] = [
  { flags: ['-c', '--config-env'], reason: 'sets configuration, which can name programs to run (core.pager, diff.external)' },
  { flags: ['--exec-path'], reason: 'changes where git finds the programs it runs' },
  { flags: ['--git-dir', '--work-tree'], reason: 'points git at another repository, whose configuration can run programs' },
];

/** Options refused for every subcommand: they write files or run programs. */
const REFUSED_OPTIONS: readonly { flags: readonly string[]; reason: string }[] = [
  { flags: ['--output'], reason: 'writes the output to a file' },
  { flags: ['--ext-diff'], reason: 'runs the external diff program' },
  { flags: ['--textconv'], reason: 'runs textconv filters' },
  { flags: ['--exec'], reason: 'runs a command' },
  { flags: ['--upload-pack', '--receive-pack'], reason: 'runs a program on the remote side' },
  { flags: ['--open-files-in-pager'], reason: 'runs a pager program' },
  // Compares any two files on disk, inside the repository or not, so the path checks would not see them.
  { flags: ['--no-index'], reason: 'reads files outside the repository' },
];

/**
 * A literal secret file named as a path or a `<rev>:<path>` blob (`git show HEAD:.env`,
 * `git log -p -- .env`): its contents come out of the repository even when the sandbox masks
 * the file itself, since `.git` stays readable.
 */
function secretOperand(args: readonly ShellWord[]): string | null {
  for (const word of args) {
    const colon = word.text.indexOf(':');
    const path = colon === -1 ? word.text : word.text.slice(colon + 1);
    if (isSecretPath(word.text) || isSecretPath(path.replace(/^(\.\/)+/, ''))) {
      return `\`${word.text}\` names a secret file, whose contents git would show`;
    }
  }
  return null;
}

/** `git branch` options that only list, and which of them take a value as the next word. */
const BRANCH_LISTING_FLAGS = new Set([
  '-a',
  '--all',
  '-r',
  '--remotes',
  '-l',
  '--list',
  '-v',
  '-vv',
  '--verbose',
  '-q',
  '--quiet',
  '--show-current',
  '--contains',
  '--no-contains',
  '--merged',
  '--no-merged',
  '--points-at',
  '--sort',
  '--format',
  '--color',
  '--no-color',
  '--column',
  '--no-column',
  '-i',
  '--ignore-case',
  '--abbrev',
  '--no-abbrev',
  '--omit-empty',
]);
const BRANCH_VALUE_FLAGS = ['--contains', '--no-contains', '--merged', '--no-merged', '--points-at', '--sort', '--format'];

function checkBranch(args: readonly ShellWord[]): string | null {
  const parsed = parseOptions(args, { longWithValue: BRANCH_VALUE_FLAGS });
  let listing = false;
  const names: ShellWord[] = [];
  for (const argument of parsed) {
    if (argument.kind === 'option') {
      if (!BRANCH_LISTING_FLAGS.has(argument.name)) {
        return `git branch ${argument.name} is not a listing option (only listing branches is known safe)`;
      }
      if (argument.name === '-l' || argument.name === '--list') listing = true;
    } else if (argument.kind === 'operand') {
      names.push(argument.word);
    }
  }
  const [name] = names;
  if (name !== undefined && !listing) return `git branch ${name.text} would create a branch`;
  return null;
}

/**
 * Options of the read-only subcommands that take a value as the next word (so the value is not
 * mistaken for a path operand), and those whose value is a file git reads. `-S` is a pickaxe
 * string for log/diff/show but a file of revisions for blame.
 */
const SUBCOMMAND_OPTIONS: Readonly<Record<string, { spec: OptionSpec; readOptions: readonly string[] }>> = {
  blame: {
    spec: { shortWithValue: 'LS', longWithValue: ['--contents', '--ignore-rev', '--ignore-revs-file', '--date', '--abbrev'] },
    readOptions: ['--contents', '-S', '--ignore-revs-file'],
  },
  'ls-files': {
    spec: { shortWithValue: 'xX', longWithValue: ['--exclude', '--exclude-from', '--exclude-per-directory', '--format', '--with-tree'] },
    readOptions: ['-X', '--exclude-from'],
  },
};

const HISTORY_OPTIONS: { spec: OptionSpec; readOptions: readonly string[] } = {
  // -O<orderfile> is always attached; its file is read.
  spec: {
    shortWithValue: 'nSGLU',
    shortWithOptionalValue: 'O',
    longWithValue: [
      '--author',
      '--committer',
      '--grep',
      '--since',
      '--until',
      '--after',
      '--before',
      '--max-count',
      '--skip',
      '--date',
      '--unified',
      '--diff-filter',
      '--relative',
      '--find-renames',
      '--orderfile',
    ],
  },
  readOptions: ['-O', '--orderfile'],
};

/**
 * Options that write or run programs are refused; files options read, and every operand
 * (revisions and paths are not told apart: a revision like `HEAD~1` resolves inside the root
 * anyway) must stay inside the root and not name a secret file. `git diff` silently becomes
 * `--no-index` when a path lies outside the repository, which is how it could read any file.
 */
function checkSubcommandArguments(subcommand: string, args: readonly ShellWord[], context: RuleContext): string | null {
  const options = SUBCOMMAND_OPTIONS[subcommand] ?? HISTORY_OPTIONS;
  for (const argument of parseOptions(args, options.spec)) {
    if (argument.kind === 'option') {
      const refused = REFUSED_OPTIONS.find((entry) => optionIs(argument.name, entry.flags));
      if (refused !== undefined) return `git ${argument.name} ${refused.reason}`;
      if (argument.value !== null && optionIs(argument.name, options.readOptions)) {
        const problem = context.checkRead(argument.value);
        if (problem !== null) return `git ${subcommand} ${argument.name}: ${problem}`;
      }
    } else {
      const problem = context.checkRead(argument.word);
      if (problem !== null) return `git ${subcommand}: ${problem}`;
    }
  }
  return null;
}

export const gitRule: CommandRule = (args: readonly ShellWord[], context: RuleContext) => {
  const unknown = args.find((word) => word.kind !== 'static' && mayBeOption(word));
  if (unknown !== undefined) return `\`${unknown.text}\` is expanded by the shell at run time and could become an option`;
  let index = 0;
  while (index < args.length && args[index]!.text.startsWith('-')) {
    const option = args[index]!.text;
    const name = option.includes('=') ? option.slice(0, option.indexOf('=')) : option;
    if (name === '-C') {
      const directory = args[index + 1];
      if (directory === undefined) return 'git -C needs a directory';
      const problem = context.checkMetadata(directory);
      if (problem !== null) return `git -C: ${problem}`;
      index += 2;
      continue;
    }
    const known = GLOBAL_OPTION_REASONS.find((entry) => optionIs(name, entry.flags));
    if (known !== undefined) return `git ${name} ${known.reason}`;
    if (!HARMLESS_GLOBAL_OPTIONS.has(name)) return `git ${option} is not a recognised harmless global option`;
    index++;
  }
  const subcommand = args[index];
  if (subcommand === undefined) return 'no subcommand given';
  if (!READ_ONLY_SUBCOMMANDS.has(subcommand.text)) {
    return `git ${subcommand.text} is not one of the read-only subcommands (${[...READ_ONLY_SUBCOMMANDS].join(', ')})`;
  }
  const rest = args.slice(index + 1);
  const problem = checkSubcommandArguments(subcommand.text, rest, context) ?? secretOperand(rest);
  if (problem !== null) return problem;
  const branchProblem = subcommand.text === 'branch' ? checkBranch(rest) : null;
  if (branchProblem === null) context.requireSandbox(GIT_RUNS_CONFIGURED_PROGRAMS);
  return branchProblem;
};
