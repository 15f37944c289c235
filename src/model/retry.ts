// Backoff for transient provider failures. Exponential with full jitter, so many clients hitting
// the same overloaded provider spread out instead of retrying in lockstep; a provider's own
// Retry-After wins over our guess because it knows when capacity returns.
//
// Streams are only retried before their first event: after that the caller has already shown
// or recorded part of the answer, and a silent restart would duplicate or contradict it.
//
// What is retried (provider-error.ts decides, this file enforces): 408, 409, 429, 5xx and
// connection failures. Never: 400/401/403/404/422, an overflow (the loop compacts instead), a
// quota or credit stop, a server that says it is misconfigured, or a provider asking to wait
// longer than MAX_RETRY_AFTER_MS; those fail on the first attempt with the provider's words.

import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './gateway.js';
import type { ModelCallOptions, RetryNotice } from './ir.js';
import { abortedError } from './map-sdk-error.js';
import { ModelError, isModelError, type ModelErrorCode } from './model-error.js';
import { NEVER_RETRIED_STATUSES, PERMANENT_CODES } from './provider-error.js';

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export interface RetryOptions extends ModelCallOptions {
  policy?: Partial<RetryPolicy>;
  /** Injected by tests; must reject promptly with an ABORTED ModelError when `signal` aborts. */
  sleep?: Sleep;
}

/** Merge overrides onto the defaults; throws naming the bad field. */
export function resolveRetryPolicy(overrides: Partial<RetryPolicy> = {}): RetryPolicy {
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...overrides };
  if (!Number.isInteger(policy.maxAttempts) || policy.maxAttempts < 1) {
    throw new Error(`Invalid retry policy: maxAttempts must be a whole number >= 1, got ${policy.maxAttempts}.`);
  }
  for (const field of ['baseDelayMs', 'maxDelayMs'] as const) {
    if (!Number.isFinite(policy[field]) || policy[field] < 0) {
      throw new Error(`Invalid retry policy: ${field} must be a number >= 0, got ${policy[field]}.`);
    }
  }
  if (typeof policy.random !== 'function') throw new Error('Invalid retry policy: random must be a function.');
  return policy;
}

/** Full-jitter delay before retry number `attempt` (1 for the first retry). */
export function backoffDelay(attempt: number, policy: RetryPolicy): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.floor(policy.random() * ceiling);
}

/** Failures the next attempt would meet again, even if something marked them retryable. */
const NEVER_RETRIED_CODES: ReadonlySet<ModelErrorCode> = new Set<ModelErrorCode>([
  ...PERMANENT_CODES,
  'ABORTED',
  'RESPONSE_TOO_LARGE',
  'OUTPUT_TRUNCATED',
  'CONTENT_FILTERED',
  'MODEL_REFUSED',
]);

/**
 * Whether another attempt could succeed: the error says it is transient, its code is not one
 * whose cause stays (or a cancel), and its status is not one that retrying cannot fix.
 */
export function isRetryable(error: unknown): error is ModelError {
  return (
    isModelError(error) &&
    error.retryable &&
    !NEVER_RETRIED_CODES.has(error.code) &&
    !(error.status !== null && NEVER_RETRIED_STATUSES.has(error.status))
  );
}

/** The wait before retrying after `error` on attempt `attempt`: the provider's Retry-After if given. */
export function retryDelay(error: ModelError, attempt: number, policy: RetryPolicy): number {
  return error.retryAfterMs ?? backoffDelay(attempt, policy);
}

export const sleepAbortable: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortedError(signal.reason));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortedError(signal?.reason));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

function exhausted(error: ModelError, attempts: number): ModelError {
  if (attempts <= 1) return error;
  return new ModelError(error.code, `${error.message} (gave up after ${attempts} attempts)`, {
    status: error.status,
    retryable: error.retryable,
    retryAfterMs: error.retryAfterMs,
    cause: error,
  });
}

/**
 * Decide what happens after `error` on attempt `attempt`: resolves when the caller should try
 * again (after the backoff sleep), throws the error to give up.
 */
async function backOffOrThrow(error: unknown, attempt: number, policy: RetryPolicy, options: RetryOptions): Promise<void> {
  if (options.signal?.aborted) throw isModelError(error) && error.code === 'ABORTED' ? error : abortedError(error);
  if (!isRetryable(error)) throw error;
  if (attempt >= policy.maxAttempts) throw exhausted(error, attempt);
  const delayMs = retryDelay(error, attempt, policy);
  const notice: RetryNotice = {
    attempt,
    delayMs,
    error: { code: error.code, message: error.message, status: error.status },
  };
  options.onRetry?.(notice);
  await (options.sleep ?? sleepAbortable)(delayMs, options.signal);
}

/**
 * Run `operation` until it succeeds, fails with a non-retryable error, or the attempts run out.
 * `operation` receives the 1-based attempt number.
 */
export async function withRetries<T>(operation: (attempt: number) => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const policy = resolveRetryPolicy(options.policy);
  for (let attempt = 1; ; attempt++) {
    if (options.signal?.aborted) throw abortedError(options.signal.reason);
    try {
      return await operation(attempt);
    } catch (error) {
      await backOffOrThrow(error, attempt, policy, options);
    }
  }
}

/**
 * Like `withRetries` for a stream: a failed attempt is retried only if it had not yielded
 * anything yet. Once an event has been passed on, any failure is final.
 */
export async function* streamWithRetries<T>(
  start: (attempt: number) => AsyncIterable<T>,
  options: RetryOptions = {},
): AsyncGenerator<T, void, undefined> {
  const policy = resolveRetryPolicy(options.policy);
  for (let attempt = 1; ; attempt++) {
    if (options.signal?.aborted) throw abortedError(options.signal.reason);
    let yielded = false;
    try {
      for await (const event of start(attempt)) {
        yielded = true;
        yield event;
      }
      return;
    } catch (error) {
      if (yielded) throw error;
      await backOffOrThrow(error, attempt, policy, options);
    }
  }
}
