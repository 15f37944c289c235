// Anthropic reply → IR: usage, the stop reasons that are errors, thinking blocks as reasoning, and
// the non-streaming response.

import type { ContentBlock, Message } from '@anthropic-ai/sdk/resources/messages';
import type { ModelContentPart, ModelReasoning, ModelResponse, ModelToolCall, ProviderFields, Usage } from '../ir.js';
import { ModelError } from '../model-error.js';
import { readNumber } from '../read-number.js';
import { successfulResponse } from '../successful-response.js';

/**
 * Normalize an Anthropic `usage` object. Anthropic's `input_tokens` counts only the input after
 * the last cache breakpoint; the total input is it plus `cache_creation_input_tokens` (written to
 * the cache) plus `cache_read_input_tokens` (read from it). `inputTokens` is that total, as on the
 * OpenAI wires; `cachedInputTokens` is the part read from the cache, `cacheWriteInputTokens` the
 * part written to it (billed at 1.25× the input price; the 5-minute / 1-hour split stays in
 * `raw.cache_creation`). `output_tokens` already includes thinking;
 * `output_tokens_details.thinking_tokens` is that part.
 */
export function anthropicUsage(raw: unknown): Usage | null {
  const uncached = readNumber(raw, 'input_tokens');
  const outputTokens = readNumber(raw, 'output_tokens');
  if (uncached === null || outputTokens === null) return null;
  const cacheRead = readNumber(raw, 'cache_read_input_tokens');
  const cacheWrite = readNumber(raw, 'cache_creation_input_tokens') ?? 0;
  const inputTokens = uncached + cacheWrite + (cacheRead ?? 0);
  return {
    inputTokens,
    cachedInputTokens: cacheRead,
    cacheWriteInputTokens: cacheWrite,
    outputTokens,
    reasoningTokens: readNumber(raw, 'output_tokens_details', 'thinking_tokens') ?? 0,
    totalTokens: inputTokens + outputTokens,
    raw,
  };
}

/**
 * Merge the usage of `message_delta` over the one from `message_start`: the delta's counts are
 * cumulative, and a field it leaves out or sends as null keeps the earlier value.
 */
export function mergeUsage(base: unknown, update: unknown): Record<string, unknown> {
  const merged: Record<string, unknown> = typeof base === 'object' && base !== null ? { ...(base as Record<string, unknown>) } : {};
  if (typeof update === 'object' && update !== null) {
    for (const [key, value] of Object.entries(update as Record<string, unknown>)) {
      if (value !== null && value !== undefined) merged[key] = value;
    }
  }
  return merged;
}

/** The refusal's explanation, from `stop_details` when the API gives one. */
function refusalDetail(stopDetails: unknown): string {
  if (typeof stopDetails !== 'object' || stopDetails === null) return '';
  const { explanation, category } = stopDetails as { explanation?: unknown; category?: unknown };
  const parts: string[] = [];
  if (typeof explanation === 'string' && explanation !== '') parts.push(explanation);
  if (typeof category === 'string' && category !== '') parts.push(`(category: ${category})`);
  return parts.join(' ');
}

/**
 * Throw for every `stop_reason` that is not a real answer. `end_turn`, `tool_use`,
 * `stop_sequence` and a missing or unknown reason end normally.
 */
export function checkStopReason(stopReason: string | null | undefined, stopDetails: unknown): void {
  switch (stopReason) {
    case 'max_tokens':
      throw new ModelError(
        'OUTPUT_TRUNCATED',
        'The model hit its output token limit before finishing (stop_reason "max_tokens"); raise the output limit or ask for less.',
      );
    case 'refusal': {
      const detail = refusalDetail(stopDetails);
      throw new ModelError('MODEL_REFUSED', `The model refused (stop_reason "refusal")${detail === '' ? '.' : `: ${detail}`}`);
    }
    case 'model_context_window_exceeded':
      throw new ModelError(
        'CONTEXT_OVERFLOW',
        'The answer ran into the end of the model\'s context window (stop_reason "model_context_window_exceeded").',
      );
    case 'pause_turn':
      // Only server tools pause a turn, and Glassbox sends none; a pause here cannot be continued.
      throw new ModelError('RESPONSE_FAILED', 'The provider paused the turn (stop_reason "pause_turn"), which Glassbox cannot continue.');
    default:
      return;
  }
}

/** A thinking or redacted_thinking block as IR reasoning: the block itself is the state. */
export function reasoningFromBlock(block: ProviderFields): ModelReasoning {
  const text = block.type === 'thinking' && typeof block.thinking === 'string' ? block.thinking : '';
  return { format: 'anthropic', text, state: block };
}

/** The size a reasoning entry holds, for the response limits. */
export function reasoningSize(entry: ModelReasoning): number {
  return entry.text.length + JSON.stringify(entry.state ?? null).length;
}

export interface MessageContent {
  text: string;
  toolCalls: ModelToolCall[];
  reasoning: ModelReasoning[];
  /** All of it in block order (adjacent text blocks joined). */
  parts: ModelContentPart[];
}

/** Text, tool calls and thinking from a complete message's content, in order. Other blocks are ignored. */
export function readContent(content: readonly ContentBlock[] | undefined): MessageContent {
  let text = '';
  const toolCalls: ModelToolCall[] = [];
  const reasoning: ModelReasoning[] = [];
  const parts: ModelContentPart[] = [];
  for (const block of content ?? []) {
    if (block.type === 'text') {
      text += block.text;
      const last = parts.at(-1);
      if (last?.type === 'text') last.text += block.text;
      else if (block.text !== '') parts.push({ type: 'text', text: block.text });
    } else if (block.type === 'tool_use') {
      if (typeof block.id !== 'string' || block.id === '' || typeof block.name !== 'string' || block.name === '') {
        throw new ModelError('MALFORMED_STREAM', 'The provider returned a tool_use block without an id or a name.');
      }
      const call: ModelToolCall = { id: block.id, name: block.name, arguments: JSON.stringify(block.input ?? {}) };
      toolCalls.push(call);
      parts.push({ type: 'tool-call', call });
    } else if (block.type === 'thinking' || block.type === 'redacted_thinking') {
      const entry = reasoningFromBlock({ ...block });
      reasoning.push(entry);
      parts.push({ type: 'reasoning', reasoning: entry });
    }
  }
  return { text, toolCalls, reasoning, parts };
}

export function messageToResponse(message: Message): ModelResponse {
  checkStopReason(message.stop_reason, message.stop_details);
  const content = readContent(message.content);
  return successfulResponse({
    text: content.text,
    toolCalls: content.toolCalls,
    reasoning: content.reasoning,
    parts: content.parts,
    usage: anthropicUsage(message.usage),
    responseId: message.id ?? null,
    model: message.model ?? null,
  });
}
