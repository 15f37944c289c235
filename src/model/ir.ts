// The provider-neutral model IR. Only these types cross the boundary between `model/` and the rest
// of Glassbox; each wire dialect converts to and from them inside its own folder.

import type { FinishReason, ProviderFields, ProviderFieldsOf, ReasoningEffort, Usage, WireApi } from '../protocol/index.js';

// The names and stored shapes the IR shares with sessions, the server and the web are written once
// in protocol/ (provider fields, usage, wire APIs…); re-exported here so model/'s users keep them.
export {
  FINISH_REASONS,
  REASONING_EFFORTS,
  WIRE_APIS,
  type FinishReason,
  type ProviderFields,
  type ProviderFieldsOf,
  type ReasoningEffort,
  type Usage,
  type WireApi,
} from '../protocol/index.js';

/**
 * Reasoning a model did in one answer: what it shows (a summary, or the raw text some providers
 * stream) and the opaque state it needs back on later rounds to continue from it. `format` names
 * the dialect that produced it; state is only ever sent back to that dialect, and a dialect drops
 * reasoning of another format (its state would mean nothing there).
 *
 * - responses: `state` is the `reasoning` output item as received (`id`, `summary`,
 *   `encrypted_content`, `content`…), sent back as an input item in its place.
 * - chat: `state` is `{ field }` (`reasoning_content` for DeepSeek, xAI, Qwen, llama.cpp;
 *   `reasoning` for OpenRouter, Ollama, newer vLLM), plus `reasoning_details` when the provider sent
 *   them; sent back on the assistant messages of a turn that called tools. `null` state: shown only,
 *   never sent back (Mistral's thinking chunks). `{ inlineThink }`: a `<think>` block that led the
 *   content (MiniMax), sent back in front of the content on every request.
 * - anthropic: `state` is the `thinking` (with `signature`) or `redacted_thinking` block as
 *   received, sent back unchanged in its place among the text and tool_use blocks.
 */
export interface ModelReasoning {
  format: WireApi;
  /** Readable reasoning or its summary; '' when the provider keeps it hidden. */
  text: string;
  state: ProviderFields | null;
}

/** A JSON Schema object, as produced by `z.toJSONSchema`. Kept loose on purpose: it is data. */
export type JsonSchema = { [key: string]: unknown };

export interface ModelToolCall {
  /** Provider call id (Chat: `tool_calls[].id`, Responses: `call_id`, Anthropic: `tool_use.id`). */
  id: string;
  name: string;
  /**
   * The raw JSON argument string exactly as the model produced it (a server that sent a JSON object
   * instead of a string gives that object's JSON text).
   */
  arguments: string;
  /**
   * Fields the provider put on the call beyond id, name and arguments (Gemini's
   * `extra_content.google.thought_signature`, which it requires back), sent back unchanged by the
   * dialect that received them (`format`) and dropped by any other.
   */
  providerFields?: { format: WireApi; fields: ProviderFields };
}

/**
 * One piece of an assistant answer, in the order the provider produced it. Anthropic's interleaved
 * thinking (`[thinking, tool_use, thinking, tool_use]`) must go back in exactly that order, and a
 * Responses message item carries its `phase` (kept in the text part's `providerFields`).
 */
export type ModelContentPart =
  | { type: 'reasoning'; reasoning: ModelReasoning }
  | { type: 'text'; text: string; providerFields?: ProviderFieldsOf }
  | { type: 'tool-call'; call: ModelToolCall };

export type ModelMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | {
      role: 'assistant';
      /** All text parts joined. */
      content: string;
      toolCalls: ModelToolCall[];
      reasoning?: ModelReasoning[];
      /**
       * The same reasoning, text and calls in the order produced, present only when that order is
       * not the plain one (reasoning, then one text, then calls) or a text part has provider fields.
       */
      parts?: ModelContentPart[];
    }
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
  /** Mapped by each dialect where the provider supports it; omitted: the provider's default. */
  reasoningEffort?: ReasoningEffort;
  /**
   * `none`: the tools stay offered (so the prompt prefix is the one the conversation cached) but
   * the model is asked not to call them. Omitted: `auto`. Each dialect maps it where doing so does
   * not cost the cache (see the Anthropic dialect).
   */
  toolChoice?: ToolChoice;
  /**
   * A stable per-session key; OpenAI routes requests with the same key to the machines that hold
   * their prefix cache (`prompt_cache_key`). Dialects without such a field ignore it.
   */
  promptCacheKey?: string;
  /**
   * What an explicit prompt cache (Anthropic's `cache_control`) should write for this request.
   * `extend` (default): the whole request, for the next round to read. `prefix`: the request ends
   * in a one-off suffix (a summary instruction) no later request repeats, so only the prefix the
   * previous rounds already wrote is marked, to be read, and nothing new is written. `none`: no
   * later request shares anything with this one (a summary of a re-serialised transcript).
   */
  cacheWrite?: CacheWrite;
  /**
   * The final answer must be JSON valid against this schema (`exec --output-schema`). Sent where the
   * API constrains output to a schema (Responses `text.format`, Chat `response_format`), in strict
   * mode when the schema can be expressed in it (`wireResponseFormat`); Anthropic has no such field
   * and relies on the prompt's instruction. The answer is validated locally either way.
   */
  responseFormat?: ResponseFormat;
}

export interface ResponseFormat {
  /** The schema's name on the wire (`^[a-zA-Z0-9_-]{1,64}$`). */
  name: string;
  schema: JsonSchema;
}

export type ToolChoice = 'auto' | 'none';
export type CacheWrite = 'extend' | 'prefix' | 'none';

export interface ModelResponse {
  text: string;
  toolCalls: ModelToolCall[];
  /** In the order the provider produced them; empty when it reported none. */
  reasoning: ModelReasoning[];
  /** Everything above in the order produced; present only when it is not the plain order (see ModelMessage). */
  parts?: ModelContentPart[];
  usage: Usage | null;
  finishReason: FinishReason;
  /** Provider response id and model name as reported, when present. */
  responseId: string | null;
  model: string | null;
}

/**
 * The closed union of stream events, named `<noun>-<stage>`.
 * Order: any number of reasoning-delta, text-delta and tool-call-* events, then exactly one message-done,
 * then exactly one completed (which carries usage). Tool call events for one call are
 * start → delta* → end, identified by `index` (position in the assistant message).
 */
export type ModelStreamEvent =
  | { type: 'text-delta'; delta: string }
  /** Readable reasoning as it streams (shown live, collapsed); the state arrives with message-done. */
  | { type: 'reasoning-delta'; delta: string }
  | { type: 'tool-call-start'; index: number; id: string; name: string }
  | { type: 'tool-call-delta'; index: number; delta: string }
  | { type: 'tool-call-end'; index: number; call: ModelToolCall }
  | { type: 'message-done'; text: string; toolCalls: ModelToolCall[]; reasoning: ModelReasoning[] }
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
  /** Called when a gateway changes how it answers the call (a fallback model), so the run can show and record it. */
  onWarning?: (warning: { code: string; message: string }) => void;
}

export function emptyUsage(): Usage {
  return { inputTokens: 0, cachedInputTokens: null, outputTokens: 0, reasoningTokens: 0, totalTokens: 0, raw: null };
}

/** Sum usages; cached tokens stay null only while every part is null. */
export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    cachedInputTokens:
      a.cachedInputTokens === null && b.cachedInputTokens === null ? null : (a.cachedInputTokens ?? 0) + (b.cachedInputTokens ?? 0),
    outputTokens: a.outputTokens + b.outputTokens,
    reasoningTokens: a.reasoningTokens + b.reasoningTokens,
    totalTokens: a.totalTokens + b.totalTokens,
    ...(a.cacheWriteInputTokens === undefined && b.cacheWriteInputTokens === undefined
      ? {}
      : { cacheWriteInputTokens: (a.cacheWriteInputTokens ?? 0) + (b.cacheWriteInputTokens ?? 0) }),
    raw: null,
  };
}

/** An answer's pieces in order: its `parts`, or the plain order (reasoning, text, calls) without them. */
export function contentParts(answer: {
  text: string;
  toolCalls: readonly ModelToolCall[];
  reasoning?: readonly ModelReasoning[] | undefined;
  parts?: readonly ModelContentPart[] | undefined;
}): ModelContentPart[] {
  if (answer.parts !== undefined) return [...answer.parts];
  const parts: ModelContentPart[] = (answer.reasoning ?? []).map((reasoning) => ({ type: 'reasoning', reasoning }));
  if (answer.text !== '') parts.push({ type: 'text', text: answer.text });
  for (const call of answer.toolCalls) parts.push({ type: 'tool-call', call });
  return parts;
}

/**
 * `parts` when they say more than the separate lists (an interleaved order, several texts, a text
 * with provider fields), else undefined: plain answers stay as they always were.
 */
export function orderedParts(parts: readonly ModelContentPart[]): ModelContentPart[] | undefined {
  const rank = { reasoning: 0, text: 1, 'tool-call': 2 } as const;
  let last = 0;
  let texts = 0;
  for (const part of parts) {
    if (rank[part.type] < last) return [...parts];
    last = rank[part.type];
    if (part.type === 'text') {
      texts += 1;
      if (texts > 1 || part.providerFields !== undefined || part.text === '') return [...parts];
    }
  }
  return undefined;
}
