// Runs one hook as a real process: bash -c with its JSON input on stdin, the same allowlisted
// environment as tool commands (no API keys or tokens reach it), its own process group killed on
// timeout. A user's hook runs as the user on the host; a project's in the sandbox.

import { runCommand, type SandboxSettings } from '../sandbox/index.js';
import type { HookDefinition } from './hook-config.js';
import type { HookEnding } from './hook-result.js';

/** What one hook may print that the record keeps (stdout and stderr each). */
export const HOOK_OUTPUT_LIMIT = 16_000;
/** A hook that ignores SIGTERM is killed this long after it. */
const HOOK_KILL_GRACE_MS = 500;

export interface HookProcessSettings {
  root: string;
  env: NodeJS.ProcessEnv;
  /** For a project's hook: the sandbox it runs in, or why there is none (it then cannot run). */
  sandbox: () => Promise<SandboxSettings | { unavailable: string }>;
}

export interface HookProcessResult extends HookEnding {
  durationMs: number;
  sandboxed: boolean;
}

export async function runHook(
  hook: HookDefinition,
  input: string,
  settings: HookProcessSettings,
  signal: AbortSignal,
): Promise<HookProcessResult> {
  const started = performance.now();
  const ending = (startError: string, sandboxed: boolean): HookProcessResult => ({
    exitCode: null,
    signal: null,
    timedOut: false,
    timeoutSec: hook.timeoutSec,
    stdout: '',
    stderr: '',
    startError,
    durationMs: performance.now() - started,
    sandboxed,
  });
  let sandbox: SandboxSettings | null = null;
  if (hook.source === 'project') {
    const found = await settings.sandbox();
    if ('unavailable' in found)
      return ending(`a project's hooks run only in the sandbox, which is unavailable: ${found.unavailable}`, true);
    sandbox = found;
  }
  try {
    const result = await runCommand({
      command: hook.command,
      root: settings.root,
      workdir: settings.root,
      env: settings.env,
      // Claude Code's variable, so a pasted `"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh` works.
      extraEnv: { CLAUDE_PROJECT_DIR: settings.root, GLASSBOX_PROJECT_DIR: settings.root },
      sandbox,
      timeoutMs: hook.timeoutSec * 1000,
      killGraceMs: HOOK_KILL_GRACE_MS,
      outputLimit: HOOK_OUTPUT_LIMIT,
      stdin: input,
      separateStderr: true,
      signal,
    });
    return {
      exitCode: result.exitCode,
      signal: result.signal,
      timedOut: result.timedOut,
      timeoutSec: hook.timeoutSec,
      stdout: result.output.text,
      stderr: result.stderr?.text ?? '',
      startError: result.cancelled ? 'the run was cancelled' : null,
      durationMs: result.durationMs,
      sandboxed: sandbox !== null,
    };
  } catch (error) {
    return ending((error as Error).message, sandbox !== null);
  }
}
