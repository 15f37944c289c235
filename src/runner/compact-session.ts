// Manual compaction of a stored session (`glassbox compact`, the HTTP API): take the session's
// lock, replay it, summarize the history now, and append the compaction record — the same record
// an automatic compaction writes, so the next turn (and any replay) starts from the summary.

import { toolDefinition, type RunEvent } from '../agent/index.js';
import {
  compactHistory,
  compactionSettings,
  historyCompactedEvent,
  CompactionFailure,
  type HistoryCompactedEvent,
} from '../compaction/index.js';
import { resumeSession } from '../sessions/index.js';
import { toolSchemaTokens, type Runner } from './agent-runner.js';
import { SessionRecorder } from './session-recorder.js';
import { readTurnHooks, toolHooksFor } from './turn-hooks.js';

export interface CompactSessionOptions {
  runner: Runner;
  /** A session id, a unique prefix, or `last`. */
  sessionId: string;
  /** Added to the summary template (and to config's `compaction.instructions`) for this summary. */
  instructions?: string;
  signal?: AbortSignal;
  /** Model-call events and warnings while it works. */
  onEvent?: (event: RunEvent) => void;
}

/**
 * Compact a session now, whatever its size. Resolves with the `history_compacted` event that
 * describes the result; rejects with `CompactionFailure` when there is nothing to compact or no
 * usable summary, and with a `SessionError` when the session is unknown or in use.
 */
export async function compactSession(options: CompactSessionOptions): Promise<HistoryCompactedEvent> {
  const { runner } = options;
  const { settings } = runner;
  const resolved = await runner.compaction();
  const sessionId = await runner.store.resolveId(options.sessionId);
  // Lock, replay, and persist repairs of interrupted calls, exactly as a resumed turn would.
  const session = await resumeSession(runner.store, sessionId);
  try {
    if (session.turns === 0) {
      throw new CompactionFailure(`Session ${sessionId} has no turns yet; there is nothing to compact.`, 'NOTHING_TO_COMPACT');
    }
    // Filed under the last turn: it changes what that turn's successor will send.
    const turn = session.turns;
    const recorder = new SessionRecorder(session.writer, turn, options.onEvent ?? (() => {}));
    await runManualPreCompact(runner, sessionId, options.instructions ?? null, options.signal, (event) => recorder.onEvent(event));
    const overheadTokens = toolSchemaTokens(runner.tools.map(toolDefinition));
    const result = await compactHistory({
      history: session.history,
      settings: compactionSettings(resolved, { overheadTokens, ...settings.compactionTuning }),
      gateway: settings.gateway,
      instructions: options.instructions ?? null,
      signal: options.signal,
      round: 0,
      emit: (event) => recorder.onEvent(event),
      onModelCall: (call) => recorder.onModelCall(call),
    });
    await session.writer.append({ type: 'compaction', turn, ...result.entry });
    await session.writer.sync();
    const event = historyCompactedEvent(result.entry);
    options.onEvent?.(event);
    return event;
  } finally {
    await session.writer.close();
  }
}

/**
 * PreCompact hooks with `trigger: "manual"`. A person asked for this compaction, so a hook's block
 * does not stop it (as in Claude Code, where a block stops only automatic ones); it is shown.
 */
async function runManualPreCompact(
  runner: Runner,
  sessionId: string,
  instructions: string | null,
  signal: AbortSignal | undefined,
  emit: (event: RunEvent) => void,
): Promise<void> {
  const hooks = await readTurnHooks(runner.settings.home, runner.root);
  if (!hooks.hooks.some((hook) => hook.event === 'PreCompact')) return;
  // Outside a turn there is no turn's mode to follow: a project's hooks get the tightest sandbox.
  const hookRunner = toolHooksFor(hooks, runner, sessionId, 'read-only');
  for (const warning of hooks.warnings) emit({ type: 'warning', code: warning.code, message: warning.message });
  if (hookRunner === null) return;
  const blocked = await hookRunner.beforeCompact('manual', instructions, { signal: signal ?? new AbortController().signal, emit });
  if (blocked !== null)
    emit({
      type: 'warning',
      code: 'COMPACTION_BLOCKED',
      message: `A PreCompact hook blocked the compaction; it runs anyway, since it was asked for (hooks block only automatic ones). ${blocked}`,
    });
}
