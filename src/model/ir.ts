// The provider-neutral model IR. Only these types cross the boundary between `model/` and the rest
// of Glassbox; each wire dialect converts to and from them inside its own folder.

export type WireApi = 'chat' | 'responses';
export const WIRE_APIS: readonly WireApi[] = ['chat', 'responses'];

/** A JSON Schema object, as produced by `z.toJSONSchema`. Kept loose on purpose: it is data. */
export type JsonSchema = { [key: string]: unknown };

export interface ModelToolCall {
  /** Provider call id (Chat: `tool_calls[].id`, Responses: `call_id`). */
  id: string;
  name: string;
  /** The raw JSON argument string exactly as the model produced it. */
  arguments: string;
}

export type ModelMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls: ModelToolCall[] }
  | { role: 'tool'; toolCallId: string; toolName: string; content: string; isError: boolean };

export interface ModelToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of the arguments object, before any strict-mode adaptation. */
  parameters: JsonSchema;
  /** When true the dialect adapts the schema to OpenAI strict mode and sends `strict: true`. */
  strict: boolean;
}

export interface ModelRequest {
  model: string;
  messages: ModelMessage[];
  /** Omitted or empty: neither `tools` nor `tool_choice` is sent on the wire. */
  tools?: ModelToolDefinition[];
  maxOutputTokens?: number;
  temperature?: number;
}

/** Normalized token usage; `raw` keeps the provider's own object for audit. */
export interface Usage {
  inputTokens: number;
  /** null when the provider does not say how much of the input was served from cache. */
  cachedInputTokens: number | null;
  outputTokens: number;
  reasoningTokens: number;
  totalTokens: number;
  raw: unknown;
}

/** Why a successful response ended. Errors (length, content filter, refusal) never get here. */
export type FinishReason = 'stop' | 'tool_calls';

export interface ModelResponse {
  text: string;
  toolCalls: ModelToolCall[];
  usage: Usage | null;
  finishReason: FinishReason;
  /** Provider response id and model name as reported, when present. */
  responseId: string | null;
  model: string | null;
}

/**
 * The closed union of stream events, named `<noun>-<stage>`.
 * Order: any number of text-delta and tool-call-* events, then exactly one message-done,
 * then exactly one completed (which carries usage). Tool call events for one call are
 * start → delta* → end, identified by `index` (position in the assistant message).
 */
export type ModelStreamEvent =
  | { type: 'text-delta'; delta: string }
  | { type: 'tool-call-start'; index: number; id: string; name: string }
  | { type: 'tool-call-delta'; index: number; delta: string }
  | { type: 'tool-call-end'; index: number; call: ModelToolCall }
  | { type: 'message-done'; text: string; toolCalls: ModelToolCall[] }
  | { type: 'completed'; response: ModelResponse };

export interface RetryNotice {
  attempt: number;
  delayMs: number;
  error: { code: string; message: string; status: number | null };
}

export interface ModelCallOptions {
  signal?: AbortSignal;
  /** Called before each backoff sleep, so callers can show or record the retry. */
  onRetry?: (notice: RetryNotice) => void;
}

export function emptyUsage(): Usage {
  return { inputTokens: 0, cachedInputTokens: null, outputTokens: 0, reasoningTokens: 0, totalTokens: 0, raw: null };
}

/** Sum usages; cached tokens stay null only while every part is null. */
export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    cachedInputTokens:
      a.cachedInputTokens === null && b.cachedInputTokens === null
        ? null
        : (a.cachedInputTokens ?? 0) + (b.cachedInputTokens ?? 0),
    outputTokens: a.outputTokens + b.outputTokens,
    reasoningTokens: a.reasoningTokens + b.reasoningTokens,
    totalTokens: a.totalTokens + b.totalTokens,
    raw: null,
  };
}
