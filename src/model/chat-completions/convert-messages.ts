// IR request → Chat Completions request body.

import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { ModelMessage, ModelRequest, ModelToolDefinition } from '../ir.js';
import { wireParameters } from '../strict-schema.js';
import { wireResponseFormat } from '../output-schema.js';
import { argumentsText, callFieldsFor, REASONING_FIELDS, reasoningFieldsFor } from './chat-reasoning.js';
import { inlineThinkFor } from './inline-think.js';

/** Optional fields a strict server refused; the request is built without them (see the gateway). */
export type OmittableField = 'stream_options' | 'reasoning' | 'prompt_cache_key' | 'max_completion_tokens';

export interface ChatRequestOptions {
  omit?: ReadonlySet<OmittableField>;
}

/**
 * `withReasoning`: send the message's reasoning back (an assistant message of a tool-using turn,
 * see `reasoningFieldsFor`).
 */
export function toChatMessage(
  message: ModelMessage,
  withReasoning = message.role === 'assistant' && message.toolCalls.length > 0,
): ChatCompletionMessageParam {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'user':
      return { role: 'user', content: message.content };
    case 'assistant': {
      // A leading <think> block (MiniMax) goes back in the content exactly as it came, on every message.
      const content = inlineThinkFor(message.reasoning) + message.content;
      if (message.toolCalls.length === 0) {
        if (!withReasoning) return { role: 'assistant', content };
        return { ...reasoningFieldsFor(message.reasoning), role: 'assistant', content } as ChatCompletionMessageParam;
      }
      // Reasoning (DeepSeek's reasoning_content…) and per-call provider fields (Gemini's
      // thought signature) go back on the message that carries the calls; the SDK's types do not
      // know them, so they are spread in as plain fields.
      return {
        ...(withReasoning ? reasoningFieldsFor(message.reasoning) : {}),
        role: 'assistant',
        // The API's own replies carry null content beside tool calls; some compatible servers
        // reject an empty string there.
        content: content === '' ? null : content,
        tool_calls: message.toolCalls.map((call) => ({
          ...callFieldsFor(call),
          id: call.id,
          type: 'function' as const,
          function: { name: call.name, arguments: argumentsText(call.arguments) },
        })),
      };
    }
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  }
}

export function toChatTool(tool: ModelToolDefinition): ChatCompletionFunctionTool {
  return {
    type: 'function',
    function: {
      name: tool.name,
      description: tool.description,
      parameters: wireParameters(tool),
      ...(tool.strict ? { strict: true } : {}),
    },
  };
}

type ChatBody<Stream extends boolean> = Stream extends true ? ChatCompletionCreateParamsStreaming : ChatCompletionCreateParamsNonStreaming;

/** Indexes of the assistant messages in turns (runs between user messages) where a tool was called. */
function toolTurnAssistants(messages: readonly ModelMessage[]): Set<number> {
  const marked = new Set<number>();
  let turn: number[] = [];
  let calledTools = false;
  const close = (): void => {
    if (calledTools) for (const index of turn) marked.add(index);
    turn = [];
    calledTools = false;
  };
  messages.forEach((message, index) => {
    if (message.role === 'user') close();
    if (message.role !== 'assistant') return;
    turn.push(index);
    if (message.toolCalls.length > 0) calledTools = true;
  });
  close();
  return marked;
}

/** A wire message as plain fields: the reasoning fields some servers take are not in the SDK's types. */
type WireMessage = { role: string } & Record<string, unknown>;

/** Two texts as one, a blank line between; an empty side adds nothing. */
function joinText(a: unknown, b: unknown): string | null {
  const parts = [a, b].filter((part): part is string => typeof part === 'string' && part !== '');
  return parts.length === 0 ? null : parts.join('\n\n');
}

/** Two consecutive assistant messages as one: text, reasoning fields and calls in order. */
function mergeAssistant(a: WireMessage, b: WireMessage): WireMessage {
  const merged: WireMessage = { ...a, ...b };
  const calls = [...((a.tool_calls as unknown[] | undefined) ?? []), ...((b.tool_calls as unknown[] | undefined) ?? [])];
  // Null beside calls, as the API's own replies have it; '' for a message that had only text.
  merged.content = joinText(a.content, b.content) ?? (calls.length > 0 ? null : '');
  if (calls.length > 0) merged.tool_calls = calls;
  for (const field of REASONING_FIELDS) {
    const text = joinText(a[field], b[field]);
    if (text !== null) merged[field] = text;
  }
  const details = [...((a.reasoning_details as unknown[] | undefined) ?? []), ...((b.reasoning_details as unknown[] | undefined) ?? [])];
  if (details.length > 0) merged.reasoning_details = details;
  return merged;
}

/**
 * Consecutive messages of one role become one. Chat templates of Mistral (served by vLLM or
 * llama.cpp) and Gemma raise "Conversation roles must alternate user/assistant/user/assistant/..."
 * for two user messages in a row, which is what a compacted history ([system, user(summary),
 * user(prompt)]) and a resumed turn (every kept user message) are. Tool messages are never merged:
 * each answers its own call id. The IR and the session keep the messages apart; only the wire joins them.
 */
export function mergeConsecutiveRoles(messages: readonly ChatCompletionMessageParam[]): ChatCompletionMessageParam[] {
  const out: WireMessage[] = [];
  for (const message of messages as unknown as readonly WireMessage[]) {
    const last = out[out.length - 1];
    if (last === undefined || last.role !== message.role || message.role === 'tool') {
      out.push(message);
    } else if (message.role === 'assistant') {
      out[out.length - 1] = mergeAssistant(last, message);
    } else {
      out[out.length - 1] = { ...last, content: joinText(last.content, message.content) ?? '' };
    }
  }
  return out as unknown as ChatCompletionMessageParam[];
}

/**
 * Wire messages of system, user and tool messages, by message: the history's messages are reused
 * from round to round (items-to-messages.ts), and one of these roles converts the same way in
 * every request, so a round converts what is new in it. Nothing changes a wire message once built
 * (merging consecutive roles makes a new one).
 */
const wireMessages = new WeakMap<ModelMessage, ChatCompletionMessageParam>();

function standaloneWire(message: ModelMessage): ChatCompletionMessageParam {
  let wire = wireMessages.get(message);
  if (wire === undefined) {
    wire = toChatMessage(message, false);
    wireMessages.set(message, wire);
  }
  return wire;
}

export function buildChatRequest<Stream extends boolean>(
  request: ModelRequest,
  stream: Stream,
  options: ChatRequestOptions = {},
): ChatBody<Stream> {
  const omit = options.omit ?? new Set<OmittableField>();
  const withReasoning = omit.has('reasoning') ? new Set<number>() : toolTurnAssistants(request.messages);
  const body: ChatCompletionCreateParamsNonStreaming = {
    model: request.model,
    messages: mergeConsecutiveRoles(
      request.messages.map((message, index) =>
        message.role === 'assistant' ? toChatMessage(message, withReasoning.has(index)) : standaloneWire(message),
      ),
    ),
  };
  const tools = request.tools ?? [];
  if (tools.length > 0) {
    body.tools = tools.map(toChatTool);
    // `none` keeps the tools in the prompt (and so its cached prefix) while forbidding calls.
    body.tool_choice = request.toolChoice ?? 'auto';
  }
  // OpenAI routes by it to the machine holding the session's prefix cache; most compatible servers
  // ignore unknown fields, and one that refuses it gets it omitted (see the gateway).
  if (request.promptCacheKey !== undefined && !omit.has('prompt_cache_key')) body.prompt_cache_key = request.promptCacheKey;
  // OpenAI's name for the cap (its reasoning models refuse the older `max_tokens`); a server that
  // only knows `max_tokens` refuses it by name and gets the older field instead (see the gateway).
  if (request.maxOutputTokens !== undefined) {
    if (omit.has('max_completion_tokens')) body.max_tokens = request.maxOutputTokens;
    else body.max_completion_tokens = request.maxOutputTokens;
  }
  // OpenAI's reasoning models take `reasoning_effort`; compatible servers that do not ignore it.
  if (request.reasoningEffort !== undefined) body.reasoning_effort = request.reasoningEffort;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  // OpenAI, vLLM, llama.cpp, Ollama and most compatible servers constrain the answer to it.
  if (request.responseFormat !== undefined)
    body.response_format = { type: 'json_schema', json_schema: wireResponseFormat(request.responseFormat) };
  if (!stream) return body as ChatBody<Stream>;
  const streaming: ChatCompletionCreateParamsStreaming = { ...body, stream: true };
  // Without it OpenAI streams no usage; Mistral streams usage unasked and refuses the field (422).
  if (!omit.has('stream_options')) streaming.stream_options = { include_usage: true };
  return streaming as ChatBody<Stream>;
}
