import type { ModelCallOptions, ModelRequest, ModelResponse, ModelStreamEvent, WireApi } from './ir.js';

/**
 * A model gateway speaks one wire API to one endpoint.
 *
 * Contract:
 * - `createResponse` resolves with the complete response or rejects with a `ModelError`.
 * - `streamResponse` yields events in the order documented on `ModelStreamEvent` and ends right
 *   after exactly one `completed` event, or throws a `ModelError` (never yields a partial
 *   `completed`). Retries happen only before the first event is yielded; once a stream has
 *   started, a failure is thrown as `STREAM_INTERRUPTED` (or the provider's own error) so the
 *   caller can discard the partial round.
 * - Errors never masquerade as empty answers: truncation, content filtering, refusals and
 *   `response.failed` all throw with their own code.
 * - An aborted signal throws `ABORTED` promptly, including during a backoff sleep.
 */
export interface ModelGateway {
  readonly wireApi: WireApi;
  readonly baseURL: string;
  createResponse(request: ModelRequest, options?: ModelCallOptions): Promise<ModelResponse>;
  streamResponse(request: ModelRequest, options?: ModelCallOptions): AsyncIterable<ModelStreamEvent>;
}

export interface GatewayConfig {
  wireApi: WireApi;
  baseURL: string;
  apiKey: string;
  /** Per-attempt request timeout in ms (default 600 000). */
  timeoutMs?: number;
  /** Retry policy overrides; tests shrink the delays. */
  retry?: Partial<RetryPolicy>;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
}

export interface RetryPolicy {
  /** Total attempts including the first. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Injected for deterministic tests; returns a number in [0, 1). */
  random: () => number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 4,
  baseDelayMs: 500,
  maxDelayMs: 8000,
  random: Math.random,
};
