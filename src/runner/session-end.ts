// SessionEnd hooks (docs/permissions.md, "Hooks"): run when a face leaves a session — `exec` when
// its turn is over, the terminal on /quit or Ctrl-D (`prompt_input_exit`) and on /clear (`clear`).
// The runs are recorded in that session as audit records, as a turn's hook runs are; without
// SessionEnd hooks this reads the config files and nothing else.

import { detectSandbox } from '../sandbox/index.js';
import type { RunEvent } from '../agent/index.js';
import type { SessionEndReason } from '../hooks/index.js';

export type { SessionEndReason };
import { JsonlSessionStore } from '../sessions/index.js';
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
  const { settings } = runner;
  const hooks = await readTurnHooks(settings.home, runner.root);
  if (!hooks.hooks.some((hook) => hook.event === 'SessionEnd')) return;
  let turn = 0;
  // The lock is taken, so nothing else writes the session while its end is recorded.
  const { writer } = await runner.store.openAndReplay(sessionId, (record) => {
    const at = (record as { turn?: unknown }).turn;
    if (typeof at === 'number' && at > turn) turn = at;
  });
  try {
    const hookRunner = toolHooksFor(hooks, {
      root: runner.root,
      home: settings.home,
      // Outside a turn there is no turn's mode to follow: a project's hooks get the tightest sandbox.
      sandbox: 'read-only',
      sessionId,
      transcriptPath: runner.store instanceof JsonlSessionStore ? runner.store.sessionPath(sessionId) : null,
      detectSandbox: settings.detectSandbox ?? detectSandbox,
    });
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
