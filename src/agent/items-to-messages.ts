import type { ModelMessage, ModelToolCall } from '../model/index.js';
import type { ResponseItem } from './response-items.js';

/** The prefix that tells the model a summary stands in for earlier turns. */
export const COMPACTION_SUMMARY_PREFIX =
  'The conversation so far was compacted. This summary replaces the earlier turns; the original user messages that follow it are verbatim.\n\n<conversation_summary>\n';
export const COMPACTION_SUMMARY_SUFFIX = '\n</conversation_summary>';

/**
 * Map history items to IR messages. Pure: the same items always give the same messages, so a
 * resumed session sends byte-identical requests and prompt caches keep hitting.
 *
 * Consecutive `function_call` items fold into the preceding assistant message (or a new empty
 * one), because Chat Completions wants tool calls on the assistant message that made them.
 * Calls and outputs go out under `callId`, unique in the history; a replaced provider id
 * (`providerCallId`) is never sent back, or a provider that reuses ids would see the clash again.
 */
export function itemsToModelMessages(items: readonly ResponseItem[]): ModelMessage[] {
  const messages: ModelMessage[] = [];
  for (const item of items) {
    switch (item.type) {
      case 'message':
        if (item.role === 'assistant') messages.push({ role: 'assistant', content: item.content, toolCalls: [] });
        else messages.push({ role: item.role, content: item.content });
        break;
      case 'function_call': {
        const call: ModelToolCall = { id: item.callId, name: item.name, arguments: item.arguments };
        const last = messages[messages.length - 1];
        if (last && last.role === 'assistant') last.toolCalls.push(call);
        else messages.push({ role: 'assistant', content: '', toolCalls: [call] });
        break;
      }
      case 'function_call_output':
        messages.push({
          role: 'tool',
          toolCallId: item.callId,
          toolName: item.name,
          content: item.output,
          isError: item.isError,
        });
        break;
      case 'compaction_summary':
        messages.push({ role: 'user', content: COMPACTION_SUMMARY_PREFIX + item.summary + COMPACTION_SUMMARY_SUFFIX });
        break;
    }
  }
  return messages;
}
