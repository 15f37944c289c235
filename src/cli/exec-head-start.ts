// What `exec` starts before its own code loads: a new session's environment block needs `git
// status` in the sandbox (a bwrap probe, a scan of the project, a bwrap run), and its child
// processes can run while the runner, the model layer and the tools compile instead of after.
// Only what the flags say alone is read here (the project root, Glassbox's home, the database
// URL); execCommand checks the rest as before and uses this only for the same root and home.

import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { resolveHome } from './glassbox-home.js';
import { forgetDatabaseUrlVariable, resolveDatabaseUrl } from './session-store-option.js';

export interface ExecHeadStart {
  /** `resolve(-C or the working directory)`, as resolveCommonConfig computes it. */
  root: string;
  home: string;
  /** Already taken out of the environment, so no child started from here on inherits it. */
  databaseUrl: string | undefined;
  /** The git lines of the environment block; undefined when resuming (the session has its block). */
  gitSnapshot: Promise<string> | undefined;
  /** Settles once `git status` runs in the sandbox (or the snapshot is done without it): a wait to fill. */
  gitStarted: Promise<void> | undefined;
}

export interface HeadStartOptions {
  cd?: string;
  home?: string;
  databaseUrl?: string;
  resume?: string;
}

/** Starts the git snapshot; null when the flags leave something to report first (execCommand then does it all, as before). */
export function startExecHeadStart(options: HeadStartOptions): ExecHeadStart | null {
  const root = resolve(options.cd ?? process.cwd());
  const home = resolveHome(options.home);
  let databaseUrl: string | undefined;
  try {
    databaseUrl = resolveDatabaseUrl(options.databaseUrl, home);
  } catch {
    return null; // a usage error, reported by execCommand in its place
  }
  // Before the first child: the URL can carry a password.
  forgetDatabaseUrlVariable();
  if (options.resume) return { root, home, databaseUrl, gitSnapshot: undefined, gitStarted: undefined };
  let started = (): void => {};
  const gitStarted = new Promise<void>((resolve) => (started = resolve));
  const gitSnapshot = startGitSnapshot(root, home, started);
  if (gitSnapshot === undefined) started();
  else void gitSnapshot.finally(started);
  return { root, home, databaseUrl, gitSnapshot, gitStarted };
}

/** The git lines of the environment block for `root`; never rejects (the runner would gather them anew). */
function startGitSnapshot(root: string, home: string, onGitStarted: () => void): Promise<string> | undefined {
  let realRoot: string;
  try {
    // The runner's root, as workspace's resolveRoot has it (`root` is absolute already); not
    // imported from there, which would load the workspace layer (and zod) before `--help`.
    realRoot = realpathSync(root);
  } catch {
    return undefined;
  }
  const snapshot = import('../sandbox/index.js').then(({ gitSnapshot, detectSandbox }) =>
    gitSnapshot({ root: realRoot, glassboxHome: home, detectSandbox, onGitStarted }),
  );
  snapshot.catch(() => {});
  return snapshot;
}
