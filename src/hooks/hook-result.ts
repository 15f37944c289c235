// What a hook's ending means, as Claude Code defines it, except that we fail closed: exit 0 goes
// on (its stdout may be JSON with a decision, or text added as context), exit 2 blocks with stderr
// as the reason, and anything else — a crash, a timeout, another exit code, stdout that starts
// like JSON but is not — is `failed`, which blocks a PreToolUse call (Claude Code lets it through).

import type { HookEventName, HookOutcome } from '../protocol/index.js';

export interface HookEnding {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  timeoutSec: number;
  stdout: string;
  stderr: string;
  /** The process could not be run at all (no sandbox for a project hook, no bash). */
  startError: string | null;
}

export interface HookVerdict {
  outcome: HookOutcome;
  reason: string | null;
  /** Text for the model's context (UserPromptSubmit, SessionStart: plain stdout or `additionalContext`). */
  context: string | null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

export function interpretHook(event: HookEventName, ending: HookEnding): HookVerdict {
  const stderr = ending.stderr.trim();
  if (ending.startError !== null) return { outcome: 'failed', reason: `the hook could not be run: ${ending.startError}`, context: null };
  if (ending.timedOut)
    return { outcome: 'failed', reason: `timed out after ${ending.timeoutSec} s; its processes were killed`, context: null };
  if (ending.exitCode === 2) {
    const outcome = event === 'PreToolUse' ? 'deny' : 'block';
    return { outcome, reason: stderr === '' ? 'the hook exited with code 2' : stderr, context: null };
  }
  if (ending.exitCode !== 0) {
    const how = ending.exitCode === null ? `was killed by ${ending.signal ?? 'a signal'}` : `exited with code ${ending.exitCode}`;
    return { outcome: 'failed', reason: stderr === '' ? `the hook ${how}` : `the hook ${how}: ${stderr}`, context: null };
  }
  const stdout = ending.stdout.trim();
  if (!stdout.startsWith('{')) return { outcome: 'continue', reason: null, context: stdout === '' ? null : stdout };
  let output: unknown;
  try {
    output = JSON.parse(stdout);
  } catch (error) {
    return { outcome: 'failed', reason: `the hook printed JSON that cannot be read: ${(error as Error).message}`, context: null };
  }
  if (!isObject(output)) return { outcome: 'failed', reason: 'the hook printed JSON that is not an object', context: null };
  const specific = isObject(output.hookSpecificOutput) ? output.hookSpecificOutput : {};
  const context = text(specific.additionalContext);
  const stopped = output.continue === false || output.decision === 'block';
  if (stopped) {
    const reason = text(output.reason) ?? text(output.stopReason) ?? 'the hook blocked it';
    return { outcome: event === 'PreToolUse' ? 'deny' : 'block', reason, context };
  }
  if (event === 'PreToolUse') {
    const decision = specific.permissionDecision ?? (output.decision === 'approve' ? 'allow' : undefined);
    const reason = text(specific.permissionDecisionReason) ?? text(output.reason);
    if (decision === 'allow' || decision === 'deny' || decision === 'ask') return { outcome: decision, reason, context };
    if (decision !== undefined)
      return { outcome: 'failed', reason: `permissionDecision ${JSON.stringify(decision)} is not allow, deny or ask`, context: null };
  }
  return { outcome: 'continue', reason: null, context };
}
