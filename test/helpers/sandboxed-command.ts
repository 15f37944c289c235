// One command in the real bubblewrap sandbox (workspace-write, network off, secrets masked) as
// the shell tool runs it, for tests that judge the sandbox by what a command can do in it: `root`
// is the project, `home` the user's home and its HOME; Glassbox's home defaults to `home/.glassbox`.

import { join } from 'node:path';
import type { DirectoryListings } from '../../src/sandbox/directory-listings.js';
import { detectSandbox, runCommand, type CommandResult } from '../../src/sandbox/index.js';

export const sandboxAvailability = await detectSandbox();

/** The `skip` option for tests that need bubblewrap: false, or why it cannot run here. */
export const needsSandbox: false | string = sandboxAvailability.available ? false : `bubblewrap unavailable: ${sandboxAvailability.reason}`;

export interface SandboxedCommand {
  root: string;
  home: string;
  command: string;
  /** Where the command runs (default: `root`). */
  workdir?: string;
  glassboxHome?: string;
  timeoutMs?: number;
  /** The directory listings the walks reuse (default: the process's). */
  listings?: DirectoryListings;
}

export function runSandboxed(options: SandboxedCommand): Promise<CommandResult> {
  const { root, home } = options;
  return runCommand({
    command: options.command,
    root,
    workdir: options.workdir ?? root,
    env: { PATH: process.env.PATH, HOME: home },
    sandbox: {
      bwrapPath: sandboxAvailability.path ?? 'bwrap',
      mode: 'workspace-write',
      network: false,
      secretsApproved: false,
      homeDir: home,
      glassboxHome: options.glassboxHome ?? join(home, '.glassbox'),
    },
    timeoutMs: options.timeoutMs ?? 10_000,
    killGraceMs: 300,
    ...(options.listings === undefined ? {} : { listings: options.listings }),
  });
}
