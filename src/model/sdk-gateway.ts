// What both dialect gateways hold: one SDK client built from the resolved config, and the
// per-attempt settings handed to runCall/runStream. The dialects differ only in what they send
// and how they read the answer, so that is all a subclass adds.

import type OpenAI from 'openai';
import type { ModelGateway } from './gateway.js';
import type { ModelCallOptions, ModelRequest, ModelResponse, ModelStreamEvent, WireApi } from './ir.js';
import { checkResponseSize, type ResponseLimits } from './response-limits.js';
import type { AttemptSettings } from './run-call.js';
import { createSdkClient, type ResolvedClientConfig } from './sdk-client.js';

export abstract class SdkGateway implements ModelGateway {
  abstract readonly wireApi: WireApi;
  readonly baseURL: string;
  protected readonly client: OpenAI;
  /** Size caps the stream mappers enforce as deltas arrive. */
  protected readonly limits: ResponseLimits;
  private readonly config: ResolvedClientConfig;

  constructor(config: ResolvedClientConfig) {
    this.baseURL = config.baseURL;
    this.config = config;
    this.limits = config.limits;
    this.client = createSdkClient(config);
  }

  protected settings(options: ModelCallOptions): AttemptSettings {
    return {
      signal: options.signal,
      timeoutMs: this.config.timeoutMs,
      streamStartTimeoutMs: this.config.streamStartTimeoutMs,
      streamIdleTimeoutMs: this.config.streamIdleTimeoutMs,
      baseURL: this.baseURL,
    };
  }

  /** A non-streamed answer arrives whole (its bytes bounded by the client's fetch); check it the same way. */
  protected checked(response: ModelResponse): ModelResponse {
    checkResponseSize(response.text, response.toolCalls, this.limits);
    return response;
  }

  abstract createResponse(request: ModelRequest, options?: ModelCallOptions): Promise<ModelResponse>;
  abstract streamResponse(request: ModelRequest, options?: ModelCallOptions): AsyncIterable<ModelStreamEvent>;
}
