// Resuming reopens a session for the next turn. Any tool call the previous process left
// unanswered gets its synthetic output appended as a record (the file is never rewritten), so the
// repair is visible in the audit trail and every later replay sees the same history. A team
// worker's takeover may instead leave the cut-off last round open, when some of its calls provably
// never started (their approval was still pending or unused): those run again (`openBatch`).

import type { FunctionCallItem, FunctionCallOutputItem, OpenBatchCall, ResponseItem, StagedUsage } from '../agent/index.js';
import { HistoryReplay, type OrphanCall, type ReplayResult } from './replay-session.js';
import { REPLAY_SKIPPABLE_TYPES } from './record-lines.js';
import type { SessionMetaRecord } from './session-records.js';
import type { SessionProblem, SessionStore, SessionWriter } from './session-store.js';

export interface ResumedSession {
  /** Open for the next turn, holding the lock: the caller must close it. */
  writer: SessionWriter;
  meta: SessionMetaRecord;
  history: ResponseItem[];
  /** Turns started so far; the next turn is `turns + 1`. */
  turns: number;
  usage: StagedUsage;
  /** Calls repaired by this resume (empty when the session ended cleanly or was already repaired). */
  repaired: OrphanCall[];
  problems: SessionProblem[];
  /** Auto-compaction was switched off by the breaker in an earlier turn (see `ReplayResult`). */
  autoCompactionDisabled: boolean;
  /** The last turn started (see `ReplayResult`). */
  lastTurn: { turn: number; runId: string; items: number } | null;
  /**
   * The last round's calls, left unanswered for the loop to finish (`SamplingLoopOptions.openBatch`):
   * empty unless `unstartedCalls` named one of them. The history then ends with their calls.
   */
  openBatch: OpenBatchCall[];
}

export interface ResumeOptions {
  /** A team worker's takeover of this run, whose turn is the session's last (else nothing is left open). */
  runId?: string;
  /**
   * Of these calls (the last round's, all unanswered), the ones known never to have started: a team
   * worker asks its approval rows (a call whose approval is pending or answered but not yet used
   * never ran). Those run again instead of getting an interrupted output; the others of the round
   * still get one. Only the caller can know: a `tool_started` record may not have landed before a crash.
   */
  unstartedCalls?: (callIds: readonly string[]) => Promise<ReadonlySet<string>>;
  /**
   * Aborted once this process may no longer write the session (runTurn's `fence`): the writer is
   * revoked from the moment it is open, so a repair decided after the loss (`unstartedCalls` is a
   * database query) is refused instead of landing after the run was taken over.
   */
  fence?: AbortSignal;
}

export async function resumeSession(store: SessionStore, sessionId: string, options: ResumeOptions = {}): Promise<ResumedSession> {
  // Lock first, then read (once): nobody can append between the replay and the repair.
  const replayer = new HistoryReplay();
  const { writer, scan } = await store.openAndReplay(sessionId, (record) => replayer.add(record), {
    skipTypes: REPLAY_SKIPPABLE_TYPES,
  });
  const revoke = (): void => writer.revoke?.('another process holds the session now');
  if (options.fence?.aborted === true) revoke();
  else options.fence?.addEventListener('abort', revoke, { once: true });
  try {
    const replay = replayer.finish();
    const open =
      options.unstartedCalls === undefined || options.runId === undefined || replay.lastTurn?.runId !== options.runId
        ? null
        : await openLastRound(replay, options.unstartedCalls);
    const history = open?.history ?? replay.history;
    const repaired = open === null ? replay.orphans : replay.orphans.filter((_, index) => !open.left.has(replay.added[index]!));
    const added = open === null ? replay.added : replay.added.filter((output) => !open.left.has(output));
    if (added.length > 0) {
      // Filed under the turn of the call it answers; `repaired` and `added` are parallel.
      for (const [index, output] of added.entries()) {
        const turn = repaired[index]!.turn ?? Math.max(1, replay.turns);
        await writer.append({ type: 'response_item', turn, item: output, repaired: true });
      }
      await writer.sync();
    }
    return {
      writer,
      meta: scan.meta,
      history,
      turns: replay.turns,
      usage: replay.usage,
      repaired,
      problems: scan.problems,
      autoCompactionDisabled: replay.autoCompactionDisabled,
      lastTurn: replay.lastTurn,
      openBatch: open?.batch ?? [],
    };
  } catch (error) {
    await writer.close();
    throw error;
  } finally {
    // The caller fences the writer it is handed itself (runTurn checks the fence again).
    options.fence?.removeEventListener('abort', revoke);
  }
}

/**
 * The last round left open when one of its unanswered calls never started: the history without the
 * outputs the repair made up for that round (they are not persisted), and the round's calls, each
 * with its made-up output or null (run it again). Null when there is nothing to leave open.
 */
async function openLastRound(
  replay: ReplayResult,
  unstartedCalls: NonNullable<ResumeOptions['unstartedCalls']>,
): Promise<{ history: ResponseItem[]; batch: OpenBatchCall[]; left: ReadonlySet<FunctionCallOutputItem> } | null> {
  const { history } = replay;
  const made = new Set(replay.added);
  let start = history.length;
  while (start > 0 && made.has(history[start - 1] as FunctionCallOutputItem)) start -= 1;
  const tail = history.slice(start) as FunctionCallOutputItem[];
  const ids = new Set(tail.map((output) => output.callId));
  // Ids repeated within the round (sessions from before ids were made unique) cannot be told apart.
  if (tail.length === 0 || ids.size !== tail.length) return null;
  const calls = new Map<string, FunctionCallItem>();
  for (let index = start - 1; index >= 0 && calls.size < ids.size; index -= 1) {
    const item = history[index]!;
    if (item.type === 'function_call' && ids.has(item.callId) && !calls.has(item.callId)) calls.set(item.callId, item);
  }
  if (calls.size !== ids.size) return null;
  const unstarted = await unstartedCalls([...ids]);
  if (!tail.some((output) => unstarted.has(output.callId))) return null;
  return {
    history: history.slice(0, start),
    batch: tail.map((output) => ({ call: calls.get(output.callId)!, output: unstarted.has(output.callId) ? null : output })),
    left: new Set(tail),
  };
}
