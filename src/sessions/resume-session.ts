// Resuming reopens a session for the next turn. Any tool call the previous process left
// unanswered gets its synthetic output appended as a record (the file is never rewritten), so the
// repair is visible in the audit trail and every later replay sees the same history.

import type { ResponseItem, StagedUsage } from '../agent/index.js';
import { HistoryReplay, type OrphanCall } from './replay-session.js';
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
}

export async function resumeSession(store: SessionStore, sessionId: string): Promise<ResumedSession> {
  // Lock first, then read (once): nobody can append between the replay and the repair.
  const replayer = new HistoryReplay();
  const { writer, scan } = await store.openAndReplay(sessionId, (record) => replayer.add(record), {
    skipTypes: REPLAY_SKIPPABLE_TYPES,
  });
  try {
    const replay = replayer.finish();
    if (replay.added.length > 0) {
      // Filed under the turn of the call it answers; `orphans` and `added` are parallel.
      for (const [index, output] of replay.added.entries()) {
        const turn = replay.orphans[index]!.turn ?? Math.max(1, replay.turns);
        await writer.append({ type: 'response_item', turn, item: output, repaired: true });
      }
      await writer.sync();
    }
    return {
      writer,
      meta: scan.meta,
      history: replay.history,
      turns: replay.turns,
      usage: replay.usage,
      repaired: replay.orphans,
      problems: scan.problems,
      autoCompactionDisabled: replay.autoCompactionDisabled,
      lastTurn: replay.lastTurn,
    };
  } catch (error) {
    await writer.close();
    throw error;
  }
}
