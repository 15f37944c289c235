// SessionEnd hooks (docs/permissions.md, "Hooks"): run when a face leaves a session — `exec` when
// its turn is over, the terminal on /quit or Ctrl-D (`prompt_input_exit`) and on /clear (`clear`).
// And the terminal's `idle_prompt` Notification, when it has waited a minute for the next prompt.
// The runs are recorded in that session as audit records, as a turn's hook runs are; without
// SessionEnd hooks this reads the config files and nothing else.

import type { RunEvent, ToolHookContext } from '../agent/index.js';
import type { SessionEndReason } from '../hooks/index.js';
import { REPLAY_SKIPPABLE_TYPES } from '../sessions/index.js';

export type { SessionEndReason };
import type { Runner } from './agent-runner.js';
import { SessionRecorder } from './session-recorder.js';
import { readTurnHooks, toolHooksFor } from './turn-hooks.js';

export interface SessionEndOptions {
  runner: Runner;
  sessionId: string;
  reason: SessionEndReason;
  /** Each hook's `hook_ran` event, as a turn's are (exec --json prints them). */
  onEvent?: (event: RunEvent) => void;
  signal?: AbortSignal;
}

/** Runs the session's SessionEnd hooks; resolves when they are done and recorded. Never blocks anything. */
export async function endSession(options: SessionEndOptions): Promise<void> {
  await withSessionHooks(options, 'SessionEnd', (hookRunner, context) => hookRunner.endSession(options.reason, context));
}

export interface IdleNotificationOptions {
  runner: Runner;
  sessionId: string;
  /** What the hook reads as `message`. */
  message: string;
  onEvent?: (event: RunEvent) => void;
  signal?: AbortSignal;
}

/**
 * The `idle_prompt` Notification hooks: the terminal has waited for the next prompt for a while
 * (Claude Code sends it after 60 s). Recorded in the session like SessionEnd's runs.
 */
export async function notifyIdle(options: IdleNotificationOptions): Promise<void> {
  await withSessionHooks(options, 'Notification', (hookRunner, context) => hookRunner.notify('idle_prompt', options.message, context));
}

/**
 * Hooks run outside a turn, in a session: nothing is read but the config unless `event` has a
 * hook; the session's lock is held while the runs are recorded in it.
 */
async function withSessionHooks(
  options: { runner: Runner; sessionId: string; onEvent?: (event: RunEvent) => void; signal?: AbortSignal },
  event: 'SessionEnd' | 'Notification',
  run: (hookRunner: NonNullable<ReturnType<typeof toolHooksFor>>, context: ToolHookContext) => Promise<void>,
): Promise<void> {
  const { runner, sessionId } = options;
  const hooks = await readTurnHooks(runner.settings.home, runner.root);
  if (!hooks.hooks.some((hook) => hook.event === event)) return;
  let turn = 0;
  // The lock is taken, so nothing else writes the session while the runs are recorded.
  // Every turn has its turn_started record, which replay reads: the skipped types cannot add a turn.
  const { writer } = await runner.store.openAndReplay(
    sessionId,
    (record) => {
      const at = (record as { turn?: unknown }).turn;
      if (typeof at === 'number' && at > turn) turn = at;
    },
    { skipTypes: REPLAY_SKIPPABLE_TYPES },
  );
  try {
    // Outside a turn there is no turn's mode to follow: a project's hooks get the tightest sandbox.
    const hookRunner = toolHooksFor(hooks, runner, sessionId, 'read-only');
    if (hookRunner === null) return;
    const recorder = new SessionRecorder(writer, turn, options.onEvent ?? (() => {}));
    // HOOKS_NOT_PINNED, HOOKS_CHANGED: why a project's hooks did not run, said as a turn says it.
    for (const warning of hooks.warnings) recorder.onEvent({ type: 'warning', code: warning.code, message: warning.message });
    await run(hookRunner, { signal: options.signal ?? new AbortController().signal, emit: (event) => recorder.onEvent(event) });
    await writer.sync();
  } finally {
    await writer.close();
  }
}
