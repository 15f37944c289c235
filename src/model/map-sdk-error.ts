// Turns whatever the OpenAI SDK (or fetch underneath it) threw into a `ModelError` with a stable
// code, a message that names the cause and the fix, and the retry facts the backoff needs. The
// SDK's classes stay inside `model/`; callers only ever see `ModelError`.

import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { ModelError, isModelError } from './model-error.js';

/** Longest wait a provider may ask for through Retry-After before we cap it. */
export const MAX_RETRY_AFTER_MS = 60_000;

const CONTEXT_OVERFLOW_PATTERNS: readonly RegExp[] = [
  /context[_ ]length[_ ]exceeded/i,
  /maximum context length/i,
  /context window/i,
  /context (length|size) (of|is|exceeded)/i,
  /prompt is too long/i,
  /too many (input )?tokens/i,
  /input (is )?too long/i,
  /reduce the length of the (messages|input|prompt)/i,
  /exceeds? (the )?(model'?s? )?(maximum )?(context|token limit)/i,
];

export function looksLikeContextOverflow(text: string): boolean {
  return CONTEXT_OVERFLOW_PATTERNS.some((pattern) => pattern.test(text));
}

interface HeaderSource {
  get(name: string): string | null;
}

/**
 * Read how long the provider asked us to wait: `retry-after-ms` (milliseconds, non-standard but
 * sent by OpenAI), else `retry-after` as seconds or an HTTP date. Capped at `MAX_RETRY_AFTER_MS`;
 * null when absent or unparseable.
 */
export function parseRetryAfter(headers: HeaderSource | null | undefined, now: number = Date.now()): number | null {
  if (!headers) return null;
  const milliseconds = headers.get('retry-after-ms');
  if (milliseconds !== null && milliseconds.trim() !== '') {
    const value = Number(milliseconds);
    if (Number.isFinite(value) && value >= 0) return Math.min(value, MAX_RETRY_AFTER_MS);
  }
  const header = headers.get('retry-after');
  if (header === null || header.trim() === '') return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return seconds >= 0 ? Math.min(seconds * 1000, MAX_RETRY_AFTER_MS) : null;
  const date = Date.parse(header);
  if (Number.isNaN(date)) return null;
  return Math.min(Math.max(0, date - now), MAX_RETRY_AFTER_MS);
}

export interface ErrorContext {
  baseURL: string;
  /** The caller's signal: an abort from it wins over whatever error the abort caused. */
  signal?: AbortSignal;
  /** Set when our own per-attempt timer aborted the request. */
  timedOut?: boolean;
  /** The limit that ran out: our timer's when `timedOut`, else the SDK's header wait. */
  timeoutMs?: number;
  /** Our timer cut a stream, whose silence limits have their own setting to name. */
  stream?: boolean;
}

/** The CLI flag (and gateway options) that change the stream silence limits, for messages. */
const STREAM_TIMEOUT_SETTING = '--stream-idle-timeout (gateway options streamStartTimeoutMs / streamIdleTimeoutMs)';

/** "150 ms" or "120 s": tests and impatient users set sub-second limits, providers get seconds. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}

/** The provider's own words, without the status prefix the SDK adds. */
function providerMessage(error: APIError): string {
  const body = error.error as { message?: unknown } | undefined;
  if (body && typeof body.message === 'string' && body.message !== '') return body.message;
  const message = error.message.replace(/^\d{3}\s+/, '');
  return message === '' ? '(no message)' : message;
}

function describeCause(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 4; depth++) {
    const code = (current as NodeJS.ErrnoException).code;
    parts.push(code ? `${current.message} (${code})` : current.message);
    current = current.cause;
  }
  return parts.filter((part, i) => part !== '' && parts.indexOf(part) === i).join(': ') || String(error);
}

export function abortedError(cause?: unknown): ModelError {
  return new ModelError('ABORTED', 'The model call was cancelled.', { cause });
}

export function timeoutError(context: ErrorContext, cause?: unknown): ModelError {
  const within = context.timeoutMs === undefined ? '' : ` within ${formatDuration(context.timeoutMs)}`;
  const advice = context.stream
    ? `The provider may be overloaded or still thinking; try again, or raise the limit with ${STREAM_TIMEOUT_SETTING}.`
    : 'The provider may be overloaded; try again or raise the timeout.';
  return new ModelError('CONNECTION_FAILED', `No response from ${context.baseURL}${within}. ${advice}`, { retryable: true, cause });
}

/** A stream that went silent after the caller had events: never retried, the round is broken. */
function stalledError(context: ErrorContext, cause: unknown): ModelError {
  const silent = context.timeoutMs === undefined ? '' : ` for ${formatDuration(context.timeoutMs)}`;
  return new ModelError(
    'STREAM_INTERRUPTED',
    `The stream from ${context.baseURL} went silent${silent} after the answer had started; gave up on it. ` +
      `If the provider pauses that long, raise the limit with ${STREAM_TIMEOUT_SETTING}.`,
    { cause },
  );
}

function fromStatus(error: APIError, status: number, context: ErrorContext): ModelError {
  const message = providerMessage(error);
  const retryAfterMs = parseRetryAfter(error.headers);
  const shouldRetryHeader = error.headers?.get('x-should-retry') ?? null;
  const base = { status, cause: error, retryAfterMs };
  const overflowText = `${error.code ?? ''} ${message}`;

  if (status === 401 || status === 403) {
    return new ModelError(
      'AUTH_FAILED',
      `Authentication failed (${status}) at ${context.baseURL}: ${message}. Check the API key (e.g. OPENAI_API_KEY) and that it may use this model.`,
      base,
    );
  }
  if (status === 404) {
    return new ModelError(
      'NOT_FOUND',
      `Not found (404) at ${context.baseURL}: ${message}. Check --base-url and the model name.`,
      base,
    );
  }
  // 413 is the body-size form of the same problem: the conversation has outgrown what the server takes.
  if (status === 413 || ((status === 400 || status === 422) && looksLikeContextOverflow(overflowText))) {
    return new ModelError('CONTEXT_OVERFLOW', `The request does not fit the model's context window (${status}): ${message}`, base);
  }
  let retryable = status === 408 || status === 409 || status === 429 || status >= 500;
  if (shouldRetryHeader === 'true') retryable = true;
  if (shouldRetryHeader === 'false') retryable = false;
  if (status === 429) {
    return new ModelError('RATE_LIMITED', `Rate limited (429) by ${context.baseURL}: ${message}`, { ...base, retryable });
  }
  if (status >= 500) {
    return new ModelError('SERVER_ERROR', `Provider server error (${status}) at ${context.baseURL}: ${message}`, {
      ...base,
      retryable,
    });
  }
  if (status === 408) {
    return new ModelError('CONNECTION_FAILED', `The provider timed out the request (408): ${message}`, { ...base, retryable });
  }
  if (status === 409) {
    return new ModelError('SERVER_ERROR', `The provider reported a conflict (409): ${message}`, { ...base, retryable });
  }
  return new ModelError('BAD_REQUEST', `The provider rejected the request (${status}): ${message}`, { ...base, retryable });
}

/**
 * An error object the provider put inside an open stream (Chat `{"error": …}` chunk, Responses
 * `error` event or `response.failed`). The request was accepted, so this is the provider's own
 * failure, except that some providers report an oversized prompt this way.
 */
export function streamFailureError(message: string, code: string | null, cause?: unknown): ModelError {
  const text = message === '' ? '(no message)' : message;
  if (looksLikeContextOverflow(`${code ?? ''} ${text}`)) {
    return new ModelError('CONTEXT_OVERFLOW', `The request does not fit the model's context window: ${text}`, { cause });
  }
  const suffix = code ? ` [${code}]` : '';
  return new ModelError('RESPONSE_FAILED', `The provider failed the response: ${text}${suffix}`, { cause });
}

/**
 * Map an error thrown while sending the request (before any response body was read).
 * Errors already mapped pass through; a caller abort always reports ABORTED.
 */
export function mapSdkError(error: unknown, context: ErrorContext): ModelError {
  if (context.signal?.aborted) return isModelError(error) && error.code === 'ABORTED' ? error : abortedError(error);
  if (isModelError(error)) return error;
  if (context.timedOut || error instanceof APIConnectionTimeoutError) return timeoutError(context, error);
  if (error instanceof APIUserAbortError) return abortedError(error);
  if (error instanceof APIConnectionError) {
    return new ModelError(
      'CONNECTION_FAILED',
      `Could not connect to ${context.baseURL}: ${describeCause(error.cause ?? error)}. Check --base-url and that the server is reachable.`,
      { retryable: true, cause: error },
    );
  }
  if (error instanceof APIError) {
    if (typeof error.status === 'number') return fromStatus(error, error.status, context);
    const code = typeof error.code === 'string' ? error.code : null;
    return streamFailureError(providerMessage(error), code, error);
  }
  if (error instanceof SyntaxError) {
    return new ModelError('MALFORMED_STREAM', `The provider sent a response that is not valid JSON: ${error.message}`, {
      cause: error,
    });
  }
  return new ModelError(
    'CONNECTION_FAILED',
    `Request to ${context.baseURL} failed: ${describeCause(error)}. Check --base-url and that the server is reachable.`,
    { retryable: true, cause: error },
  );
}

/**
 * Map an error thrown while reading an open stream. `yielded` says whether the caller has
 * already seen events: if so the round is broken for good (not retryable); if not, a broken
 * connection is as safe to retry as a refused one.
 */
export function mapStreamError(error: unknown, context: ErrorContext, yielded: boolean): ModelError {
  if (context.signal?.aborted) return abortedError(error);
  if (isModelError(error)) return error;
  if (context.timedOut) return yielded ? stalledError(context, error) : timeoutError(context, error);
  if (error instanceof SyntaxError) {
    return new ModelError('MALFORMED_STREAM', `The provider sent a stream event that is not valid JSON: ${error.message}`, {
      cause: error,
    });
  }
  if (error instanceof APIError && !(error instanceof APIConnectionError) && error.status === undefined) {
    return mapSdkError(error, context);
  }
  return new ModelError(
    'STREAM_INTERRUPTED',
    `The stream from ${context.baseURL} broke off: ${describeCause(error)}`,
    { cause: error, retryable: !yielded },
  );
}
