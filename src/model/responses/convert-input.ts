// IR request → Responses request body.
//
// System messages are sent with role `system`, not `developer`: OpenAI treats the two alike for
// current models, and `system` is the role every Responses-compatible server understands.

import type {
  FunctionTool,
  ResponseCreateParamsNonStreaming,
  ResponseCreateParamsStreaming,
  ResponseInputItem,
} from 'openai/resources/responses/responses';
import type { ModelMessage, ModelRequest, ModelToolDefinition } from '../ir.js';
import { wireParameters } from '../strict-schema.js';

export function toResponsesInput(messages: readonly ModelMessage[]): ResponseInputItem[] {
  const input: ResponseInputItem[] = [];
  for (const message of messages) {
    switch (message.role) {
      case 'system':
      case 'user':
        input.push({ type: 'message', role: message.role, content: message.content });
        break;
      case 'assistant':
        // An assistant turn that only called tools has no text; an empty message item would be noise.
        if (message.content !== '') input.push({ type: 'message', role: 'assistant', content: message.content });
        for (const call of message.toolCalls) {
          input.push({ type: 'function_call', call_id: call.id, name: call.name, arguments: call.arguments });
        }
        break;
      case 'tool':
        input.push({ type: 'function_call_output', call_id: message.toolCallId, output: message.content });
        break;
    }
  }
  return input;
}

export function toResponsesTool(tool: ModelToolDefinition): FunctionTool {
  // `strict` is always sent: the Responses API defaults it to true, which would reject
  // non-strict schemas.
  return {
    type: 'function',
    name: tool.name,
    description: tool.description,
    parameters: wireParameters(tool),
    strict: tool.strict,
  };
}

type ResponsesBody<Stream extends boolean> = Stream extends true
  ? ResponseCreateParamsStreaming
  : ResponseCreateParamsNonStreaming;

export function buildResponsesRequest<Stream extends boolean>(request: ModelRequest, stream: Stream): ResponsesBody<Stream> {
  const body: ResponseCreateParamsNonStreaming = {
    model: request.model,
    input: toResponsesInput(request.messages),
    // Glassbox keeps the history itself and resends it; nothing needs to live on the provider.
    store: false,
  };
  const tools = request.tools ?? [];
  if (tools.length > 0) {
    body.tools = tools.map(toResponsesTool);
    body.tool_choice = 'auto';
  }
  if (request.maxOutputTokens !== undefined) body.max_output_tokens = request.maxOutputTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (!stream) return body as ResponsesBody<Stream>;
  const streaming: ResponseCreateParamsStreaming = { ...body, stream: true };
  return streaming as ResponsesBody<Stream>;
}
