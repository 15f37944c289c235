// One run's events, numbered 1, 2, 3… in arrival order, kept for replay to clients that attach
// late or re-attach after a dropped connection, and fanned out live to every subscriber.
//
// Memory: text deltas are by far the most numerous events, so consecutive deltas of one round are
// stored as one string plus the length of each delta; replay cuts them apart again, exactly. Past
// `maxDeltaChars` of stored delta text, further deltas keep their ids but not their text (a
// replay sends them with an empty `delta`; the round's text is in the session once it commits).

import { isTerminalEvent, type RunEvent } from '../agent/index.js';

export interface NumberedEvent {
  id: number;
  event: RunEvent;
}

export interface EventSubscriber {
  onEvent(entry: NumberedEvent): void;
  /** After the terminal event was delivered; no more calls follow. */
  onEnd(): void;
}

interface SingleEntry {
  kind: 'event';
  id: number;
  event: RunEvent;
}

interface DeltaSegment {
  kind: 'deltas';
  firstId: number;
  round: number;
  /** Concatenated delta text; empty when the segment is past the cap. */
  text: string;
  lengths: number[];
  elided: boolean;
}

type Entry = SingleEntry | DeltaSegment;

export const DEFAULT_MAX_DELTA_CHARS = 4 * 1024 * 1024;

function lastIdOf(entry: Entry): number {
  return entry.kind === 'event' ? entry.id : entry.firstId + entry.lengths.length - 1;
}

export class RunEventLog {
  private readonly entries: Entry[] = [];
  private readonly subscribers = new Set<EventSubscriber>();
  private nextId = 1;
  private deltaChars = 0;
  private ended = false;

  constructor(private readonly maxDeltaChars: number = DEFAULT_MAX_DELTA_CHARS) {}

  /** Id of the newest event; 0 before the first. */
  get lastId(): number {
    return this.nextId - 1;
  }

  get finished(): boolean {
    return this.ended;
  }

  /** Number and store one event, then deliver it to every subscriber. Ignored after the terminal event. */
  append(event: RunEvent): number {
    if (this.ended) return 0;
    const id = this.nextId;
    this.nextId += 1;
    this.store(id, event);
    if (isTerminalEvent(event)) this.ended = true;
    for (const subscriber of [...this.subscribers]) {
      subscriber.onEvent({ id, event });
      if (this.ended) subscriber.onEnd();
    }
    if (this.ended) this.subscribers.clear();
    return id;
  }

  private store(id: number, event: RunEvent): void {
    if (event.type !== 'assistant_delta') {
      this.entries.push({ kind: 'event', id, event });
      return;
    }
    const elided = this.deltaChars + event.delta.length > this.maxDeltaChars;
    const last = this.entries[this.entries.length - 1];
    let segment: DeltaSegment;
    if (last !== undefined && last.kind === 'deltas' && last.round === event.round && last.elided === elided && lastIdOf(last) === id - 1) {
      segment = last;
    } else {
      segment = { kind: 'deltas', firstId: id, round: event.round, text: '', lengths: [], elided };
      this.entries.push(segment);
    }
    segment.lengths.push(event.delta.length);
    if (!elided) {
      segment.text += event.delta;
      this.deltaChars += event.delta.length;
    }
  }

  /**
   * Replay every event after `afterId`, then deliver live ones until the terminal event.
   * Replay and registration happen in one synchronous step, so nothing is missed or repeated.
   * Returns an unsubscribe function.
   */
  subscribe(afterId: number, subscriber: EventSubscriber): () => void {
    for (const entry of this.replay(afterId)) subscriber.onEvent(entry);
    if (this.ended) {
      subscriber.onEnd();
      return () => {};
    }
    this.subscribers.add(subscriber);
    return () => {
      this.subscribers.delete(subscriber);
    };
  }

  /** The stored events with ids greater than `afterId`, in order. */
  *replay(afterId: number): Generator<NumberedEvent> {
    let index = this.firstEntryAfter(afterId);
    for (; index < this.entries.length; index += 1) {
      const entry = this.entries[index]!;
      if (entry.kind === 'event') {
        if (entry.id > afterId) yield { id: entry.id, event: entry.event };
        continue;
      }
      let offset = 0;
      for (let position = 0; position < entry.lengths.length; position += 1) {
        const length = entry.lengths[position]!;
        const id = entry.firstId + position;
        if (id > afterId) {
          const delta = entry.elided ? '' : entry.text.slice(offset, offset + length);
          yield { id, event: { type: 'assistant_delta', round: entry.round, delta } };
        }
        if (!entry.elided) offset += length;
      }
    }
  }

  /** Index of the first entry that holds an id above `afterId` (binary search: ids only grow). */
  private firstEntryAfter(afterId: number): number {
    let low = 0;
    let high = this.entries.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (lastIdOf(this.entries[middle]!) <= afterId) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** Entries held, for tests of the memory bound. */
  get storedEntries(): number {
    return this.entries.length;
  }
}
