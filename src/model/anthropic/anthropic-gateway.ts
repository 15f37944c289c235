// The Anthropic Messages dialect (`POST /v1/messages`) on the official `@anthropic-ai/sdk`.
// One attempt per call; retries wrap it from outside (create-gateway.ts), as for the OpenAI
// dialects, and the attempt runs through the same runCall/runStream (silence timers, size limits,
// retry-before-first-event), with this SDK's errors mapped by map-anthropic-error.ts.

import type Anthropic from '@anthropic-ai/sdk';
import { boundedFetch } from '../bounded-fetch.js';
import type { GatewayConfig, ModelGateway } from '../gateway.js';
import type { ModelCallOptions, ModelRequest, ModelResponse, ModelStreamEvent } from '../ir.js';
import { checkResponseSize, maxEventBytes, oversizedWireError, type ResponseLimits } from '../response-limits.js';
import { runCall, runStream, type AttemptSettings } from '../run-call.js';
import { resolveClientConfig, type ResolvedClientConfig } from '../sdk-client.js';
import { loadAnthropicSdk } from './anthropic-sdk.js';
import { buildAnthropicRequest } from './convert-request.js';
import { messageToResponse, reasoningSize } from './convert-response.js';
import { ANTHROPIC_ERROR_MAPPING } from './map-anthropic-error.js';
import { AnthropicStreamMapper } from './map-stream.js';

/**
 * The base URL the SDK gets. The SDK appends `/v1/messages` to it (Anthropic's convention is a
 * base without `/v1`, e.g. https://api.anthropic.com), so a base given OpenAI-style with a trailing
 * `/v1` loses it here rather than ending up at /v1/v1/messages.
 */
export function sdkBaseURL(baseURL: string): string {
  return baseURL.replace(/\/+$/, '').replace(/\/v1$/, '');
}

/** Config checks as for the other dialects, with Anthropic's key variable in the message. */
export function resolveAnthropicConfig(config: GatewayConfig): ResolvedClientConfig {
  if (typeof config.apiKey !== 'string' || config.apiKey.trim() === '') {
    throw new Error('No API key given: set ANTHROPIC_API_KEY (servers without authentication accept any placeholder).');
  }
  return resolveClientConfig(config);
}

export class AnthropicGateway implements ModelGateway {
  readonly wireApi = 'anthropic' as const;
  readonly baseURL: string;
  private readonly limits: ResponseLimits;
  private readonly config: ResolvedClientConfig;
  private client: Promise<Anthropic> | null = null;

  constructor(config: ResolvedClientConfig) {
    this.config = config;
    this.baseURL = config.baseURL;
    this.limits = config.limits;
  }

  /** The SDK client, built on the first call (anthropic-sdk.ts says why not before). */
  private sdkClient(): Promise<Anthropic> {
    this.client ??= loadAnthropicSdk().then((sdk) => this.createClient(sdk.default));
    return this.client;
  }

  private createClient(AnthropicClient: typeof Anthropic): Anthropic {
    const config = this.config;
    const maxBytes = maxEventBytes(config.limits);
    return new AnthropicClient({
      apiKey: config.apiKey,
      baseURL: sdkBaseURL(config.baseURL),
      // Our retries (retry.ts) only; the SDK's would multiply with them.
      maxRetries: 0,
      timeout: config.timeoutMs,
      // The SDK sends the key as `Authorization: Bearer`; compatible servers often read only
      // `x-api-key` (the API itself takes either, and prefers x-api-key when both are set).
      defaultHeaders: { 'x-api-key': config.apiKey, ...config.headers },
      logLevel: 'off',
      // No spans or trace headers from inside the harness; Glassbox records its own calls.
      openTelemetry: false,
      fetch: boundedFetch(maxBytes, (unit) => oversizedWireError(unit, maxBytes, config.limits)),
    });
  }

  private settings(options: ModelCallOptions): AttemptSettings {
    return {
      signal: options.signal,
      timeoutMs: this.config.timeoutMs,
      streamStartTimeoutMs: this.config.streamStartTimeoutMs,
      streamIdleTimeoutMs: this.config.streamIdleTimeoutMs,
      baseURL: this.baseURL,
      errors: ANTHROPIC_ERROR_MAPPING,
    };
  }

  async createResponse(request: ModelRequest, options: ModelCallOptions = {}): Promise<ModelResponse> {
    const body = buildAnthropicRequest(request, false);
    const client = await this.sdkClient();
    const message = await runCall(this.settings(options), (signal) => client.messages.create(body, { signal }));
    const response = messageToResponse(message);
    // A non-streamed answer arrives whole (its bytes bounded by the client's fetch); check it the same way.
    const reasoningChars = response.reasoning.reduce((sum, entry) => sum + reasoningSize(entry), 0);
    checkResponseSize(response.text, response.toolCalls, this.limits, reasoningChars);
    return response;
  }

  async *streamResponse(request: ModelRequest, options: ModelCallOptions = {}): AsyncIterable<ModelStreamEvent> {
    const body = buildAnthropicRequest(request, true);
    const client = await this.sdkClient();
    yield* runStream(this.settings(options), (signal) => client.messages.create(body, { signal }), new AnthropicStreamMapper(this.limits));
  }
}
