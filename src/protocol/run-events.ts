// The closed union of run events, written once: `exec --json` prints them one per line, the
// session store records the audit-worthy ones (tool-events.ts), the server streams the same
// objects over SSE and the web and the terminal fold them. The agent core emits them
// (agent/run-events.ts re-exports the types). The types are derived from the schemas.

import { z } from 'zod';
import { historyCompactedSchema } from './compaction-entry.js';
import { FINISH_REASONS, TERMINAL_EVENT_TYPES, type TerminalEventType } from './enumerations.js';
import { hookRanSchema } from './hook-events.js';
import { wireApiSchema } from './response-item.js';
import {
  approvalRequestedSchema,
  approvalResolvedSchema,
  toolFinishedSchema,
  toolPermissionDecidedSchema,
  toolStartedSchema,
} from './tool-events.js';
import { amountSchema, countSchema, runErrorInfoSchema, stagedUsageSchema, usageSchema, usageStageSchema } from './usage.js';

const round = countSchema;

export const runEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('run_started'),
    sessionId: z.string(),
    runId: z.string(),
    model: z.string(),
    wireApi: wireApiSchema,
    resumed: z.boolean(),
  }),
  z.object({ type: z.literal('model_requested'), round, stage: usageStageSchema, messageCount: countSchema, toolCount: countSchema }),
  z.object({ type: z.literal('model_retry'), round, attempt: countSchema, delayMs: amountSchema, error: runErrorInfoSchema }),
  /**
   * The round's stream broke after it had started (STREAM_INTERRUPTED). Nothing of it was
   * committed; what it streamed (`discardedChars` of text and reasoning) is void, UIs drop it, and
   * the round is asked again after `delayMs`. `attempt` of `maxAttempts` retries.
   */
  z.object({
    type: z.literal('stream_retry'),
    round,
    attempt: countSchema,
    maxAttempts: countSchema,
    delayMs: amountSchema,
    discardedChars: countSchema,
    error: runErrorInfoSchema,
  }),
  z.object({ type: z.literal('assistant_delta'), round, delta: z.string() }),
  /** Readable reasoning (a summary, or raw reasoning text) as it streams; recorded as a `reasoning` item at commit. */
  z.object({ type: z.literal('reasoning_delta'), round, delta: z.string() }),
  z.object({
    type: z.literal('model_completed'),
    round,
    stage: usageStageSchema,
    usage: usageSchema.nullable(),
    finishReason: z.enum(FINISH_REASONS),
    durationMs: amountSchema,
  }),
  z.object({ type: z.literal('tool_requested'), round, callId: z.string(), name: z.string(), arguments: z.string() }),
  toolPermissionDecidedSchema,
  approvalRequestedSchema,
  approvalResolvedSchema,
  toolStartedSchema,
  toolFinishedSchema,
  hookRanSchema,
  historyCompactedSchema,
  z.object({ type: z.literal('warning'), code: z.string(), message: z.string() }),
  z.object({ type: z.literal('run_succeeded'), answer: z.string(), usage: stagedUsageSchema, rounds: countSchema }),
  z.object({ type: z.literal('run_failed'), error: runErrorInfoSchema, usage: stagedUsageSchema, rounds: countSchema }),
  z.object({ type: z.literal('run_cancelled'), reason: z.string(), usage: stagedUsageSchema, rounds: countSchema }),
]);

export type RunEvent = z.infer<typeof runEventSchema>;
export type RunEventType = RunEvent['type'];
export type TerminalRunEvent = Extract<RunEvent, { type: TerminalEventType }>;

const TERMINAL_TYPES: ReadonlySet<string> = new Set(TERMINAL_EVENT_TYPES);

/** Whether an event ends its run. */
export function isTerminalEvent(event: RunEvent): event is TerminalRunEvent {
  return TERMINAL_TYPES.has(event.type);
}
