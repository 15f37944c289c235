// The HTTP API's bodies (docs/api.md), written once for both ends: the server validates requests
// with these schemas (adding only the checks that need its own knowledge: a compaction threshold's
// syntax) and types its answers with the derived types; the web sends and reads the same types.
// Answers built from other layers' data (model-call traces, change previews) are typed where they
// are built, in server/.

import { z } from 'zod';
import { historyCompactedSchema } from './compaction-entry.js';
import { APPROVAL_DECISIONS, APPROVAL_POLICIES, RUN_STATUSES, SANDBOX_MODES, SESSION_STATUSES } from './enumerations.js';
import { wireApiSchema } from './response-item.js';
import { sessionMetaSchema, sessionRecordSchema } from './session-records.js';
import { sessionSummarySchema } from './session-summary.js';

export const MAX_PROMPT_CHARS = 256 * 1024;
export const MAX_APPROVAL_MESSAGE_CHARS = 16 * 1024;
export const MAX_INSTRUCTIONS_CHARS = 16 * 1024;

const sandboxModeSchema = z.enum(SANDBOX_MODES);
const approvalPolicySchema = z.enum(APPROVAL_POLICIES);

// ----- requests ---------------------------------------------------------------------------------

/**
 * Where a run works: an absolute directory (inside one of the server's project roots), or a
 * repository from the server's allowlist at a ref (the worker checks it out in a worktree of its
 * own). Absent: the server's own project root.
 */
export const runProjectRequestSchema = z.union([
  z.string().max(4096, 'must be at most 4096 characters').startsWith('/', 'must be an absolute directory path'),
  z.strictObject({
    repository: z.string().min(1, 'must not be empty').max(2048, 'must be at most 2048 characters'),
    ref: z
      .string()
      .min(1, 'must not be empty')
      .max(256, 'must be at most 256 characters')
      .refine((value) => !value.startsWith('-'), 'must not start with -')
      .refine((value) => !/[\x00-\x20\x7f]/.test(value), 'must not hold spaces or control characters'),
  }),
]);
export type RunProjectRequest = z.infer<typeof runProjectRequestSchema>;

/** `POST /api/runs`. The server adds the check of `compactAt`'s syntax (compaction/ owns it). */
export const startRunRequestSchema = z.strictObject({
  prompt: z
    .string()
    .max(MAX_PROMPT_CHARS, `must be at most ${MAX_PROMPT_CHARS} characters`)
    .refine((value) => value.trim() !== '', 'must not be empty'),
  /** Continue this session (a full session id); absent or null starts a new one. */
  sessionId: z.string().nullable().optional(),
  model: z
    .string()
    .max(200, 'must be at most 200 characters')
    .regex(/^[\x21-\x7e]+$/, 'must be a model name without spaces or control characters')
    .optional(),
  wireApi: wireApiSchema.optional(),
  sandbox: sandboxModeSchema.optional(),
  approvalPolicy: approvalPolicySchema.optional(),
  /** A token count, or a threshold as `--compact-at` takes it (`80%`, `120k`…); the server reads it as text. */
  compactAt: z
    .union([z.number().int().positive().max(Number.MAX_SAFE_INTEGER), z.string().max(32)])
    .transform((value) => String(value))
    .optional(),
  project: runProjectRequestSchema.optional(),
});
/** What a client sends (before the server's transforms). */
export type StartRunRequest = z.input<typeof startRunRequestSchema>;

/** `POST /api/approvals/:runId/:callId`. */
export const resolveApprovalRequestSchema = z.strictObject({
  decision: z.enum(APPROVAL_DECISIONS),
  message: z.string().max(MAX_APPROVAL_MESSAGE_CHARS, `must be at most ${MAX_APPROVAL_MESSAGE_CHARS} characters`).nullable().optional(),
  /**
   * "Always allow": the exact rule the person was shown (the preview's `alwaysRule`), to add to
   * the user's config before approving. The server saves only the rule it works out itself for
   * the call, so what was shown is what is saved; the call is approved for the session.
   */
  saveRule: z.string().max(4096).optional(),
});
export type ResolveApprovalRequest = z.input<typeof resolveApprovalRequestSchema>;

/** `POST /api/sessions/:id/fork`. */
export const forkRequestSchema = z.strictObject({
  atTurn: z.number().int('must be a whole number').min(0, 'must be 0 or more').max(1_000_000_000).optional(),
});
export type ForkRequest = z.input<typeof forkRequestSchema>;

/** `POST /api/sessions/:id/compact`. */
export const compactRequestSchema = z.strictObject({
  instructions: z.string().max(MAX_INSTRUCTIONS_CHARS, `must be at most ${MAX_INSTRUCTIONS_CHARS} characters`).optional(),
});
export type CompactRequest = z.input<typeof compactRequestSchema>;

/** `POST /api/runs/:runId/cancel` takes an empty object (or no body). */
export const cancelRunRequestSchema = z.strictObject({});

// ----- answers ----------------------------------------------------------------------------------

/** `GET /api/health`. */
export const healthSchema = z.object({
  ok: z.boolean(),
  version: z.string(),
  model: z.string(),
  wireApi: wireApiSchema,
  /** The model is the built-in offline demo. */
  demo: z.boolean(),
  root: z.string(),
});
export type Health = z.infer<typeof healthSchema>;

const runPolicySchema = z.object({ sandbox: sandboxModeSchema, approvalPolicy: approvalPolicySchema });

export const modelInfoSchema = z.object({
  id: z.string(),
  contextWindow: z.number().nullable(),
  maxOutputTokens: z.number().nullable(),
});
export type ModelInfo = z.infer<typeof modelInfoSchema>;

/** `GET /api/models`: the models, what a run gets by default, and the most a run may ask for. */
export const modelsInfoSchema = z.object({
  models: z.array(modelInfoSchema),
  defaults: runPolicySchema.extend({ model: z.string(), wireApi: wireApiSchema }),
  caps: runPolicySchema,
});
export type ModelsInfo = z.infer<typeof modelsInfoSchema>;

/** One run of `GET /api/runs`. */
export const runInfoSchema = z.object({
  runId: z.string(),
  /** '' while the run has not named its session yet. */
  sessionId: z.string(),
  status: z.enum(RUN_STATUSES),
  startedAt: z.string(),
  prompt: z.string(),
  /** Team server only (docs/team-server.md): the queue's state (`queued` shows as status `running`). */
  state: z.enum(['queued', 'running', 'succeeded', 'failed', 'cancelled']).optional(),
  /** Team server only: claims so far; above 1 the run was taken over from a worker that died. */
  attempts: z.number().int().optional(),
  /** Team server only: the worker that holds (or last held) the run. */
  worker: z.object({ id: z.string(), host: z.string(), pid: z.number().int() }).nullable().optional(),
});
export type RunInfo = z.infer<typeof runInfoSchema>;
/** `GET /api/runs`: newest first, a page at a time (`?limit=&cursor=`). */
export const runListSchema = z.object({
  runs: z.array(runInfoSchema),
  /** The next (older) page's `cursor`; null once the oldest run is on this page. */
  nextCursor: z.string().nullable(),
});
export type RunList = z.infer<typeof runListSchema>;

/** One approval of `GET /api/approvals`. */
export const pendingApprovalSchema = z.object({
  runId: z.string(),
  /** null while the run has not named its session yet. */
  sessionId: z.string().nullable(),
  callId: z.string(),
  toolName: z.string(),
  summary: z.string(),
  reason: z.string(),
  arguments: z.string(),
  requestedAt: z.string(),
  expiresAt: z.string().nullable(),
});
export type PendingApproval = z.infer<typeof pendingApprovalSchema>;
export const approvalListSchema = z.object({ approvals: z.array(pendingApprovalSchema) });
export type ApprovalList = z.infer<typeof approvalListSchema>;

/** Per-session figures of the session list. */
export const sessionStatsSchema = z.object({
  status: z.enum(SESSION_STATUSES),
  calls: z.number(),
  inputTokens: z.number(),
  cachedInputTokens: z.number(),
  outputTokens: z.number(),
  /** Sum over priced calls; null when no call could be priced. */
  costUsd: z.number().nullable(),
  /** Calls with usage but no known price (their cost is not in `costUsd`). */
  unpricedCalls: z.number(),
});
export type SessionStats = z.infer<typeof sessionStatsSchema>;

/** A line of a session file that could not be used. */
export const sessionProblemSchema = z.object({
  /** 1-based line number in the session file. */
  line: z.number(),
  message: z.string(),
});
export type SessionProblem = z.infer<typeof sessionProblemSchema>;

/** A session the listing could not read, or a problem with the index itself (`sessionId` null). */
export const listProblemSchema = z.object({ sessionId: z.string().nullable(), message: z.string() });
export type ListProblem = z.infer<typeof listProblemSchema>;

/** `GET /api/sessions`. */
export const sessionListSchema = z.object({
  sessions: z.array(sessionSummarySchema),
  /** Status, tokens and price per listed session (missing for one that could not be read). */
  stats: z.record(z.string(), sessionStatsSchema),
  /** null once the end of the list was reached. */
  nextCursor: z.string().nullable(),
  problems: z.array(listProblemSchema),
});
export type SessionList = z.infer<typeof sessionListSchema>;

export const recordLineSchema = z.object({ line: z.number(), record: sessionRecordSchema });
export type RecordLine = z.infer<typeof recordLineSchema>;

/** `GET /api/sessions/:id`: a page of records. */
export const sessionPageSchema = z.object({
  /** null when the server's index does not (yet) list the session. */
  summary: sessionSummarySchema.nullable(),
  meta: sessionMetaSchema.nullable(),
  records: z.array(recordLineSchema),
  problems: z.array(sessionProblemSchema),
  nextCursor: z.string().nullable(),
});
export type SessionPage = z.infer<typeof sessionPageSchema>;

/** A compaction as `history_compacted` announced it, without the event's `type`. */
const compactionPayloadSchema = historyCompactedSchema.omit({ type: true });

/** `POST /api/sessions/:id/compact`. */
export const compactAnswerSchema = z.object({ compaction: compactionPayloadSchema });
export type CompactAnswer = z.infer<typeof compactAnswerSchema>;

export const contextPointSchema = z.object({
  turn: z.number(),
  round: z.number(),
  /** The call's index among the session's model calls (the Debug tab's `calls/:index`). */
  callIndex: z.number(),
  tokens: z.number(),
  /** true when the provider reported no usage and the history was counted instead. */
  estimated: z.boolean(),
});
export type ContextPoint = z.infer<typeof contextPointSchema>;

/** A `history_compacted` payload, with the turn it was filed under and when. */
export const compactionPointSchema = compactionPayloadSchema.extend({ turn: z.number(), ts: z.string() });
export type CompactionPoint = z.infer<typeof compactionPointSchema>;

/** `GET /api/sessions/:id/context`: the context size per model call, and the compactions. */
/** What skills cost in the history the next request would carry (views/'s `skillContextCost`). */
export const skillContextCostSchema = z.object({
  /** The `<available_skills>` block of the system message; 0 when it lists none. */
  listTokens: z.number(),
  /** How many skills the list names. */
  listed: z.number(),
  /** Each load (or supporting file read) still in the history, in order. */
  loaded: z.array(z.object({ name: z.string(), file: z.string().nullable(), tokens: z.number() })),
});
export type SkillContextCost = z.infer<typeof skillContextCostSchema>;

export const contextViewSchema = z.object({
  window: z.number().nullable(),
  threshold: z.number().nullable(),
  points: z.array(contextPointSchema),
  compactions: z.array(compactionPointSchema),
  /** Null when the history could not be rebuilt. */
  skills: skillContextCostSchema.nullable(),
});
export type ContextView = z.infer<typeof contextViewSchema>;

// The small acknowledgements.
export const cancelAnswerSchema = z.object({ cancelled: z.boolean() });
export type CancelAnswer = z.infer<typeof cancelAnswerSchema>;
export const resolveAnswerSchema = z.object({
  resolved: z.boolean(),
  /** With `saveRule`: the rule saved and the file it was written to. */
  saved: z.object({ rule: z.string(), file: z.string() }).optional(),
});
export type ResolveAnswer = z.infer<typeof resolveAnswerSchema>;
export const deleteAnswerSchema = z.object({ deleted: z.boolean() });
export type DeleteAnswer = z.infer<typeof deleteAnswerSchema>;
export const forkAnswerSchema = z.object({ sessionId: z.string() });
export type ForkAnswer = z.infer<typeof forkAnswerSchema>;

/** Any failed request: a message, and per-field problems for a 400. */
export const errorAnswerSchema = z.object({ error: z.string(), fieldErrors: z.record(z.string(), z.array(z.string())).optional() });
export type ErrorAnswer = z.infer<typeof errorAnswerSchema>;
