// What both dialect gateways hold: one SDK client built from the resolved config, and the
// per-attempt settings handed to runCall/runStream. The dialects differ only in what they send
// and how they read the answer, so that is all a subclass adds.

import type OpenAI from 'openai';
import type { ModelGateway } from './gateway.js';
import type { ModelCallOptions, ModelRequest, ModelResponse, ModelStreamEvent, WireApi } from './ir.js';
import type { AttemptSettings } from './run-call.js';
import { createSdkClient, type ResolvedClientConfig } from './sdk-client.js';

export abstract class SdkGateway implements ModelGateway {
  abstract readonly wireApi: WireApi;
  readonly baseURL: string;
  protected readonly client: OpenAI;
  private readonly timeoutMs: number;

  constructor(config: ResolvedClientConfig) {
    this.baseURL = config.baseURL;
    this.timeoutMs = config.timeoutMs;
    this.client = createSdkClient(config);
  }

  protected settings(options: ModelCallOptions): AttemptSettings {
    return { signal: options.signal, timeoutMs: this.timeoutMs, baseURL: this.baseURL };
  }

  abstract createResponse(request: ModelRequest, options?: ModelCallOptions): Promise<ModelResponse>;
  abstract streamResponse(request: ModelRequest, options?: ModelCallOptions): AsyncIterable<ModelStreamEvent>;
}
