import type { FinishReason, ModelToolCall } from './ir.js';

/**
 * The IR finish reason of a successful message. Derived from the calls rather than the provider's
 * word, because some compatible servers say "stop" even when the message calls tools.
 */
export function finishReasonFor(toolCalls: readonly ModelToolCall[]): FinishReason {
  return toolCalls.length > 0 ? 'tool_calls' : 'stop';
}
