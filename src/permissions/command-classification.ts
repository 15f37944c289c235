// The classifier's verdict on one shell command string.

export interface CommandClassification {
  /** True only when every simple command anywhere in the string is known safe. */
  safe: boolean;
  /** Why: names the command and the rule that failed, or lists the safe commands. */
  reason: string;
  /** argv[0] of each simple command, in source order, including those inside substitutions. */
  commands: string[];
  /**
   * Grant keys of the simple commands that are not known safe: each one's whole argv, quoted
   * (`npm test`, `git commit -m 'a b'`). Null when something other than a program's own words
   * made the string unsafe (it is not literal, a redirect to a file, an assignment, a command
   * runner such as `xargs`): no approve-for-session grant may cover more than that exact string.
   */
  unsafePrefixes: string[] | null;
  /**
   * The verdict when the command runs outside the sandbox (no bubblewrap, danger-full-access, an
   * escalation), where it differs: some commands are known safe only because the sandbox contains
   * what they may start. `git` runs programs the repository's configuration names
   * (core.fsmonitor, diff and filter drivers), and no program named by repository content may
   * run on the host without a person's approval. Absent when the verdict is the same.
   */
  outsideSandbox?: CommandClassification;
  /**
   * Secret files the command names and reads: from the work tree (`cat .env`), which the sandbox
   * masks, or from the repository (`git show HEAD:.env`, `git log -p -- .env`), which it cannot.
   * Absent when there is none (or the string is not literal, so nothing could be read off it).
   */
  secretReads?: SecretRead[];
}

export interface SecretRead {
  path: string;
  from: 'file' | 'repository';
}

// How permission rules from config files read a command (command-rule-view.ts). Declared here, away
// from the grammar's types, so the package's declarations never name web-tree-sitter.

/** A word as bash will pass it; null when it cannot be known before bash expands it (any words, none included). */
export type RuleWord = string | null;

export interface CommandRuleView {
  /** The argv when the string is exactly one plain command; null otherwise (no allow rule matches). */
  exact: readonly string[] | null;
  /** Every simple command found, for deny and ask rules. */
  commands: readonly (readonly RuleWord[])[];
  /** Nothing reliable could be read off the string: every deny and ask rule for commands matches. */
  unreadable: boolean;
}
