// The Chat Completions dialect (`POST /chat/completions`): the most widely implemented wire API,
// spoken by OpenAI and most compatible servers. One attempt per call; retries wrap it from outside.

import type { ModelCallOptions, ModelRequest, ModelResponse, ModelStreamEvent } from '../ir.js';
import { runCall, runStream } from '../run-call.js';
import { SdkGateway } from '../sdk-gateway.js';
import { buildChatRequest } from './convert-messages.js';
import { chatCompletionToResponse } from './convert-response.js';
import { ChatStreamMapper } from './map-stream.js';

export class ChatCompletionsGateway extends SdkGateway {
  readonly wireApi = 'chat' as const;

  async createResponse(request: ModelRequest, options: ModelCallOptions = {}): Promise<ModelResponse> {
    const body = buildChatRequest(request, false);
    const completion = await runCall(this.settings(options), (signal) =>
      this.client.chat.completions.create(body, { signal }),
    );
    return this.checked(chatCompletionToResponse(completion));
  }

  async *streamResponse(request: ModelRequest, options: ModelCallOptions = {}): AsyncIterable<ModelStreamEvent> {
    const body = buildChatRequest(request, true);
    yield* runStream(
      this.settings(options),
      (signal) => this.client.chat.completions.create(body, { signal }),
      new ChatStreamMapper(this.limits),
    );
  }
}
