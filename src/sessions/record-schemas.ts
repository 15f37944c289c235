// The session file format, version 1, written once: a zod schema per record type. The record types
// are inferred from these schemas, the hand-written fast checks (record-fast-checks.ts) are proven
// to accept exactly what they accept (test/sessions/record-checks-property.test.ts), and the types
// the rest of Glassbox keeps in memory (response items, usage, audit events, compactions) are
// checked below, at compile time, to be the ones stored. docs/session-format.md describes it.

import { z } from 'zod';
import { WIRE_APIS, type Usage, type WireApi } from '../model/index.js';
import type { ResponseItem, RunErrorInfo, RunEvent, StagedUsage } from '../agent/index.js';
import type { CompactionEntry } from '../compaction/index.js';

// zod's int() means a safe integer, and its numbers are finite: the fast checks follow that.
const wireApiSchema = z.enum(WIRE_APIS as [WireApi, ...WireApi[]]);
const turnSchema = z.number().int().min(1);
const countSchema = z.number().int().min(0);
const amountSchema = z.number().min(0);
/** Provider data kept verbatim (`ProviderFields`): any JSON object, never an array. */
const providerFieldsSchema = z.record(z.string(), z.unknown());

export const usageSchema = z.object({
  inputTokens: amountSchema,
  cachedInputTokens: amountSchema.nullable(),
  cacheWriteInputTokens: amountSchema.optional(),
  outputTokens: amountSchema,
  reasoningTokens: amountSchema,
  totalTokens: amountSchema,
  raw: z.unknown(),
});
const stageSchema = z.enum(['turn', 'compaction']);
const stagedUsageSchema = z.object({
  total: usageSchema,
  byStage: z.partialRecord(stageSchema, usageSchema),
  calls: countSchema,
});
const errorInfoSchema = z.object({ code: z.string(), message: z.string() });

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
});

export const responseItemSchema = z.union([
  z.object({ type: z.literal('message'), role: z.enum(['system', 'user']), content: z.string() }),
  z.object({
    type: z.literal('message'),
    role: z.literal('assistant'),
    content: z.string(),
    runtimeRole: z.enum(['working_message', 'final_response']),
    /** Provider fields that go back with the message (the Responses `phase`). */
    providerFields: z.object({ format: wireApiSchema, fields: providerFieldsSchema }).optional(),
  }),
  z.object({ type: z.literal('reasoning'), format: wireApiSchema, text: z.string(), state: providerFieldsSchema.nullable() }),
  z.object({
    type: z.literal('function_call'),
    callId: z.string(),
    name: z.string(),
    arguments: z.string(),
    /** Only on a call whose provider id was replaced (empty, or already taken). */
    providerCallId: z.string().optional(),
    providerFields: z.object({ format: wireApiSchema, fields: providerFieldsSchema }).optional(),
  }),
  z.object({ type: z.literal('function_call_output'), callId: z.string(), name: z.string(), output: z.string(), isError: z.boolean() }),
  z.object({ type: z.literal('compaction_summary'), compactionId: z.string(), summary: z.string() }),
]);

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
  stage: stageSchema,
  usage: usageSchema.nullable(),
  durationMs: amountSchema,
  finishReason: z.enum(['stop', 'tool_calls']).nullable(),
  error: errorInfoSchema.nullable(),
});

/** The run events worth keeping for audit. `tool_finished` drops `output`: the response_item has it. */
export const auditEventSchema = z.union([
  z.object({
    type: z.literal('tool_permission_decided'),
    callId: z.string(),
    name: z.string(),
    decision: z.enum(['allow', 'ask', 'deny']),
    reason: z.string(),
    rule: z.string(),
  }),
  z.object({
    type: z.literal('approval_requested'),
    callId: z.string(),
    name: z.string(),
    summary: z.string(),
    reason: z.string(),
    arguments: z.string(),
  }),
  z.object({
    type: z.literal('approval_resolved'),
    callId: z.string(),
    name: z.string(),
    decision: z.enum(['approve', 'approve_session', 'deny']),
    by: z.string(),
    message: z.string().nullable(),
  }),
  z.object({ type: z.literal('tool_started'), callId: z.string(), name: z.string() }),
  z.object({ type: z.literal('tool_finished'), callId: z.string(), name: z.string(), isError: z.boolean(), durationMs: amountSchema }),
]);

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
export const turnFailedSchema = z.object({ type: z.literal('turn_failed'), ...turnEndFields, error: errorInfoSchema, ...partialTextField });
export const turnCancelledSchema = z.object({
  type: z.literal('turn_cancelled'),
  ...turnEndFields,
  reason: z.string(),
  ...partialTextField,
});

const compactionFields = {
  type: z.literal('compaction'),
  ts: z.string(),
  turn: turnSchema,
  compactionId: z.string().min(1),
  trigger: z.enum(['auto', 'manual', 'overflow']),
  phase: z.enum(['pre_turn', 'mid_turn', 'manual']),
  tokensBefore: amountSchema,
  tokensAfter: amountSchema,
  itemsRemoved: countSchema,
  itemsKept: countSchema,
  reason: z.string(),
  estimated: z.boolean(),
};
/**
 * A context compaction: what was done and every input of its pure transform (`summary` and
 * `userBudgetTokens`, or `prunedCallIds`), so replay re-applies it and reproduces the history the
 * live run held. The response items it replaced stay in the file above it, for audit.
 */
export const compactionSchema = z.discriminatedUnion('kind', [
  z.object({ ...compactionFields, kind: z.literal('summary'), summary: z.string(), userBudgetTokens: countSchema }),
  z.object({ ...compactionFields, kind: z.literal('prune'), prunedCallIds: z.array(z.string()) }),
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

// ---------------------------------------------------------------------------------------------
// Compile-time agreement with the in-memory types. `Same` is true only when both types have the
// same keys (in every union member) and each is assignable to the other, so a field added to
// `ResponseItem`, `Usage` or an audited event and not here (or the reverse) fails `tsc`.

type KeysOf<T> = T extends unknown ? keyof T : never;
type Mutual<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Same<A, B> = Mutual<A, B> extends true ? Mutual<KeysOf<A>, KeysOf<B>> : false;
type Assert<T extends true> = T;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
type FunctionCall<T> = Extract<T, { type: 'function_call' }>;
type ProviderFieldsOf<T> = NonNullable<FunctionCall<T> extends { providerFields?: infer P } ? P : never>;
type ToolFinishedEvent = Extract<RunEvent, { type: 'tool_finished' }>;
type InMemoryAuditEvent =
  | Extract<RunEvent, { type: 'tool_permission_decided' | 'approval_requested' | 'approval_resolved' | 'tool_started' }>
  | Omit<ToolFinishedEvent, 'output'>;

/** Never used: it exists so that `tsc` evaluates every assertion. */
export type SchemasMatchInMemoryTypes = [
  Assert<Same<z.infer<typeof responseItemSchema>, ResponseItem>>,
  Assert<Same<ProviderFieldsOf<z.infer<typeof responseItemSchema>>, ProviderFieldsOf<ResponseItem>>>,
  Assert<Same<z.infer<typeof usageSchema>, Usage>>,
  Assert<Same<z.infer<typeof stagedUsageSchema>, StagedUsage>>,
  Assert<Same<z.infer<typeof errorInfoSchema>, RunErrorInfo>>,
  Assert<Same<z.infer<typeof auditEventSchema>, InMemoryAuditEvent>>,
  Assert<Same<DistributiveOmit<z.infer<typeof compactionSchema>, 'type' | 'ts' | 'turn'>, CompactionEntry>>,
];
