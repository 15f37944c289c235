// Rows of the Debug tab's live event list.

import type { RunEvent } from '../api/index.js';

/** A numbered run event (the live run's list entries have this shape). */
export interface NumberedEvent {
  id: number;
  event: RunEvent;
}

export type EventRow =
  | { kind: 'event'; entry: NumberedEvent }
  | { kind: 'deltas'; firstId: number; lastId: number; round: number; text: string; count: number };

/** Consecutive text deltas of a round become one row: hundreds of them would bury everything else. */
export function groupDeltas(events: NumberedEvent[]): EventRow[] {
  const rows: EventRow[] = [];
  for (const entry of events) {
    const event = entry.event;
    const last = rows[rows.length - 1];
    if (event.type === 'assistant_delta') {
      if (last !== undefined && last.kind === 'deltas' && last.round === event.round && last.lastId === entry.id - 1) {
        rows[rows.length - 1] = { ...last, lastId: entry.id, text: last.text + event.delta, count: last.count + 1 };
      } else {
        rows.push({ kind: 'deltas', firstId: entry.id, lastId: entry.id, round: event.round, text: event.delta, count: 1 });
      }
    } else {
      rows.push({ kind: 'event', entry });
    }
  }
  return rows;
}
