// Judges the simple commands of a literal command string (literal-command.ts) against the
// allowlist, once for running inside the sandbox and once for running without one. Paths are
// checked where they really lead: lexically against every directory the command may be in, and
// after symlinks (the nearest existing ancestor resolved), inside the project root, not secret.

import { realpathSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { isInside, isSecretPath } from '../workspace/index.js';
import type { CommandClassification, SecretRead } from './command-classification.js';
import type { RuleContext } from './command-rule.js';
import { COMMAND_RULES, COMMAND_RUNNERS, UNSAFE_PROGRAM_REASONS } from './command-rules.js';
import type { LiteralSimpleCommand } from './literal-command.js';
import { globAsPath, globBaseDirectory, type ShellWord } from './shell-word.js';

interface Finding {
  reason: string;
  /** Grant key of the simple command at fault; null when no approve-for-session grant may cover it. */
  prefix: string | null;
}

const HARMLESS_DEVICES = new Set(['/dev/null', '/dev/stdin']);

/** Where `path` really leads: symlinks of its nearest existing ancestor followed, the rest appended. */
function realLocationSync(path: string): string {
  let existing = path;
  const missing: string[] = [];
  for (;;) {
    try {
      return join(realpathSync.native(existing), ...missing);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // A loop or a permission problem: say it leads nowhere we can vouch for.
      if (code !== 'ENOENT' && code !== 'ENOTDIR') return '/';
      const parent = dirname(existing);
      if (parent === existing) return path;
      missing.unshift(existing.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
      existing = parent;
    }
  }
}

/** The grant key of a simple command: argv[0] and its first argument that is not an option. */
function commandPrefix(words: readonly ShellWord[]): string {
  const [name, ...args] = words;
  const first = args.find((arg) => !arg.text.startsWith('-'));
  return first === undefined ? name!.text : `${name!.text} ${first.text}`;
}

/** Real locations looked up once per classification (both verdicts ask for the same paths). */
type RealLocations = Map<string, string>;

function realLocation(cache: RealLocations, path: string): string {
  let real = cache.get(path);
  if (real === undefined) {
    real = realLocationSync(path);
    cache.set(path, real);
  }
  return real;
}

class CommandJudge implements RuleContext {
  private readonly directories: string[];
  readonly secrets: SecretRead[] = [];

  constructor(
    private readonly root: string,
    cwd: string,
    readonly outsideSandbox: boolean,
    private readonly real: RealLocations,
  ) {
    this.directories = [cwd];
  }

  judge(command: LiteralSimpleCommand): Finding | null {
    const words: ShellWord[] = command.words.map((word) => ({ kind: word.glob ? 'glob' : 'static', text: word.value }));
    const name = words[0]!;
    const prefix = commandPrefix(words);
    if (name.kind !== 'static') return { reason: `the command name \`${name.text}\` is a glob`, prefix: null };
    const runner = COMMAND_RUNNERS.get(name.text);
    if (runner !== undefined) return { reason: `${name.text} ${runner}`, prefix: null };
    const rule = COMMAND_RULES.get(name.text);
    if (rule === undefined) {
      const known = UNSAFE_PROGRAM_REASONS.get(name.text);
      return { reason: known ?? `${name.text} is not on the allowlist of known-safe commands`, prefix };
    }
    const problem = rule(words.slice(1), this);
    return problem === null ? null : { reason: `${name.text}: ${problem}`, prefix };
  }

  private pathProblem(word: ShellWord, contents: boolean): string | null {
    if (word.kind === 'static' && (word.text === '-' || HARMLESS_DEVICES.has(word.text))) return null;
    if (word.kind === 'glob' && contents && this.outsideSandbox) {
      return `\`${word.text}\` is a glob of files to read; outside the sandbox only files named literally are read without approval`;
    }
    // A glob matches one name per component, so read as a path it climbs exactly as deep as what
    // it matches (`*/../../x` is `../x`), once a component that could match `..` counts as `..`.
    // For a glob, its own text looking like a secret file (`*/.env`, `src/id_rsa*`) means it can
    // match one; `cat *` matching `.env` is a documented limit (the sandbox masks it).
    const paths =
      word.kind === 'glob'
        ? [
            { path: globBaseDirectory(word.text), secret: false },
            { path: globAsPath(word.text), secret: contents },
          ]
        : [{ path: word.text, secret: contents }];
    for (const directory of this.directories) {
      for (const { path, secret } of paths) {
        const absolute = resolve(directory, path);
        if (!isInside(this.root, absolute)) return `\`${word.text}\` is outside the project root`;
        const real = realLocation(this.real, word.kind === 'glob' ? resolve(directory, globBaseDirectory(word.text)) : absolute);
        if (!isInside(this.root, real)) return `\`${word.text}\` leads outside the project root (through a symbolic link)`;
        if (!secret) continue;
        const candidates =
          word.kind === 'glob' ? [relative(this.root, absolute)] : [relative(this.root, absolute), relative(this.root, real)];
        if (candidates.some((candidate) => isSecretPath(candidate))) {
          this.secretRead(word.text, 'file');
          return `\`${word.text}\` ${word.kind === 'glob' ? 'can match' : 'is'} a secret file`;
        }
      }
    }
    return null;
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
    for (const directory of [...this.directories]) {
      const target = realLocation(this.real, resolve(directory, word.text));
      if (!this.directories.includes(target)) this.directories.push(target);
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
): { findings: Finding[]; secrets: SecretRead[] } {
  const judge = new CommandJudge(root, cwd, outsideSandbox, real);
  const findings = commands.flatMap((command) => judge.judge(command) ?? []);
  return { findings, secrets: judge.secrets };
}

/** The verdict inside the sandbox, with the verdict outside it attached where that differs. */
export function judgeCommands(commands: readonly LiteralSimpleCommand[], root: string, cwd: string): CommandClassification {
  const names = commands.map((command) => command.words[0]!.value);
  const real: RealLocations = new Map();
  const realCwd = realLocation(real, cwd);
  const judged = findingsFor(commands, root, realCwd, false, real);
  const inSandbox = verdict(names, judged.findings);
  if (judged.secrets.length > 0) return { ...inSandbox, secretReads: judged.secrets };
  if (!inSandbox.safe) return inSandbox;
  const outside = verdict(names, findingsFor(commands, root, realCwd, true, real).findings);
  return outside.safe ? inSandbox : { ...inSandbox, outsideSandbox: outside };
}
