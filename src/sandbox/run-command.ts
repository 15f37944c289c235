// One shell command, end to end: filtered environment, optional bubblewrap wrapping, process-group
// lifetime and bounded output. The shell tool adds argument checks and formatting on top.

import { buildBubblewrapArgs, type SandboxedMode } from './bubblewrap.js';
import { buildChildEnvironment } from './child-environment.js';
import { findProtectedPaths } from './protected-paths.js';
import { runProcess, type ProcessResult } from './run-process.js';

export interface SandboxSettings {
  bwrapPath: string;
  mode: SandboxedMode;
  network: boolean;
  secretsApproved: boolean;
  homeDir: string;
  glassboxHome: string;
}

export interface RunCommandOptions {
  command: string;
  /** Real path of the project root. */
  root: string;
  /** Absolute real path of an existing directory inside the root. */
  workdir: string;
  /** The environment to filter (normally `process.env`); only allowlisted variables pass. */
  env: NodeJS.ProcessEnv;
  /** null: run directly on the host. */
  sandbox: SandboxSettings | null;
  timeoutMs: number;
  signal?: AbortSignal;
  outputLimit?: number;
  killGraceMs?: number;
}

export interface CommandResult extends ProcessResult {
  sandbox: { mode: SandboxedMode; network: boolean } | null;
  /** The secret scan hit its cap, so some deep secret files may not have been masked. */
  secretScanTruncated: boolean;
}

export async function runCommand(options: RunCommandOptions): Promise<CommandResult> {
  if (options.command.trim() === '') throw new Error('command must not be empty.');
  const common = {
    cwd: options.workdir,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
    outputLimit: options.outputLimit,
    killGraceMs: options.killGraceMs,
  };
  if (options.sandbox === null) {
    const env = buildChildEnvironment(options.env, { PWD: options.workdir, GLASSBOX_SANDBOX: '0' });
    const result = await runProcess({ ...common, file: 'bash', args: ['-c', options.command], env });
    return { ...result, sandbox: null, secretScanTruncated: false };
  }

  const sandbox = options.sandbox;
  const scan = await findProtectedPaths({
    root: options.root,
    homeDir: sandbox.homeDir,
    glassboxHome: sandbox.glassboxHome,
  });
  const args = buildBubblewrapArgs({
    root: options.root,
    workdir: options.workdir,
    mode: sandbox.mode,
    network: sandbox.network,
    secretsApproved: sandbox.secretsApproved,
    protectedPaths: scan.paths,
    command: options.command,
  });
  // Inside the sandbox only the private /tmp is writable outside the project.
  const env = buildChildEnvironment(options.env, { PWD: options.workdir, GLASSBOX_SANDBOX: '1', TMPDIR: '/tmp' });
  const result = await runProcess({ ...common, file: sandbox.bwrapPath, args, env });
  return {
    ...result,
    sandbox: { mode: sandbox.mode, network: sandbox.network },
    secretScanTruncated: scan.truncated,
  };
}
