// Turns from a session's records (each record's facts folded by the one reducer), and the live
// turn merged over its recorded copy.

import type { SessionRecord } from '../../sessions/session-records.js';
import { factsOfRecord, newTurn, reduceTurnAt, type TranscriptEntry, type TranscriptTurn } from '../../views/index.js';

function turnOf(record: SessionRecord): number | null {
  return 'turn' in record && typeof record.turn === 'number' ? record.turn : null;
}

export function transcriptFromRecords(records: SessionRecord[]): TranscriptTurn[] {
  const turns: TranscriptTurn[] = [];
  for (const record of records) {
    const facts = factsOfRecord(record);
    if (facts.length === 0) continue;
    const number = turnOf(record);
    const last = turns[turns.length - 1];
    if (record.type === 'turn_started' || (number !== null && (last === undefined || last.turn !== number))) {
      turns.push(newTurn(number, null, '', { status: 'incomplete' }));
    } else if (last === undefined) {
      // Something outside any turn (a warning while resuming) before the first turn: nowhere to show it.
      continue;
    }
    const at = typeof record.ts === 'string' ? record.ts : null;
    turns[turns.length - 1] = facts.reduce((turn, fact) => reduceTurnAt(turn, fact, at), turns[turns.length - 1]!);
  }
  return turns;
}

/** Text that was streaming when the run stopped: the records never have it (it was not committed). */
export function partialEntries(turn: TranscriptTurn): TranscriptEntry[] {
  return turn.entries.filter((entry) => entry.kind === 'assistant' && entry.role === 'partial');
}

/** The recorded turn with the partial text a live copy (or a replay of the run's events) saw. */
export function withPartialText(recorded: TranscriptTurn, partial: TranscriptEntry[]): TranscriptTurn {
  const missing = partial.filter(
    (entry) =>
      !recorded.entries.some(
        (known) => known.kind === 'assistant' && known.role === 'partial' && known.text === (entry.kind === 'assistant' ? entry.text : ''),
      ),
  );
  if (missing.length === 0) return recorded;
  const keyed = missing.map((entry, index) => ({ ...entry, key: `partial-${index}` }));
  return { ...recorded, entries: [...recorded.entries, ...keyed] };
}

/**
 * The turns to show: the recorded ones, with the live turn in place of its recorded copy while
 * the records lag behind the events (still running, or the end record not read yet). Once the
 * records have the turn, they win, keeping any partial text only the live copy saw.
 */
export function mergeLiveTurn(recorded: TranscriptTurn[], live: TranscriptTurn | null): TranscriptTurn[] {
  if (live === null) return recorded;
  const index = live.runId === null ? -1 : recorded.findIndex((turn) => turn.runId === live.runId);
  if (index === -1) {
    // The turn number was a guess made before the run started; never let it collide with a recorded turn.
    const clash = recorded.some((turn) => turn.key === live.key);
    return [...recorded, clash ? { ...live, key: `live-${live.runId ?? 'pending'}` } : live];
  }
  const copy = recorded[index]!;
  if (copy.outcome.status !== 'incomplete') {
    const partial = partialEntries(live);
    if (partial.length === 0) return recorded;
    const merged = [...recorded];
    merged[index] = withPartialText(copy, partial);
    return merged;
  }
  const merged = [...recorded];
  merged[index] = withRecordedTimes({ ...live, turn: copy.turn ?? live.turn, key: copy.key }, copy);
  return merged;
}

/**
 * The live copy's times are when this page heard of each thing (after a reload or a re-attach,
 * when the replay arrived); where the records have the same entry (the keys agree), their time
 * is the true one.
 */
function withRecordedTimes(live: TranscriptTurn, recorded: TranscriptTurn): TranscriptTurn {
  const times = new Map<string, string>();
  for (const entry of recorded.entries)
    if ((entry.kind === 'assistant' || entry.kind === 'user') && entry.at) times.set(entry.key, entry.at);
  return {
    ...live,
    startedAt: recorded.startedAt ?? live.startedAt,
    entries: live.entries.map((entry) => {
      const at = times.get(entry.key);
      return at !== undefined && (entry.kind === 'assistant' || entry.kind === 'user') ? { ...entry, at } : entry;
    }),
  };
}
