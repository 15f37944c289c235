import { type ModelContentPart, type ModelMessage, type ModelReasoning, type ModelToolCall, orderedParts } from '../model/index.js';
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
 * A round's items (its `reasoning`, assistant `message`s and `function_call`s, consecutive in the
 * history: outputs come after all of them) make one assistant message, because Chat Completions
 * wants tool calls on the assistant message that made them. They are committed in the order the
 * provider produced them, and that order rides on the message as `parts` when it is not the plain
 * one (reasoning, text, calls): Anthropic's interleaved thinking must go back as received.
 * Reasoning with nothing after it (a round cut off) is not sent, since it has no message to ride on.
 * Calls and outputs go out under `callId`, unique in the history; a replaced provider id
 * (`providerCallId`) is never sent back, or a provider that reuses ids would see the clash again.
 */
export function itemsToModelMessages(items: readonly ResponseItem[]): ModelMessage[] {
  // Every round converts the whole history again, so an item that becomes one message by itself
  // (a user or system message, a tool output, a summary) is converted once and its message reused:
  // what is new in a round is what it costs. A round's assistant parts are regrouped each time.
  const messages: ModelMessage[] = [];
  let round: ModelContentPart[] = [];
  const closeRound = (): void => {
    if (round.some((part) => part.type !== 'reasoning')) messages.push(assistantMessage(round));
    round = [];
  };
  for (const item of items) {
    switch (item.type) {
      case 'reasoning':
        round.push({ type: 'reasoning', reasoning: { format: item.format, text: item.text, state: item.state } });
        break;
      case 'message':
        if (item.role === 'assistant') {
          round.push({
            type: 'text',
            text: item.content,
            ...(item.providerFields === undefined ? {} : { providerFields: item.providerFields }),
          });
        } else {
          closeRound();
          messages.push(standalone(item));
        }
        break;
      case 'function_call': {
        const call: ModelToolCall = { id: item.callId, name: item.name, arguments: item.arguments };
        if (item.providerFields !== undefined) call.providerFields = item.providerFields;
        round.push({ type: 'tool-call', call });
        break;
      }
      case 'function_call_output':
      case 'compaction_summary':
        closeRound();
        messages.push(standalone(item));
        break;
    }
  }
  closeRound();
  return messages;
}

type StandaloneItem = Extract<ResponseItem, { type: 'function_call_output' | 'compaction_summary' } | { type: 'message' }>;

/**
 * Messages of standalone items, by item: committed items are not changed afterwards (a compaction
 * replaces them with new ones), and nothing changes a message built from them, so one can serve
 * every request that carries the item. Weak, so items dropped from the history take theirs along.
 */
const converted = new WeakMap<ResponseItem, ModelMessage>();
let conversions = 0;

/** How many standalone items were converted (not served from the cache) so far: for tests. */
export function standaloneConversions(): number {
  return conversions;
}

function standalone(item: StandaloneItem): ModelMessage {
  const cached = converted.get(item);
  if (cached !== undefined) return cached;
  conversions += 1;
  let message: ModelMessage;
  if (item.type === 'message') message = { role: item.role as 'user' | 'system', content: item.content };
  else if (item.type === 'function_call_output')
    message = { role: 'tool', toolCallId: item.callId, toolName: item.name, content: item.output, isError: item.isError };
  else message = { role: 'user', content: COMPACTION_SUMMARY_PREFIX + item.summary + COMPACTION_SUMMARY_SUFFIX };
  converted.set(item, message);
  return message;
}

function assistantMessage(parts: ModelContentPart[]): AssistantMessage {
  const reasoning: ModelReasoning[] = [];
  const toolCalls: ModelToolCall[] = [];
  let content = '';
  for (const part of parts) {
    if (part.type === 'reasoning') reasoning.push(part.reasoning);
    else if (part.type === 'text') content += part.text;
    else toolCalls.push(part.call);
  }
  const message: AssistantMessage = { role: 'assistant', content, toolCalls };
  if (reasoning.length > 0) message.reasoning = reasoning;
  const ordered = orderedParts(parts);
  if (ordered !== undefined) message.parts = ordered;
  return message;
}
