// The session file format, version 1: the record types and how a parsed JSON line is checked.
// The types are inferred from the zod schemas in protocol/session-records.ts (the one definition
// of the format; docs/session-format.md describes it, change both together). The frequent records are
// checked by the fast checks of record-fast-checks.ts, proven to agree with the schemas; the rare
// ones by their schema. Either way a record that passes is returned as the very object JSON.parse
// produced, so fields added by a newer minor writer survive a fork.

import type { z } from 'zod';
import {
  auditEventSchema,
  RECORD_SCHEMAS,
  type AuditEventType,
  type SessionMetaRecord,
  type SessionRecord,
  type SessionRecordType,
  type TurnCancelledRecord,
  type TurnCompletedRecord,
  type TurnFailedRecord,
} from '../protocol/index.js';
import { FAST_CHECKS, isObject } from './record-fast-checks.js';

export {
  SESSION_FORMAT_VERSION,
  sessionParentSchema,
  type AuditEvent,
  type AuditEventType,
  type AuditRecord,
  type CompactionRecord,
  type FileCheckpointRecord,
  type FileState,
  type ModelCallSummaryRecord,
  type ResponseItemRecord,
  type RewindRecord,
  type SessionMetaRecord,
  type SessionParent,
  type SessionRecord,
  type SessionRecordType,
  type TurnCancelledRecord,
  type TurnCompletedRecord,
  type TurnFailedRecord,
  type TurnPolicy,
  type TurnStartedRecord,
  type WarningRecord,
} from '../protocol/index.js';

export type TurnEndRecord = TurnCompletedRecord | TurnFailedRecord | TurnCancelledRecord;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** What a writer accepts: any record but the meta line; `ts` defaults to the time of the append. */
export type NewSessionRecord = DistributiveOmit<Exclude<SessionRecord, SessionMetaRecord>, 'ts'> & { ts?: string };

export function isTurnEndRecord(record: SessionRecord): record is TurnEndRecord {
  return record.type === 'turn_completed' || record.type === 'turn_failed' || record.type === 'turn_cancelled';
}

export const SESSION_RECORD_TYPES = Object.keys(RECORD_SCHEMAS) as readonly SessionRecordType[];
export const AUDIT_EVENT_TYPES: readonly AuditEventType[] = auditEventSchema.options.map((option) => option.shape.type.value);

// Lookups by a type read from the file go through a Map, so a record typed `constructor` or
// `__proto__` cannot reach Object.prototype members.
const schemas = new Map<string, z.ZodType>(Object.entries(RECORD_SCHEMAS));

function describeZodIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'does not match the schema';
  const path = issue.path.length > 0 ? issue.path.join('.') : 'record';
  return `${path}: ${issue.message}`;
}

export type RecordParse =
  | { kind: 'record'; record: SessionRecord }
  /** A record type this version does not know, presumably from a newer writer. */
  | { kind: 'unknown'; type: string }
  | { kind: 'invalid'; message: string };

/** Check a JSON value against the record format. */
export function parseSessionRecord(value: unknown): RecordParse {
  if (!isObject(value)) return { kind: 'invalid', message: 'a record must be a JSON object' };
  const type = value.type;
  if (typeof type !== 'string' || type === '') return { kind: 'invalid', message: 'record has no type' };
  const fast = FAST_CHECKS.get(type);
  if (fast !== undefined) {
    if (typeof value.ts !== 'string') return { kind: 'invalid', message: `${type} record: ts must be a string` };
    const problem = fast(value);
    if (problem !== null) return { kind: 'invalid', message: `${type} record: ${problem}` };
    return { kind: 'record', record: value as unknown as SessionRecord };
  }
  const schema = schemas.get(type);
  if (schema === undefined) return { kind: 'unknown', type };
  const result = schema.safeParse(value);
  if (!result.success) return { kind: 'invalid', message: `${type} record: ${describeZodIssue(result.error)}` };
  return { kind: 'record', record: value as unknown as SessionRecord };
}

/** Parse one line of a session file. */
export function parseRecordLine(text: string): RecordParse {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { kind: 'invalid', message: `invalid JSON: ${(error as Error).message}` };
  }
  return parseSessionRecord(value);
}
