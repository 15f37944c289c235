// IR request → Chat Completions request body.

import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { ModelMessage, ModelRequest, ModelToolDefinition } from '../ir.js';
import { wireParameters } from '../strict-schema.js';

export function toChatMessage(message: ModelMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'user':
      return { role: 'user', content: message.content };
    case 'assistant':
      if (message.toolCalls.length === 0) return { role: 'assistant', content: message.content };
      return {
        role: 'assistant',
        // The API's own replies carry null content beside tool calls; some compatible servers
        // reject an empty string there.
        content: message.content === '' ? null : message.content,
        tool_calls: message.toolCalls.map((call) => ({
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

type ChatBody<Stream extends boolean> = Stream extends true
  ? ChatCompletionCreateParamsStreaming
  : ChatCompletionCreateParamsNonStreaming;

export function buildChatRequest<Stream extends boolean>(request: ModelRequest, stream: Stream): ChatBody<Stream> {
  const body: ChatCompletionCreateParamsNonStreaming = {
    model: request.model,
    messages: request.messages.map(toChatMessage),
  };
  const tools = request.tools ?? [];
  if (tools.length > 0) {
    body.tools = tools.map(toChatTool);
    body.tool_choice = 'auto';
  }
  if (request.maxOutputTokens !== undefined) body.max_completion_tokens = request.maxOutputTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (!stream) return body as ChatBody<Stream>;
  const streaming: ChatCompletionCreateParamsStreaming = {
    ...body,
    stream: true,
    stream_options: { include_usage: true },
  };
  return streaming as ChatBody<Stream>;
}
