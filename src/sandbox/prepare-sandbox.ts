// Work a sandboxed command's first run would otherwise do on the critical path, done while the
// first model request is in flight: probing bwrap (availability, tmpfs sizes), finding the trusted
// bash, reading the sandbox config and working out the host view, and the project's first
// protected-path walk (its listings are then reused, directory-listings.ts, and its code is
// compiled). All of it only reads: a command still checks everything for itself when it runs.

import { tmpfsSizeSupported } from './bubblewrap.js';
import { directoryListings } from './directory-listings.js';
import { findHostView } from './host-view.js';
import { findProtectedPaths } from './protected-paths.js';
import { readSandboxConfig } from './sandbox-config.js';
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
  const quietly = (work: Promise<unknown>) => work.catch(() => undefined);
  keyringSeccompFilter();
  await Promise.all([
    quietly(tmpfsSizeSupported(options.bwrapPath)),
    quietly(findTrustedProgram('bash', { env, root, searchPath: env.PATH })),
    quietly(findProtectedPaths({ root, homeDir, glassboxHome, runtimeDir: env.XDG_RUNTIME_DIR?.trim() || undefined })),
    quietly(
      readSandboxConfig(glassboxHome, homeDir).then((config) =>
        findHostView({
          root,
          homeDir,
          glassboxHome,
          searchPath: env.PATH ?? '',
          nodeBinary: process.execPath,
          runtimeDir: env.XDG_RUNTIME_DIR?.trim() || undefined,
          network: options.network,
          readablePaths: config.readablePaths,
        }),
      ),
    ),
  ]);
}
