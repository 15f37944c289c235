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
import { contentParts, type ModelMessage, type ModelReasoning, type ModelRequest, type ModelToolDefinition } from '../ir.js';
import { wireParameters } from '../strict-schema.js';
import { wireResponseFormat } from '../output-schema.js';

/**
 * A reasoning item to send back: only responses-format reasoning that carries its
 * `encrypted_content`. With `store: false` nothing lives on the server, and an item sent by id
 * alone is answered 404 ("Items are not persisted when `store` is set to false").
 */
function reasoningInput(reasoning: ModelReasoning): ResponseInputItem | null {
  const state = reasoning.state;
  if (reasoning.format !== 'responses' || state === null) return null;
  if (typeof state.encrypted_content !== 'string' || state.encrypted_content === '') return null;
  return { ...state, type: 'reasoning' } as ResponseInputItem;
}

export function toResponsesInput(messages: readonly ModelMessage[]): ResponseInputItem[] {
  const input: ResponseInputItem[] = [];
  for (const message of messages) {
    switch (message.role) {
      case 'system':
      case 'user':
        input.push({ type: 'message', role: message.role, content: message.content });
        break;
      case 'assistant':
        // The output items go back in the order they came: reasoning before the message and calls
        // it led to, each message with its `phase` (commentary / final_answer), which gpt-5.3-codex
        // and later want back on every assistant message.
        for (const part of contentParts({ ...message, text: message.content })) {
          if (part.type === 'reasoning') {
            const item = reasoningInput(part.reasoning);
            if (item !== null) input.push(item);
          } else if (part.type === 'text') {
            const fields = part.providerFields?.format === 'responses' ? part.providerFields.fields : {};
            // An assistant turn that only called tools has no text; an empty message item would be noise.
            if (part.text !== '') input.push({ ...fields, type: 'message', role: 'assistant', content: part.text } as ResponseInputItem);
          } else {
            input.push({ type: 'function_call', call_id: part.call.id, name: part.call.name, arguments: part.call.arguments });
          }
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

type ResponsesBody<Stream extends boolean> = Stream extends true ? ResponseCreateParamsStreaming : ResponseCreateParamsNonStreaming;

export interface ResponsesRequestOptions {
  /**
   * Ask for `reasoning.encrypted_content`, the only way a reasoning model's chain of thought can
   * be carried to the next round when nothing is stored (default true). OpenAI answers 400
   * ("Encrypted content is not supported with this model") for models that do not reason, so the
   * gateway turns it off for a model that refused it.
   */
  encryptedReasoning?: boolean;
}

export function buildResponsesRequest<Stream extends boolean>(
  request: ModelRequest,
  stream: Stream,
  options: ResponsesRequestOptions = {},
): ResponsesBody<Stream> {
  const body: ResponseCreateParamsNonStreaming = {
    model: request.model,
    input: toResponsesInput(request.messages),
    // Glassbox keeps the history itself and resends it; nothing needs to live on the provider.
    store: false,
  };
  if (options.encryptedReasoning !== false) body.include = ['reasoning.encrypted_content'];
  // Effort (and the readable summary that comes with it) only when asked for: models that do not
  // reason reject the `reasoning` parameter.
  if (request.reasoningEffort !== undefined) body.reasoning = { effort: request.reasoningEffort, summary: 'auto' };
  const tools = request.tools ?? [];
  if (tools.length > 0) {
    body.tools = tools.map(toResponsesTool);
    // `none` keeps the tools in the prompt (and so its cached prefix) while forbidding calls.
    body.tool_choice = request.toolChoice ?? 'auto';
  }
  // Routes the session's requests to the machines holding its prefix cache.
  if (request.promptCacheKey !== undefined) body.prompt_cache_key = request.promptCacheKey;
  if (request.maxOutputTokens !== undefined) body.max_output_tokens = request.maxOutputTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.responseFormat !== undefined) body.text = { format: { type: 'json_schema', ...wireResponseFormat(request.responseFormat) } };
  if (!stream) return body as ResponsesBody<Stream>;
  const streaming: ResponseCreateParamsStreaming = { ...body, stream: true };
  return streaming as ResponsesBody<Stream>;
}
