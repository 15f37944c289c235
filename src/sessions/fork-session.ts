// A fork starts a new session from a parent's history up to a turn. It copies the records that
// make up the history (response items, repairs included) and their turn framing with their
// original times, and nothing of the parent's audit trail: that stays with the parent.

import { SessionError } from './session-errors.js';
import { isTurnEndRecord, type NewSessionRecord, type SessionRecord } from './session-records.js';
import type { SessionStore } from './session-store.js';

export interface ForkOptions {
  /** The last parent turn to include; default: the last turn that ended. 0 forks an empty history. */
  atTurn?: number;
  /** Recorded in the fork's meta; default: the parent's. */
  glassboxVersion?: string;
}

/** The records that make up the history, and their turn framing. */
function isHistoryRecord(
  record: SessionRecord,
): record is Exclude<SessionRecord, { type: 'session_meta' | 'model_call' | 'audit' | 'warning' | 'rewind' }> {
  switch (record.type) {
    case 'turn_started':
    case 'response_item':
    case 'turn_completed':
    case 'turn_failed':
    case 'turn_cancelled':
    case 'compaction':
    // What the files were at each turn, so the fork can be rewound further back too.
    case 'file_checkpoint':
      return true;
    default:
      return false;
  }
}

/** Create the fork and return its id. */
export async function forkSession(store: SessionStore, sourceId: string, options: ForkOptions = {}): Promise<string> {
  const source = await store.read(sourceId);
  let lastTurn = 0;
  let lastEndedTurn = 0;
  for (const record of source.records) {
    if (record.type === 'turn_started' && record.turn > lastTurn) lastTurn = record.turn;
    if (isTurnEndRecord(record) && record.turn > lastEndedTurn) lastEndedTurn = record.turn;
  }
  const atTurn = options.atTurn ?? lastEndedTurn;
  if (!Number.isInteger(atTurn) || atTurn < 0 || atTurn > lastTurn) {
    throw new SessionError(
      'SESSION_INVALID_ARGUMENT',
      `cannot fork session ${sourceId} at turn ${atTurn}: it has ${lastTurn} turn${lastTurn === 1 ? '' : 's'} (use 0 to ${lastTurn})`,
      { exitCode: 2 },
    );
  }

  const copied: NewSessionRecord[] = [];
  let model = source.meta.model;
  let wireApi = source.meta.wireApi;
  for (const record of source.records) {
    if (!isHistoryRecord(record) || record.turn > atTurn) continue;
    if (record.type === 'turn_started') {
      model = record.model;
      wireApi = record.wireApi;
    }
    copied.push(record);
  }

  const writer = await store.create({
    cwd: source.meta.cwd,
    model,
    wireApi,
    parent: { sessionId: source.meta.sessionId, atTurn },
    glassboxVersion: options.glassboxVersion ?? source.meta.glassboxVersion,
  });
  try {
    for (const record of copied) await writer.append(record);
    await writer.sync();
  } finally {
    await writer.close();
  }
  return writer.sessionId;
}
