// The Chat Completions dialect (`POST /chat/completions`): the most widely implemented wire API,
// spoken by OpenAI and most compatible servers. One attempt per call; retries wrap it from outside.

import type OpenAI from 'openai';
import type { ModelGateway } from '../gateway.js';
import type { ModelCallOptions, ModelRequest, ModelResponse, ModelStreamEvent } from '../ir.js';
import { runCall, runStream, type AttemptSettings } from '../run-call.js';
import { createSdkClient, type ResolvedClientConfig } from '../sdk-client.js';
import { buildChatRequest } from './convert-messages.js';
import { chatCompletionToResponse } from './convert-response.js';
import { ChatStreamMapper } from './map-stream.js';

export class ChatCompletionsGateway implements ModelGateway {
  readonly wireApi = 'chat' as const;
  readonly baseURL: string;
  private readonly client: OpenAI;
  private readonly timeoutMs: number;

  constructor(config: ResolvedClientConfig) {
    this.baseURL = config.baseURL;
    this.timeoutMs = config.timeoutMs;
    this.client = createSdkClient(config);
  }

  private settings(options: ModelCallOptions): AttemptSettings {
    return { signal: options.signal, timeoutMs: this.timeoutMs, baseURL: this.baseURL };
  }

  async createResponse(request: ModelRequest, options: ModelCallOptions = {}): Promise<ModelResponse> {
    const body = buildChatRequest(request, false);
    const completion = await runCall(this.settings(options), (signal) =>
      this.client.chat.completions.create(body, { signal }),
    );
    return chatCompletionToResponse(completion);
  }

  async *streamResponse(request: ModelRequest, options: ModelCallOptions = {}): AsyncIterable<ModelStreamEvent> {
    const body = buildChatRequest(request, true);
    yield* runStream(
      this.settings(options),
      (signal) => this.client.chat.completions.create(body, { signal }),
      new ChatStreamMapper(),
    );
  }
}
