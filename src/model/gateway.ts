import type { ModelCallOptions, ModelRequest, ModelResponse, ModelStreamEvent, WireApi } from './ir.js';
import type { ResponseLimits } from './response-limits.js';

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
 * - A stream that goes silent past its timeout, or an answer past its size limits, is abandoned
 *   (the connection closed) and fails with a code, never kept waiting on or read to its end.
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
  /**
   * Per-attempt timeout in ms (default 600 000): the wait for response headers, and for a
   * non-streaming call the whole answer. A shorter one also shortens the stream defaults below.
   */
  timeoutMs?: number;
  /**
   * Longest silence in ms before a stream's first text or tool-call event, response headers
   * included (default: 300 000 or `timeoutMs` if shorter, but never less than the idle timeout).
   * A stall here is retried: nothing reached the caller yet.
   */
  streamStartTimeoutMs?: number;
  /**
   * Longest silence in ms between stream events once the answer has started (default: 120 000
   * or `timeoutMs` if shorter). Such a stall fails with STREAM_INTERRUPTED and is not retried.
   */
  streamIdleTimeoutMs?: number;
  /** Size caps on one answer (see response-limits.ts for the defaults and why). */
  limits?: Partial<ResponseLimits>;
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
