// The session file format, version 1: the record types and how a parsed JSON line is checked.
// The types are inferred from the zod schemas in record-schemas.ts (the one definition of the
// format; docs/session-format.md describes it, change both together). The frequent records are
// checked by the fast checks of record-fast-checks.ts, proven to agree with the schemas; the rare
// ones by their schema. Either way a record that passes is returned as the very object JSON.parse
// produced, so fields added by a newer minor writer survive a fork.

import type { z } from 'zod';
import { FAST_CHECKS, isObject } from './record-fast-checks.js';
import {
  auditEventSchema,
  RECORD_SCHEMAS,
  type auditSchema,
  type compactionSchema,
  type modelCallSchema,
  type responseItemRecordSchema,
  type sessionMetaSchema,
  type sessionParentSchema,
  type turnCancelledSchema,
  type turnCompletedSchema,
  type turnFailedSchema,
  type turnStartedSchema,
  type warningSchema,
} from './record-schemas.js';

export { sessionParentSchema } from './record-schemas.js';

export const SESSION_FORMAT_VERSION = 1;

export type SessionParent = z.infer<typeof sessionParentSchema>;
export type SessionMetaRecord = z.infer<typeof sessionMetaSchema>;
export type TurnPolicy = TurnStartedRecord['policy'];
export type TurnStartedRecord = z.infer<typeof turnStartedSchema>;
export type ResponseItemRecord = z.infer<typeof responseItemRecordSchema>;
export type ModelCallSummaryRecord = z.infer<typeof modelCallSchema>;
export type AuditRecord = z.infer<typeof auditSchema>;
export type AuditEvent = AuditRecord['event'];
export type AuditEventType = AuditEvent['type'];
export type WarningRecord = z.infer<typeof warningSchema>;
export type TurnCompletedRecord = z.infer<typeof turnCompletedSchema>;
export type TurnFailedRecord = z.infer<typeof turnFailedSchema>;
export type TurnCancelledRecord = z.infer<typeof turnCancelledSchema>;
export type CompactionRecord = z.infer<typeof compactionSchema>;

export type SessionRecord =
  | SessionMetaRecord
  | TurnStartedRecord
  | ResponseItemRecord
  | ModelCallSummaryRecord
  | AuditRecord
  | WarningRecord
  | TurnCompletedRecord
  | TurnFailedRecord
  | TurnCancelledRecord
  | CompactionRecord;

export type SessionRecordType = SessionRecord['type'];
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
