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

/**
 * A file's state as a checkpoint saw it: absent, a regular file whose bytes are the blob named by
 * their SHA-256 in the home's snapshot store, or not kept (a secret file is never copied; a file
 * over the size cap or unreadable has no copy), which a rewind reports and leaves alone.
 */
export const fileStateSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('absent') }),
  z.object({
    kind: z.literal('file'),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    size: countSchema,
    /** Permission bits (0o7777 at most). */
    mode: z.number().int().min(0).max(0o7777),
  }),
  z.object({ kind: z.literal('uncopied'), why: z.enum(['secret', 'large', 'unreadable', 'not-a-file']) }),
]);

/**
 * One file a tool call changed (write, edit, patch, or a shell command, found by comparing the
 * project's files around the call): its state before and after. A rewind to before turn N puts
 * back the `before` of the first record of turn N or later for each file, and treats a file whose
 * content is no longer the last record's `after` as changed outside Glassbox.
 */
export const fileCheckpointSchema = z.object({
  type: z.literal('file_checkpoint'),
  ts: z.string(),
  turn: turnSchema,
  callId: z.string(),
  tool: z.string(),
  /** Project-relative, '/'-separated. */
  path: z.string().min(1),
  before: fileStateSchema,
  after: fileStateSchema,
});

/** A rewind of this session to before `toTurn`: what it restored, and the fork it branched to. */
export const rewindSchema = z.object({
  type: z.literal('rewind'),
  ts: z.string(),
  toTurn: turnSchema,
  /**
   * What the restore put in place, file by file (`absent`: deleted); null when only the
   * conversation was rewound. A later rewind takes these as what Glassbox last saw of them.
   */
  files: z.array(z.object({ path: z.string().min(1), state: fileStateSchema })).nullable(),
  /** The session the conversation continues in; null when only the files were restored. */
  forkId: z.string().nullable(),
});

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
  file_checkpoint: fileCheckpointSchema,
  rewind: rewindSchema,
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
  fileCheckpointSchema,
  rewindSchema,
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
export type FileState = z.infer<typeof fileStateSchema>;
export type FileCheckpointRecord = z.infer<typeof fileCheckpointSchema>;
export type RewindRecord = z.infer<typeof rewindSchema>;

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
  | CompactionRecord
  | FileCheckpointRecord
  | RewindRecord;

export type SessionRecordType = SessionRecord['type'];
