// IR request → Chat Completions request body.

import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { ModelMessage, ModelRequest, ModelToolDefinition } from '../ir.js';
import { wireParameters } from '../strict-schema.js';
import { callFieldsFor, reasoningFieldsFor } from './chat-reasoning.js';

/** Optional fields a strict server refused; the request is built without them (see the gateway). */
export type OmittableField = 'stream_options' | 'reasoning' | 'prompt_cache_key';

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
    case 'assistant':
      if (message.toolCalls.length === 0) {
        if (!withReasoning) return { role: 'assistant', content: message.content };
        return { ...reasoningFieldsFor(message.reasoning), role: 'assistant', content: message.content } as ChatCompletionMessageParam;
      }
      // Reasoning (DeepSeek's reasoning_content…) and per-call provider fields (Gemini's
      // thought signature) go back on the message that carries the calls; the SDK's types do not
      // know them, so they are spread in as plain fields.
      return {
        ...(withReasoning ? reasoningFieldsFor(message.reasoning) : {}),
        role: 'assistant',
        // The API's own replies carry null content beside tool calls; some compatible servers
        // reject an empty string there.
        content: message.content === '' ? null : message.content,
        tool_calls: message.toolCalls.map((call) => ({
          ...callFieldsFor(call),
          id: call.id,
          type: 'function' as const,
          function: { name: call.name, arguments: call.arguments },
        })),
      };
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

export function buildChatRequest<Stream extends boolean>(
  request: ModelRequest,
  stream: Stream,
  options: ChatRequestOptions = {},
): ChatBody<Stream> {
  const omit = options.omit ?? new Set<OmittableField>();
  const withReasoning = omit.has('reasoning') ? new Set<number>() : toolTurnAssistants(request.messages);
  const body: ChatCompletionCreateParamsNonStreaming = {
    model: request.model,
    messages: request.messages.map((message, index) => toChatMessage(message, withReasoning.has(index))),
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
  if (request.maxOutputTokens !== undefined) body.max_completion_tokens = request.maxOutputTokens;
  // OpenAI's reasoning models take `reasoning_effort`; compatible servers that do not ignore it.
  if (request.reasoningEffort !== undefined) body.reasoning_effort = request.reasoningEffort;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (!stream) return body as ChatBody<Stream>;
  const streaming: ChatCompletionCreateParamsStreaming = { ...body, stream: true };
  // Without it OpenAI streams no usage; Mistral streams usage unasked and refuses the field (422).
  if (!omit.has('stream_options')) streaming.stream_options = { include_usage: true };
  return streaming as ChatBody<Stream>;
}
