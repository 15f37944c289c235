// Work a sandboxed command's first run would otherwise do on the critical path, done while the
// first model request is in flight: probing bwrap (availability, tmpfs sizes), finding the trusted
// bash, reading the sandbox config and working out the host view, and the project's first
// protected-path walk (its listings are then reused, directory-listings.ts, and its code is
// compiled). All of it only reads: a command still checks everything for itself when it runs.

import { tmpfsSizeSupported } from './bubblewrap.js';
import { directoryListings } from './directory-listings.js';
import { findProtectedPaths } from './protected-paths.js';
import { commandHostView, hostRuntimeDir } from './run-command.js';
import { keyringSeccompFilter } from './seccomp-filter.js';
import { findTrustedProgram } from './trusted-program.js';

export interface PrepareSandboxOptions {
  root: string;
  bwrapPath: string;
  homeDir: string;
  glassboxHome: string;
  env: NodeJS.ProcessEnv;
  network: boolean;
}

/** Never rejects: what fails here fails again, with its reason, when a command runs. */
export async function prepareSandbox(options: PrepareSandboxOptions): Promise<void> {
  const { root, homeDir, glassboxHome, env } = options;
  directoryListings.keepBetweenProcesses(root, glassboxHome);
  const runtimeDir = hostRuntimeDir(env);
  const quietly = (work: Promise<unknown>) => work.catch(() => undefined);
  keyringSeccompFilter();
  await Promise.all([
    quietly(tmpfsSizeSupported(options.bwrapPath)),
    quietly(findTrustedProgram('bash', { env, root, searchPath: env.PATH })),
    quietly(findProtectedPaths({ root, homeDir, glassboxHome, runtimeDir })),
    quietly(
      commandHostView({ root, sandbox: { homeDir, glassboxHome, network: options.network }, searchPath: env.PATH ?? '', runtimeDir }),
    ),
  ]);
}
