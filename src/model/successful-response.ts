// How both dialects, streaming or not, assemble the answer once the provider ended normally, so
// the finish reason and the closing events cannot drift apart between them.

import { type FinishReason, type ModelResponse, type ModelStreamEvent, type ModelToolCall, orderedParts } from './ir.js';

/**
 * The IR finish reason of a successful message. Derived from the calls rather than the provider's
 * word, because some compatible servers say "stop" even when the message calls tools.
 */
export function finishReasonFor(toolCalls: readonly ModelToolCall[]): FinishReason {
  return toolCalls.length > 0 ? 'tool_calls' : 'stop';
}

/**
 * A finished message as a ModelResponse; only the finish reason is derived, and the order of its
 * parts kept only when it is not the plain one (reasoning, text, calls).
 */
export function successfulResponse(parts: Omit<ModelResponse, 'finishReason'>): ModelResponse {
  const ordered = parts.parts === undefined ? undefined : orderedParts(parts.parts);
  return {
    text: parts.text,
    toolCalls: parts.toolCalls,
    reasoning: parts.reasoning,
    ...(ordered === undefined ? {} : { parts: ordered }),
    usage: parts.usage,
    finishReason: finishReasonFor(parts.toolCalls),
    responseId: parts.responseId,
    model: parts.model,
  };
}

/** The two events every stream ends with: message-done, then completed carrying the response. */
export function closingEvents(response: ModelResponse): ModelStreamEvent[] {
  // message-done gets its own array, so a consumer that edits one event's calls cannot change the other's.
  return [
    { type: 'message-done', text: response.text, toolCalls: [...response.toolCalls], reasoning: [...response.reasoning] },
    { type: 'completed', response },
  ];
}
