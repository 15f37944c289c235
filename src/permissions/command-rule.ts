// What a command rule is: a check of one program's arguments, given a context that knows the
// project root and where the command may be. The allowlist (command-rules.ts) and the bigger
// rules in their own files (git, find, sed) share these types.

import type { ShellWord } from './shell-word.js';

export interface RuleContext {
  /** A file the command reads the contents of: must stay inside the root and not be a secret file. */
  checkRead(word: ShellWord): string | null;
  /** A path whose metadata (listing, size, type) the command reads: must stay inside the root. */
  checkMetadata(word: ShellWord): string | null;
  /** `cd`: the target must stay inside the root; later relative paths are checked against it too. */
  changeDirectory(word: ShellWord): string | null;
  /**
   * The verdict asked for is the one for running without the sandbox (none on this machine,
   * danger-full-access, an escalation): only the short list of literal read-only commands
   * qualifies there, and a rule may be stricter (no recursive reads, no globs of files read).
   */
  readonly outsideSandbox: boolean;
  /**
   * The command reads this secret file by name: from the work tree (`cat .env`, masked inside the
   * sandbox) or from the repository (`git show HEAD:.env`, which the sandbox cannot mask).
   */
  secretRead(path: string, from: 'file' | 'repository'): void;
}

/** Returns null when the arguments are safe, otherwise why they are not. */
export type CommandRule = (args: readonly ShellWord[], context: RuleContext) => string | null;
