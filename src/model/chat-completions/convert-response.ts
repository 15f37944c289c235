// Chat Completions reply → IR: usage normalization, the checks that turn a bad ending into an
// error, and the non-streaming response.

import type { ChatCompletion } from 'openai/resources/chat/completions';
import type { ModelResponse, ModelToolCall, Usage } from '../ir.js';
import { describeContentFilter } from '../content-filter.js';
import { ModelError } from '../model-error.js';
import { normalizeUsage } from '../normalize-usage.js';
import { successfulResponse } from '../successful-response.js';
import { argumentsText, ChatReasoningCollector, extraCallFields, readContentChunks } from './chat-reasoning.js';
import { splitInlineThink, withInlineThink } from './inline-think.js';

/** Normalize a Chat `usage` object. `prompt_tokens` already includes cached tokens. */
export function chatUsage(raw: unknown): Usage | null {
  return normalizeUsage(raw, {
    input: 'prompt_tokens',
    output: 'completion_tokens',
    inputDetails: 'prompt_tokens_details',
    outputDetails: 'completion_tokens_details',
  });
}

/**
 * Throw for every ending that is not a real answer. `finishReason` is the provider's string;
 * anything unknown but not alarming counts as a normal stop.
 */
export function checkChatEnding(finishReason: string | null, refusal: string, filterResults: unknown = null): void {
  if (refusal !== '') throw new ModelError('MODEL_REFUSED', `The model refused: ${refusal}`);
  if (finishReason === 'length') {
    throw new ModelError(
      'OUTPUT_TRUNCATED',
      'The model hit its output token limit before finishing (finish_reason "length"); raise the output limit or ask for less.',
    );
  }
  if (finishReason === 'content_filter') {
    // Azure names what it found on the choice (content_filter_results); say it.
    const found = describeContentFilter(filterResults);
    throw new ModelError(
      'CONTENT_FILTERED',
      `The provider's content filter stopped the response (finish_reason "content_filter")${found === '' ? '.' : `: ${found}.`}`,
    );
  }
  if (finishReason === 'error') {
    throw new ModelError('RESPONSE_FAILED', 'The provider ended the response with finish_reason "error".');
  }
}

export function chatCompletionToResponse(completion: ChatCompletion): ModelResponse {
  const choice = completion.choices?.[0];
  if (!choice) {
    throw new ModelError('RESPONSE_FAILED', 'The provider returned a completion without any choices.');
  }
  const message = choice.message;
  checkChatEnding(
    choice.finish_reason ?? null,
    message?.refusal ?? '',
    (choice as { content_filter_results?: unknown }).content_filter_results,
  );
  const toolCalls: ModelToolCall[] = [];
  for (const call of message?.tool_calls ?? []) {
    if (call.type !== 'function') {
      throw new ModelError('RESPONSE_FAILED', `The provider returned a tool call of unsupported type ${JSON.stringify(call.type)}.`);
    }
    const converted: ModelToolCall = { id: call.id, name: call.function.name, arguments: argumentsText(call.function.arguments) };
    const extras = extraCallFields(call);
    if (extras !== null) converted.providerFields = { format: 'chat', fields: extras };
    toolCalls.push(converted);
  }
  const reasoning = new ChatReasoningCollector();
  reasoning.add(message);
  // Mistral's reasoning models answer with content chunks: thinking beside text.
  const chunks = readContentChunks(message?.content);
  if (chunks !== null) reasoning.addThinking(chunks.thinking);
  const split = splitInlineThink(chunks !== null ? chunks.text : (message?.content ?? ''));
  return successfulResponse({
    text: split.text,
    toolCalls,
    reasoning: withInlineThink(reasoning.result(), split.reasoning),
    usage: chatUsage(completion.usage),
    responseId: completion.id ?? null,
    model: completion.model ?? null,
  });
}
