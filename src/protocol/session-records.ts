// The session file format, version 1, written once: a zod schema per record type, and the record
// types derived from them. sessions/ reads and writes the files (its hand-written fast checks are
// proven to accept exactly what these schemas accept: test/sessions/record-checks-property.test.ts);
// the server serves the records and the web reads them. docs/session-format.md describes it.

import { z } from 'zod';
import { pruneCompactionSchema, summaryCompactionSchema } from './compaction-entry.js';
import { FINISH_REASONS } from './enumerations.js';
import { responseItemSchema, wireApiSchema } from './response-item.js';
import { auditEventSchema } from './tool-events.js';
import { amountSchema, countSchema, runErrorInfoSchema, stagedUsageSchema, usageSchema, usageStageSchema } from './usage.js';

export const SESSION_FORMAT_VERSION = 1;

const turnSchema = z.number().int().min(1);

export const sessionParentSchema = z.object({
  sessionId: z.string().min(1),
  /** The last parent turn the fork contains (0: none). */
  atTurn: countSchema,
});

export const sessionMetaSchema = z.object({
  type: z.literal('session_meta'),
  ts: z.string(),
  formatVersion: z.number().int().min(1),
  sessionId: z.string().min(1),
  createdAt: z.string(),
  cwd: z.string(),
  model: z.string(),
  wireApi: wireApiSchema,
  /** Set on a fork. */
  parent: sessionParentSchema.nullable(),
  glassboxVersion: z.string(),
});

export const turnStartedSchema = z.object({
  type: z.literal('turn_started'),
  ts: z.string(),
  /** 1-based, increasing by one per turn. */
  turn: turnSchema,
  runId: z.string(),
  prompt: z.string(),
  /** As the CLI named them: `untrusted`/`on-request`/`never`, `read-only`/`workspace-write`/`danger-full-access`. */
  policy: z.object({ approvalPolicy: z.string(), sandbox: z.string() }),
  model: z.string(),
  wireApi: wireApiSchema,
  /**
   * What automatic compaction worked against in this turn: what one request may hold and the
   * threshold (flags, config and catalog resolved as the turn resolved them). Absent in files from
   * before it was recorded, and for a turn run with compaction hooks of its own.
   */
  compaction: z.object({ inputWindow: countSchema, threshold: countSchema }).optional(),
  /** `plan`: a plan-mode turn (read-only sandbox, no writing tools; `--plan`, `/plan`). Absent: an ordinary turn. */
  mode: z.literal('plan').optional(),
});

export const responseItemRecordSchema = z.object({
  type: z.literal('response_item'),
  ts: z.string(),
  turn: turnSchema,
  item: responseItemSchema,
  /** Set on the synthetic output that orphan repair appends for an interrupted tool call. */
  repaired: z.literal(true).optional(),
});

/** One model call, without the request or the stream: those would make files grow quadratically. */
export const modelCallSchema = z.object({
  type: z.literal('model_call'),
  ts: z.string(),
  turn: turnSchema,
  round: countSchema,
  stage: usageStageSchema,
  usage: usageSchema.nullable(),
  durationMs: amountSchema,
  finishReason: z.enum(FINISH_REASONS).nullable(),
  error: runErrorInfoSchema.nullable(),
});

/** The run events worth keeping for audit. `tool_finished` drops `output`: the response_item has it. */
export const auditSchema = z.object({ type: z.literal('audit'), ts: z.string(), turn: turnSchema, event: auditEventSchema });

export const warningSchema = z.object({
  type: z.literal('warning'),
  ts: z.string(),
  /** null for warnings outside a turn (e.g. while resuming). */
  turn: turnSchema.nullable(),
  code: z.string(),
  message: z.string(),
});

const turnEndFields = { ts: z.string(), turn: turnSchema, runId: z.string(), usage: stagedUsageSchema, rounds: countSchema };
export const turnCompletedSchema = z.object({ type: z.literal('turn_completed'), ...turnEndFields });
/** The answer text a round had streamed when the turn ended before committing it (never sent back). */
const partialTextField = { partialText: z.string().optional() };
export const turnFailedSchema = z.object({
  type: z.literal('turn_failed'),
  ...turnEndFields,
  error: runErrorInfoSchema,
  ...partialTextField,
});
export const turnCancelledSchema = z.object({
  type: z.literal('turn_cancelled'),
  ...turnEndFields,
  reason: z.string(),
  ...partialTextField,
});

const compactionRecordFields = { type: z.literal('compaction'), ts: z.string(), turn: turnSchema };
/**
 * A context compaction: what was done and every input of its pure transform (`summary` and
 * `userBudgetTokens`, or `prunedCallIds`), so replay re-applies it and reproduces the history the
 * live run held. The response items it replaced stay in the file above it, for audit.
 */
export const compactionSchema = z.discriminatedUnion('kind', [
  summaryCompactionSchema.extend(compactionRecordFields),
  pruneCompactionSchema.extend(compactionRecordFields),
]);

/** Every record type of this version and its schema. */
export const RECORD_SCHEMAS = {
  session_meta: sessionMetaSchema,
  turn_started: turnStartedSchema,
  response_item: responseItemRecordSchema,
  model_call: modelCallSchema,
  audit: auditSchema,
  warning: warningSchema,
  turn_completed: turnCompletedSchema,
  turn_failed: turnFailedSchema,
  turn_cancelled: turnCancelledSchema,
  compaction: compactionSchema,
} as const;

/** Any record of this version. */
export const sessionRecordSchema = z.union([
  sessionMetaSchema,
  turnStartedSchema,
  responseItemRecordSchema,
  modelCallSchema,
  auditSchema,
  warningSchema,
  turnCompletedSchema,
  turnFailedSchema,
  turnCancelledSchema,
  compactionSchema,
]);

export type SessionParent = z.infer<typeof sessionParentSchema>;
export type SessionMetaRecord = z.infer<typeof sessionMetaSchema>;
export type TurnStartedRecord = z.infer<typeof turnStartedSchema>;
export type TurnPolicy = TurnStartedRecord['policy'];
export type ResponseItemRecord = z.infer<typeof responseItemRecordSchema>;
export type ModelCallSummaryRecord = z.infer<typeof modelCallSchema>;
export type AuditRecord = z.infer<typeof auditSchema>;
export type AuditEventType = AuditRecord['event']['type'];
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
