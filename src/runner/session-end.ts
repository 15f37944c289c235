// SessionEnd hooks (docs/permissions.md, "Hooks"): run when a face leaves a session — `exec` when
// its turn is over, the terminal on /quit or Ctrl-D (`prompt_input_exit`) and on /clear (`clear`).
// The runs are recorded in that session as audit records, as a turn's hook runs are; without
// SessionEnd hooks this reads the config files and nothing else.

import type { RunEvent } from '../agent/index.js';
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
  const { runner, sessionId } = options;
  const hooks = await readTurnHooks(runner.settings.home, runner.root);
  if (!hooks.hooks.some((hook) => hook.event === 'SessionEnd')) return;
  let turn = 0;
  // The lock is taken, so nothing else writes the session while its end is recorded.
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
    // HOOKS_NOT_PINNED, HOOKS_CHANGED: why a project's SessionEnd hooks did not run, said as a turn says it.
    for (const warning of hooks.warnings) recorder.onEvent({ type: 'warning', code: warning.code, message: warning.message });
    await hookRunner.endSession(options.reason, {
      signal: options.signal ?? new AbortController().signal,
      emit: (event) => recorder.onEvent(event),
    });
    await writer.sync();
  } finally {
    await writer.close();
  }
}
