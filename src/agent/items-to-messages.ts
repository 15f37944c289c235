import type { ModelMessage, ModelReasoning, ModelToolCall } from '../model/index.js';
import type { ResponseItem } from './response-items.js';

type AssistantMessage = Extract<ModelMessage, { role: 'assistant' }>;

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
 * `reasoning` items attach to the assistant message of their round (the next one built); reasoning
 * with nothing after it (a round cut off) is not sent, since it has no message to ride on.
 * Calls and outputs go out under `callId`, unique in the history; a replaced provider id
 * (`providerCallId`) is never sent back, or a provider that reuses ids would see the clash again.
 */
export function itemsToModelMessages(items: readonly ResponseItem[]): ModelMessage[] {
  const messages: ModelMessage[] = [];
  // Reasoning items precede the message and calls of their round; they ride on that assistant message.
  let reasoning: ModelReasoning[] = [];
  const withReasoning = (message: AssistantMessage): AssistantMessage => {
    if (reasoning.length > 0) {
      message.reasoning = reasoning;
      reasoning = [];
    }
    return message;
  };
  for (const item of items) {
    switch (item.type) {
      case 'reasoning':
        reasoning.push({ format: item.format, text: item.text, state: item.state });
        break;
      case 'message':
        if (item.role === 'assistant') messages.push(withReasoning({ role: 'assistant', content: item.content, toolCalls: [] }));
        else messages.push({ role: item.role, content: item.content });
        break;
      case 'function_call': {
        const call: ModelToolCall = { id: item.callId, name: item.name, arguments: item.arguments };
        if (item.providerFields !== undefined) call.providerFields = item.providerFields;
        const last = messages[messages.length - 1];
        if (last && last.role === 'assistant' && reasoning.length === 0) last.toolCalls.push(call);
        else messages.push(withReasoning({ role: 'assistant', content: '', toolCalls: [call] }));
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
