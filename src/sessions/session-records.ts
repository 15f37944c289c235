// The session file format, version 1: the record types, and how a parsed JSON line is checked.
// Documented in docs/session-format.md; change both together.
//
// Records that occur many times per turn (`response_item`, `model_call`, `audit`) are checked by
// small hand-written shape checks, because replaying a long session must cost little more than
// JSON.parse. The rare records go through zod schemas. Either way a record that passes is returned
// as the very object JSON.parse produced, so fields added by a newer minor writer survive a fork.

import { z } from 'zod';
import { WIRE_APIS, type FinishReason, type Usage, type WireApi } from '../model/index.js';
import type { ResponseItem, RunErrorInfo, RunEvent, StagedUsage, UsageStage } from '../agent/index.js';
import type { CompactionEntry } from '../compaction/index.js';

export const SESSION_FORMAT_VERSION = 1;

export interface SessionParent {
  sessionId: string;
  /** The last parent turn the fork contains (0: none). */
  atTurn: number;
}

export interface SessionMetaRecord {
  type: 'session_meta';
  ts: string;
  formatVersion: number;
  sessionId: string;
  createdAt: string;
  cwd: string;
  model: string;
  wireApi: WireApi;
  parent: SessionParent | null;
  glassboxVersion: string;
}

export interface TurnPolicy {
  /** e.g. `untrusted`, `on-request`, `never`: recorded as the CLI named it. */
  approvalPolicy: string;
  /** e.g. `read-only`, `workspace-write`, `danger-full-access`. */
  sandbox: string;
}

export interface TurnStartedRecord {
  type: 'turn_started';
  ts: string;
  /** 1-based, increasing by one per turn. */
  turn: number;
  runId: string;
  prompt: string;
  policy: TurnPolicy;
  model: string;
  wireApi: WireApi;
}

export interface ResponseItemRecord {
  type: 'response_item';
  ts: string;
  turn: number;
  item: ResponseItem;
  /** Set on the synthetic output that orphan repair appends for an interrupted tool call. */
  repaired?: true;
}

/** One model call, without the request or the stream: those would make files grow quadratically. */
export interface ModelCallSummaryRecord {
  type: 'model_call';
  ts: string;
  turn: number;
  round: number;
  stage: UsageStage;
  usage: Usage | null;
  durationMs: number;
  finishReason: FinishReason | null;
  error: RunErrorInfo | null;
}

type ToolFinishedEvent = Extract<RunEvent, { type: 'tool_finished' }>;

/** The run events worth keeping for audit. `tool_finished` drops `output`: the response_item has it. */
export type AuditEvent =
  | Extract<RunEvent, { type: 'tool_permission_decided' | 'approval_requested' | 'approval_resolved' | 'tool_started' }>
  | Omit<ToolFinishedEvent, 'output'>;
export type AuditEventType = AuditEvent['type'];

export interface AuditRecord {
  type: 'audit';
  ts: string;
  turn: number;
  event: AuditEvent;
}

export interface WarningRecord {
  type: 'warning';
  ts: string;
  /** null for warnings outside a turn (e.g. while resuming). */
  turn: number | null;
  code: string;
  message: string;
}

interface TurnEndFields {
  ts: string;
  turn: number;
  runId: string;
  usage: StagedUsage;
  rounds: number;
}

export interface TurnCompletedRecord extends TurnEndFields {
  type: 'turn_completed';
}

export interface TurnFailedRecord extends TurnEndFields {
  type: 'turn_failed';
  error: RunErrorInfo;
}

export interface TurnCancelledRecord extends TurnEndFields {
  type: 'turn_cancelled';
  reason: string;
}

/**
 * A context compaction: what was done and every input of its pure transform (`summary` and
 * `userBudgetTokens`, or `prunedCallIds`), so replay re-applies it and reproduces the history the
 * live run held. The response items it replaced stay in the file above it, for audit.
 */
export type CompactionRecord = { type: 'compaction'; ts: string; turn: number } & CompactionEntry;

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

// ---------------------------------------------------------------------------------------------
// Cheap shape checks for the frequent records.

type Check = (value: unknown) => boolean;
type Fields = Record<string, unknown>;

const isString: Check = (value) => typeof value === 'string';
const isBoolean: Check = (value) => typeof value === 'boolean';
const isCount: Check = (value) => Number.isInteger(value) && (value as number) >= 0;
const isTurnNumber: Check = (value) => Number.isInteger(value) && (value as number) >= 1;
const isAmount: Check = (value) => typeof value === 'number' && Number.isFinite(value) && value >= 0;

function nullable(check: Check): Check {
  return (value) => value === null || check(value);
}

function optional(check: Check): Check {
  return (value) => value === undefined || check(value);
}

function oneOf(...allowed: string[]): Check {
  const set = new Set(allowed);
  return (value) => typeof value === 'string' && set.has(value);
}

function isObject(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A check for an object with these fields; returns the first offending field name, or null. */
function shape(fields: Record<string, Check>): (value: Fields) => string | null {
  const names = Object.keys(fields);
  const checks = Object.values(fields);
  return (value) => {
    for (let index = 0; index < names.length; index += 1) if (!checks[index](value[names[index]])) return names[index];
    return null;
  };
}

const isWireApi: Check = (value) => typeof value === 'string' && (WIRE_APIS as readonly string[]).includes(value);
const providerFieldsShape = shape({ format: isWireApi, fields: isObject });
const isProviderFields: Check = (value) => isObject(value) && providerFieldsShape(value) === null;

const usageShape = shape({
  inputTokens: isAmount,
  cachedInputTokens: nullable(isAmount),
  cacheWriteInputTokens: optional(isAmount),
  outputTokens: isAmount,
  reasoningTokens: isAmount,
  totalTokens: isAmount,
});
const isUsage: Check = (value) => isObject(value) && usageShape(value) === null;
const errorShape = shape({ code: isString, message: isString });
const isErrorInfo: Check = (value) => isObject(value) && errorShape(value) === null;

// Lookups by a type read from the file go through Maps, so a record typed `constructor` or
// `__proto__` cannot reach Object.prototype members.
const assistantShape = shape({ content: isString, runtimeRole: oneOf('working_message', 'final_response') });
const itemShapes = new Map<string, (value: Fields) => string | null>(Object.entries({
  message: (value) => {
    if (value.role === 'assistant') return assistantShape(value);
    if (value.role === 'user' || value.role === 'system') return isString(value.content) ? null : 'content';
    return 'role';
  },
  function_call: shape({ callId: isString, name: isString, arguments: isString, providerCallId: optional(isString), providerFields: optional(isProviderFields) }),
  reasoning: shape({ format: isWireApi, text: isString, state: nullable(isObject) }),
  function_call_output: shape({ callId: isString, name: isString, output: isString, isError: isBoolean }),
  compaction_summary: shape({ compactionId: isString, summary: isString }),
}));
const auditShapeTable: Record<AuditEventType, (value: Fields) => string | null> = {
  tool_permission_decided: shape({
    callId: isString,
    name: isString,
    decision: oneOf('allow', 'ask', 'deny'),
    reason: isString,
    rule: isString,
  }),
  approval_requested: shape({ callId: isString, name: isString, summary: isString, reason: isString, arguments: isString }),
  approval_resolved: shape({
    callId: isString,
    name: isString,
    decision: oneOf('approve', 'approve_session', 'deny'),
    by: isString,
    message: nullable(isString),
  }),
  tool_started: shape({ callId: isString, name: isString }),
  tool_finished: shape({ callId: isString, name: isString, isError: isBoolean, durationMs: isAmount }),
};

const auditShapes = new Map<string, (value: Fields) => string | null>(Object.entries(auditShapeTable));
export const AUDIT_EVENT_TYPES: readonly AuditEventType[] = Object.keys(auditShapeTable) as AuditEventType[];

const modelCallShape = shape({
  turn: isTurnNumber,
  round: isCount,
  stage: oneOf('turn', 'compaction'),
  usage: nullable(isUsage),
  durationMs: isAmount,
  finishReason: nullable(oneOf('stop', 'tool_calls')),
  error: nullable(isErrorInfo),
});

function checkResponseItemRecord(record: Fields): string | null {
  if (!isTurnNumber(record.turn)) return 'turn must be an integer >= 1';
  if (record.repaired !== undefined && record.repaired !== true) return 'repaired must be true when present';
  const item = record.item;
  if (!isObject(item)) return 'item must be an object';
  const check = typeof item.type === 'string' ? itemShapes.get(item.type) : undefined;
  if (check === undefined) return `item.type ${JSON.stringify(item.type)} is not a known response item type`;
  const field = check(item);
  return field === null ? null : `item.${field} is missing or has the wrong type`;
}

function checkAuditRecord(record: Fields): string | null {
  if (!isTurnNumber(record.turn)) return 'turn must be an integer >= 1';
  const event = record.event;
  if (!isObject(event)) return 'event must be an object';
  const check = typeof event.type === 'string' ? auditShapes.get(event.type) : undefined;
  if (check === undefined) return `event.type ${JSON.stringify(event.type)} is not an audited run event`;
  const field = check(event);
  return field === null ? null : `event.${field} is missing or has the wrong type`;
}

function checkModelCallRecord(record: Fields): string | null {
  const field = modelCallShape(record);
  return field === null ? null : `${field} is missing or has the wrong type`;
}

// ---------------------------------------------------------------------------------------------
// zod schemas for the rare records: clearer messages, and they document the format.

const wireApiSchema = z.enum(WIRE_APIS as [WireApi, ...WireApi[]]);
const turnSchema = z.number().int().min(1);
const usageSchema = z.object({
  inputTokens: z.number().min(0),
  cachedInputTokens: z.number().min(0).nullable(),
  cacheWriteInputTokens: z.number().min(0).optional(),
  outputTokens: z.number().min(0),
  reasoningTokens: z.number().min(0),
  totalTokens: z.number().min(0),
  raw: z.unknown(),
});
const stageSchema = z.enum(['turn', 'compaction']);
const stagedUsageSchema = z.object({
  total: usageSchema,
  byStage: z.partialRecord(stageSchema, usageSchema),
  calls: z.number().int().min(0),
});
const errorInfoSchema = z.object({ code: z.string(), message: z.string() });

export const sessionParentSchema = z.object({ sessionId: z.string().min(1), atTurn: z.number().int().min(0) });

const sessionMetaSchema: z.ZodType<SessionMetaRecord> = z.object({
  type: z.literal('session_meta'),
  ts: z.string(),
  formatVersion: z.number().int().min(1),
  sessionId: z.string().min(1),
  createdAt: z.string(),
  cwd: z.string(),
  model: z.string(),
  wireApi: wireApiSchema,
  parent: sessionParentSchema.nullable(),
  glassboxVersion: z.string(),
});

const turnStartedSchema: z.ZodType<TurnStartedRecord> = z.object({
  type: z.literal('turn_started'),
  ts: z.string(),
  turn: turnSchema,
  runId: z.string(),
  prompt: z.string(),
  policy: z.object({ approvalPolicy: z.string(), sandbox: z.string() }),
  model: z.string(),
  wireApi: wireApiSchema,
});

const turnEndFields = {
  ts: z.string(),
  turn: turnSchema,
  runId: z.string(),
  usage: stagedUsageSchema,
  rounds: z.number().int().min(0),
};

const turnCompletedSchema: z.ZodType<TurnCompletedRecord> = z.object({
  type: z.literal('turn_completed'),
  ...turnEndFields,
});
const turnFailedSchema: z.ZodType<TurnFailedRecord> = z.object({
  type: z.literal('turn_failed'),
  ...turnEndFields,
  error: errorInfoSchema,
});
const turnCancelledSchema: z.ZodType<TurnCancelledRecord> = z.object({
  type: z.literal('turn_cancelled'),
  ...turnEndFields,
  reason: z.string(),
});
const warningSchema: z.ZodType<WarningRecord> = z.object({
  type: z.literal('warning'),
  ts: z.string(),
  turn: turnSchema.nullable(),
  code: z.string(),
  message: z.string(),
});
const tokenCount = z.number().min(0);
const compactionFields = {
  type: z.literal('compaction'),
  ts: z.string(),
  turn: turnSchema,
  compactionId: z.string().min(1),
  trigger: z.enum(['auto', 'manual', 'overflow']),
  phase: z.enum(['pre_turn', 'mid_turn', 'manual']),
  tokensBefore: tokenCount,
  tokensAfter: tokenCount,
  itemsRemoved: z.number().int().min(0),
  itemsKept: z.number().int().min(0),
  reason: z.string(),
  estimated: z.boolean(),
};
const compactionSchema: z.ZodType<CompactionRecord> = z.discriminatedUnion('kind', [
  z.looseObject({ ...compactionFields, kind: z.literal('summary'), summary: z.string(), userBudgetTokens: z.number().int().min(0) }),
  z.looseObject({ ...compactionFields, kind: z.literal('prune'), prunedCallIds: z.array(z.string()) }),
]);

const zodSchemas = new Map<string, z.ZodType>(Object.entries({
  session_meta: sessionMetaSchema,
  turn_started: turnStartedSchema,
  turn_completed: turnCompletedSchema,
  turn_failed: turnFailedSchema,
  turn_cancelled: turnCancelledSchema,
  warning: warningSchema,
  compaction: compactionSchema,
}));

const fastChecks = new Map<string, (record: Fields) => string | null>(Object.entries({
  response_item: checkResponseItemRecord,
  model_call: checkModelCallRecord,
  audit: checkAuditRecord,
}));

export const SESSION_RECORD_TYPES: readonly SessionRecordType[] = [
  ...(zodSchemas.keys() as Iterable<SessionRecordType>),
  ...(fastChecks.keys() as Iterable<SessionRecordType>),
];

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
  const fast = fastChecks.get(type);
  if (fast !== undefined) {
    if (typeof value.ts !== 'string') return { kind: 'invalid', message: `${type} record: ts must be a string` };
    const problem = fast(value);
    if (problem !== null) return { kind: 'invalid', message: `${type} record: ${problem}` };
    return { kind: 'record', record: value as unknown as SessionRecord };
  }
  const schema = zodSchemas.get(type);
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
