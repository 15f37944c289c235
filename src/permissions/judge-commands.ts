// Judges the simple commands of a literal command string (literal-command.ts) against the
// allowlist, once for running inside the sandbox and once for running without one. Paths are
// checked where they really lead: lexically against every directory the command may be in, and
// after symlinks (the nearest existing ancestor resolved), inside the project root, not secret.

import { accessSync, constants, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { isInside, isSecretPath } from '../workspace/index.js';
import type { CommandClassification, SecretRead } from './command-classification.js';
import type { RuleContext } from './command-rule.js';
import { COMMAND_RULES } from './command-rules.js';
import { COMMAND_RUNNERS, UNSAFE_PROGRAM_REASONS } from './command-runners.js';
import type { LiteralSimpleCommand } from './literal-command.js';
import { expandGlob, physicalLocation } from './path-resolution.js';
import { globAsPath, globBaseDirectory, type ShellWord } from './shell-word.js';

interface Finding {
  reason: string;
  /** Grant key of the simple command at fault; null when no approve-for-session grant may cover it. */
  prefix: string | null;
}

const HARMLESS_DEVICES = new Set(['/dev/null', '/dev/stdin']);
/** Allowlisted programs that are bash builtins: never looked up on PATH. */
const BUILTINS = new Set(['echo', 'printf', 'true', 'false', 'test', '[', 'cd', 'pwd']);

/** The file bash would run for `name` along `searchPath` (relative entries from `cwd`), or null. */
function lookUp(name: string, searchPath: string, cwd: string): string | null {
  for (const entry of searchPath.split(':')) {
    const candidate = join(resolve(cwd, entry), name);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {}
  }
  return null;
}

/** A word as a shell would need it written to mean exactly it (single-quoted unless plain). */
function quoteWord(word: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/**
 * The grant key of a simple command: its whole argv, quoted so that two different argvs never
 * read the same. Any word can change what a program does (`node --eval=…`, `npm test
 * --script-shell=…`), so a grant covers that exact command, never a program with other words.
 */
/**
 * A command's grant key: each word as it will reach the program, quoted; a glob as written, so
 * approving `rm '*'` (one file named `*`) never covers `rm *` (every file).
 */
function commandKey(words: LiteralSimpleCommand['words']): string {
  return words.map((word) => (word.glob ? word.raw : quoteWord(word.value))).join(' ');
}

/** Physical locations looked up once per classification (both verdicts ask for the same paths). */
type RealLocations = Map<string, string>;

class CommandJudge implements RuleContext {
  private readonly directories: string[];
  readonly secrets: SecretRead[] = [];

  constructor(
    private readonly root: string,
    cwd: string,
    readonly outsideSandbox: boolean,
    private readonly real: RealLocations,
    private readonly searchPath: string,
  ) {
    this.directories = [cwd];
  }

  judge(command: LiteralSimpleCommand): Finding | null {
    const words: ShellWord[] = command.words.map((word) => ({ kind: word.glob ? 'glob' : 'static', text: word.value }));
    const name = words[0]!;
    const prefix = commandKey(command.words);
    if (name.kind !== 'static') return { reason: `the command name \`${name.text}\` is a glob`, prefix: null };
    const runner = COMMAND_RUNNERS.get(name.text);
    if (runner !== undefined) return { reason: `${name.text} ${runner}`, prefix: null };
    const rule = COMMAND_RULES.get(name.text);
    if (rule === undefined) {
      const known = UNSAFE_PROGRAM_REASONS.get(name.text);
      return { reason: known ?? `${name.text} is not on the allowlist of known-safe commands`, prefix };
    }
    const problem = rule(words.slice(1), this) ?? this.programProblem(name.text);
    return problem === null ? null : { reason: `${name.text}: ${problem}`, prefix };
  }

  /**
   * Outside the sandbox the program itself must not be the project's: PATH can hold a directory
   * inside the project (an activated .venv, node_modules/.bin), which a repository ships or a
   * sandboxed command writes. Inside the sandbox such a program is contained like any command.
   */
  private programProblem(name: string): string | null {
    if (!this.outsideSandbox || BUILTINS.has(name)) return null;
    for (const directory of this.directories) {
      const found = lookUp(name, this.searchPath, directory);
      if (found !== null && isInside(this.root, physicalLocation('/', found))) {
        return `on this PATH \`${name}\` is ${found}, a file inside the project, which runs on the host outside the sandbox`;
      }
    }
    return null;
  }

  private pathProblem(word: ShellWord, contents: boolean): string | null {
    if (word.kind === 'static' && (word.text === '-' || HARMLESS_DEVICES.has(word.text))) return null;
    if (word.kind === 'glob' && contents && this.outsideSandbox) {
      return `\`${word.text}\` is a glob of files to read; outside the sandbox only files named literally are read without approval`;
    }
    for (const directory of this.directories) {
      // A glob is checked as every path it matches now, as the path it could climb to at most
      // (`*/../../x` is `../x`, a component that could match `..` counting as `..`), and as its
      // own text (passed on as is when nothing matches); its text looking like a secret file
      // (`*/.env`) means it can match one.
      let paths: string[] = [word.text];
      if (word.kind === 'glob') {
        const matches = expandGlob(directory, word.text);
        if (matches === null) return `the glob \`${word.text}\` matches too many files (or an unreadable directory) to check`;
        // Even for a program none of whose options reads or writes, one can change what it reaches
        // (`ls -R *` with a file named `-L` follows links out of the root).
        const option = matches.find((match) => match.startsWith('-'));
        if (option !== undefined) return `the glob \`${word.text}\` expands to \`${option}\`, which the program takes for an option`;
        paths = [word.text, globAsPath(word.text), globBaseDirectory(word.text), ...matches];
      }
      for (const path of paths) {
        const lexical = resolve(directory, path);
        if (!isInside(this.root, lexical)) return `\`${word.text}\` is outside the project root`;
        const physical = this.physical(directory, path);
        if (!isInside(this.root, physical)) return `\`${word.text}\` leads outside the project root (through a symbolic link)`;
        if (!contents || path === globBaseDirectory(word.text)) continue;
        if ([relative(this.root, lexical), relative(this.root, physical)].some((candidate) => isSecretPath(candidate))) {
          this.secretRead(word.text, 'file');
          return `\`${word.text}\` ${word.kind === 'glob' ? 'can match' : 'is'} a secret file`;
        }
      }
    }
    return null;
  }

  private physical(directory: string, path: string): string {
    const key = `${directory}\0${path}`;
    let location = this.real.get(key);
    if (location === undefined) {
      location = physicalLocation(directory, path);
      this.real.set(key, location);
    }
    return location;
  }

  secretRead(path: string, from: 'file' | 'repository'): void {
    if (!this.secrets.some((entry) => entry.path === path && entry.from === from)) this.secrets.push({ path, from });
  }

  checkRead(word: ShellWord): string | null {
    return this.pathProblem(word, true);
  }

  checkMetadata(word: ShellWord): string | null {
    return this.pathProblem(word, false);
  }

  changeDirectory(word: ShellWord): string | null {
    const problem = this.pathProblem(word, false);
    if (problem !== null) return problem;
    // Where the shell ends up depends on which commands ran, so later paths must be inside the
    // root from every directory the command might be in.
    // bash's `cd` folds `..` against the path as written when that exists, and follows links
    // otherwise (`-P` always): both places count.
    for (const directory of [...this.directories]) {
      for (const target of [resolve(directory, word.text), this.physical(directory, word.text)]) {
        if (!this.directories.includes(target)) this.directories.push(target);
      }
    }
    return null;
  }
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

function verdict(commands: string[], findings: readonly Finding[]): CommandClassification {
  const first = findings[0];
  if (first === undefined) return { safe: true, reason: `known safe: ${unique(commands).join(', ')}`, commands, unsafePrefixes: [] };
  const more = findings.length > 1 ? ` (and ${findings.length - 1} more problem${findings.length > 2 ? 's' : ''})` : '';
  const ungrantable = findings.some((finding) => finding.prefix === null);
  return {
    safe: false,
    reason: `needs approval: ${first.reason}${more}`,
    commands,
    unsafePrefixes: ungrantable ? null : unique(findings.map((finding) => finding.prefix ?? '')),
  };
}

function findingsFor(
  commands: readonly LiteralSimpleCommand[],
  root: string,
  cwd: string,
  outsideSandbox: boolean,
  real: RealLocations,
  searchPath: string,
): { findings: Finding[]; secrets: SecretRead[] } {
  const judge = new CommandJudge(root, cwd, outsideSandbox, real, searchPath);
  const findings = commands.flatMap((command) => judge.judge(command) ?? []);
  return { findings, secrets: judge.secrets };
}

/** The verdict inside the sandbox, with the verdict outside it attached where that differs. */
export function judgeCommands(
  commands: readonly LiteralSimpleCommand[],
  root: string,
  cwd: string,
  searchPath: string,
): CommandClassification {
  const names = commands.map((command) => command.words[0]!.value);
  const real: RealLocations = new Map();
  const realCwd = physicalLocation('/', cwd);
  const judged = findingsFor(commands, root, realCwd, false, real, searchPath);
  const inSandbox = verdict(names, judged.findings);
  if (judged.secrets.length > 0) return { ...inSandbox, secretReads: judged.secrets };
  if (!inSandbox.safe) return inSandbox;
  const outside = verdict(names, findingsFor(commands, root, realCwd, true, real, searchPath).findings);
  return outside.safe ? inSandbox : { ...inSandbox, outsideSandbox: outside };
}
