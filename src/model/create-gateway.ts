// The entry point for the rest of Glassbox: a config in, a retrying gateway for the chosen wire
// API out. Config problems are thrown here, before any request, with the setting to fix.

import { ChatCompletionsGateway } from './chat-completions/index.js';
import type { GatewayConfig, ModelGateway, RetryPolicy } from './gateway.js';
import { WIRE_APIS, type ModelCallOptions, type ModelRequest, type ModelResponse, type ModelStreamEvent } from './ir.js';
import { ResponsesGateway } from './responses/index.js';
import { resolveRetryPolicy, streamWithRetries, withRetries, type Sleep } from './retry.js';
import { resolveClientConfig } from './sdk-client.js';

/** Wraps a single-attempt gateway with the retry policy; see retry.ts for what is retried. */
export class RetryingGateway implements ModelGateway {
  readonly wireApi: ModelGateway['wireApi'];
  readonly baseURL: string;

  constructor(
    private readonly inner: ModelGateway,
    private readonly policy: RetryPolicy,
    private readonly sleep?: Sleep,
  ) {
    this.wireApi = inner.wireApi;
    this.baseURL = inner.baseURL;
  }

  createResponse(request: ModelRequest, options: ModelCallOptions = {}): Promise<ModelResponse> {
    return withRetries(() => this.inner.createResponse(request, { signal: options.signal }), {
      ...options,
      policy: this.policy,
      sleep: this.sleep,
    });
  }

  streamResponse(request: ModelRequest, options: ModelCallOptions = {}): AsyncIterable<ModelStreamEvent> {
    return streamWithRetries(() => this.inner.streamResponse(request, { signal: options.signal }), {
      ...options,
      policy: this.policy,
      sleep: this.sleep,
    });
  }
}

export function createGateway(config: GatewayConfig): ModelGateway {
  if (!WIRE_APIS.includes(config.wireApi)) {
    throw new Error(`Unknown wire API ${JSON.stringify(config.wireApi)}: expected one of ${WIRE_APIS.join(', ')}.`);
  }
  const resolved = resolveClientConfig(config);
  const policy = resolveRetryPolicy(config.retry);
  const inner = config.wireApi === 'chat' ? new ChatCompletionsGateway(resolved) : new ResponsesGateway(resolved);
  return new RetryingGateway(inner, policy);
}
