// The Chat Completions dialect (`POST /chat/completions`): the most widely implemented wire API,
// spoken by OpenAI and most compatible servers. One attempt per call; retries wrap it from outside.
//
// Glassbox adds optional fields some strict servers refuse with a 400/422 that names the field:
// `stream_options` (Mistral: "Extra inputs are not permitted"), reasoning sent back on assistant
// messages (Groq: "property 'reasoning' is unsupported"), OpenAI's `prompt_cache_key`, and
// `max_completion_tokens` (a server that knows only `max_tokens`: then that is sent instead). Such a refusal comes before any
// answer, so the request is sent once more without the field, and the gateway leaves it out from
// then on. DeepSeek's "reasoning_content … must be passed back" names the field too, but says the
// opposite, so only the wording of a refusal counts.

import type { ModelCallOptions, ModelRequest, ModelResponse, ModelStreamEvent } from '../ir.js';
import { ModelError } from '../model-error.js';
import { runCall, runStream } from '../run-call.js';
import { SdkGateway } from '../sdk-gateway.js';
import { buildChatRequest, type OmittableField } from './convert-messages.js';
import { chatCompletionToResponse } from './convert-response.js';
import { ChatStreamMapper } from './map-stream.js';

/** The wire fields behind each omittable field, as a refusal would name them. */
const FIELD_NAMES: Record<OmittableField, readonly string[]> = {
  stream_options: ['stream_options'],
  reasoning: ['reasoning_content', 'reasoning_details', 'reasoning'],
  prompt_cache_key: ['prompt_cache_key'],
  max_completion_tokens: ['max_completion_tokens'],
};

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** True when the message refuses the wire field `name` as unknown (not when it asks for it). */
function refusesField(message: string, name: string): boolean {
  const field = escapeRegExp(name);
  return [
    // Groq: "property 'reasoning' is unsupported"
    new RegExp(`property '${field}' is unsupported`, 'i'),
    // pydantic (Mistral, FastAPI servers): "body.stream_options.include_usage: Extra inputs are not permitted"
    new RegExp(`\\.${field}(\\.[\\w.]+)?: extra inputs are not permitted`, 'i'),
    // OpenAI-style and serde-style wordings.
    new RegExp(`unrecognized request argument supplied: ${field}\\b`, 'i'),
    new RegExp(`unknown field \`${field}\``, 'i'),
  ].some((pattern) => pattern.test(message));
}

export class ChatCompletionsGateway extends SdkGateway {
  readonly wireApi = 'chat' as const;
  /** Optional fields this provider refused; requests are built without them from then on. */
  private readonly omitted = new Set<OmittableField>();

  async createResponse(request: ModelRequest, options: ModelCallOptions = {}): Promise<ModelResponse> {
    for (;;) {
      try {
        const body = buildChatRequest(request, false, { omit: this.omitted });
        const completion = await runCall(this.settings(options), (signal) => this.client.chat.completions.create(body, { signal }));
        return this.checked(chatCompletionToResponse(completion));
      } catch (error) {
        if (!this.learnRefusal(request, error)) throw error;
      }
    }
  }

  async *streamResponse(request: ModelRequest, options: ModelCallOptions = {}): AsyncIterable<ModelStreamEvent> {
    for (;;) {
      const body = buildChatRequest(request, true, { omit: this.omitted });
      let yielded = false;
      try {
        for await (const event of runStream(
          this.settings(options),
          (signal) => this.client.chat.completions.create(body, { signal }),
          new ChatStreamMapper(this.limits),
        )) {
          yielded = true;
          yield event;
        }
        return;
      } catch (error) {
        // A refusal is an answer to the request itself, so nothing has been streamed yet.
        if (yielded || !this.learnRefusal(request, error)) throw error;
      }
    }
  }

  /** True (and remembered) when the provider refused an optional field the request carried. */
  private learnRefusal(request: ModelRequest, error: unknown): boolean {
    if (!(error instanceof ModelError) || (error.status !== 400 && error.status !== 422)) return false;
    for (const field of Object.keys(FIELD_NAMES) as OmittableField[]) {
      if (this.omitted.has(field) || !FIELD_NAMES[field].some((name) => refusesField(error.message, name))) continue;
      // Reasoning is only ever sent on assistant messages; a request without any cannot have carried it.
      if (field === 'reasoning' && !request.messages.some((message) => message.role === 'assistant')) continue;
      if (field === 'prompt_cache_key' && request.promptCacheKey === undefined) continue;
      if (field === 'max_completion_tokens' && request.maxOutputTokens === undefined) continue;
      this.omitted.add(field);
      return true;
    }
    return false;
  }
}
