// Turns whatever the OpenAI SDK (or fetch underneath it) threw into a `ModelError` with a stable
// code, a message that names the cause and the fix, and the retry facts the backoff needs. The
// SDK's classes stay inside `model/`; callers only ever see `ModelError`.

import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { errorBodyFor } from './error-body.js';
import { ModelError, isModelError } from './model-error.js';
import { classifyProviderError, classifyStreamFailure, readProviderError } from './provider-error.js';

// Recognition lives in provider-error.ts; these stay importable from here for the other dialects.
export { looksLikeContextOverflow, MAX_RETRY_AFTER_MS, parseRetryAfter } from './provider-error.js';

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

/**
 * What the provider sent: the raw body our fetch kept (error-body.ts), else what the SDK parsed
 * (its `error` field, which is all it keeps), else its message without the status prefix it adds.
 */
function providerBody(error: APIError): unknown {
  const raw = errorBodyFor(error.headers);
  if (raw !== null) return raw;
  if (error.error !== undefined && error.error !== null) return { error: error.error };
  return error.message.replace(/^\d{3}\s+/, '');
}

/** End a message with one full stop before another sentence follows it. */
function sentence(text: string): string {
  return /[.!?…]$/.test(text) ? text : `${text}.`;
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
  const facts = classifyProviderError({ status, body: providerBody(error), headers: error.headers });
  const message = facts.message === '' ? `no error message in the ${status} answer` : facts.message;
  const base = { status, cause: error, retryAfterMs: facts.retryAfterMs, retryable: facts.retryable };
  const waited =
    facts.requestedWaitMs === null
      ? ''
      : ` The provider asked to wait ${formatDuration(facts.requestedWaitMs)}, longer than a retry waits; not retrying.`;
  const at = context.baseURL;
  switch (facts.code) {
    case 'AUTH_FAILED':
      return new ModelError(
        'AUTH_FAILED',
        `Authentication failed (${status}) at ${at}: ${sentence(message)} Check the API key (e.g. OPENAI_API_KEY) and that it may use this model.`,
        base,
      );
    case 'NOT_FOUND':
      return new ModelError('NOT_FOUND', `Not found (${status}) at ${at}: ${sentence(message)} Check --base-url and the model name.`, base);
    case 'CONTEXT_OVERFLOW':
      return new ModelError('CONTEXT_OVERFLOW', `The request does not fit the model's context window (${status}): ${message}`, base);
    case 'QUOTA_EXCEEDED':
      return new ModelError(
        'QUOTA_EXCEEDED',
        `Out of quota or credit (${status}) at ${at}: ${sentence(message)} Add credit or raise the limit with the provider; retrying will not help.`,
        base,
      );
    case 'PROVIDER_MISCONFIGURED':
      return new ModelError(
        'PROVIDER_MISCONFIGURED',
        `The server at ${at} is not set up for this request (${status}): ${sentence(message)} Change the server's configuration (the setting it names) and run again.`,
        base,
      );
    case 'CONTENT_FILTERED':
      return new ModelError('CONTENT_FILTERED', `The provider's content filter refused the prompt (${status}): ${message}`, base);
    case 'RATE_LIMITED':
      return new ModelError('RATE_LIMITED', `Rate limited (${status}) by ${at}: ${message}${waited}`, base);
    case 'CONNECTION_FAILED':
      return new ModelError('CONNECTION_FAILED', `The provider timed out the request (${status}): ${message}`, base);
    case 'SERVER_ERROR':
      if (status === 409) return new ModelError('SERVER_ERROR', `The provider reported a conflict (409): ${message}`, base);
      return new ModelError('SERVER_ERROR', `Provider server error (${status}) at ${at}: ${message}${waited}`, base);
    default:
      return new ModelError('BAD_REQUEST', `The provider rejected the request (${status}): ${message}`, base);
  }
}

/**
 * An error object the provider put inside an open stream (Chat `{"error": …}` chunk, Responses
 * `error` event or `response.failed`). The request was accepted, so this is the provider's own
 * failure, except that some providers report an oversized prompt this way.
 */
export function streamFailureError(message: string, code: string | null, cause?: unknown): ModelError {
  const text = message === '' ? '(no message)' : message;
  const kind = classifyStreamFailure(`${code ?? ''} ${text}`);
  if (kind === 'CONTEXT_OVERFLOW') {
    return new ModelError('CONTEXT_OVERFLOW', `The request does not fit the model's context window: ${text}`, { cause });
  }
  if (kind === 'PROVIDER_MISCONFIGURED') {
    return new ModelError(
      'PROVIDER_MISCONFIGURED',
      `The server is not set up for this request: ${sentence(text)} Change the server's configuration (the setting it names) and run again.`,
      { cause },
    );
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
    // An error object inside the stream (Chat's {"error": …} chunk); OpenRouter nests the upstream's there too.
    const code = typeof error.code === 'string' ? error.code : null;
    const inStream = readProviderError(providerBody(error)).message || error.message.replace(/^\d{3}\s+/, '');
    return streamFailureError(inStream, code, error);
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
  return new ModelError('STREAM_INTERRUPTED', `The stream from ${context.baseURL} broke off: ${describeCause(error)}`, {
    cause: error,
    retryable: !yielded,
  });
}
