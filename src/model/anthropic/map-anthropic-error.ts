// Turns whatever the Anthropic SDK threw into a `ModelError`, with the same codes and retry facts
// the OpenAI dialects give (the HTTP statuses through the shared classifier in provider-error.ts),
// from Anthropic's own error shape:
// `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":…}`.
// Cancels, our silence timers and errors that are not the SDK's (a size limit, a broken socket)
// are left to the shared mapping, so they read the same on every wire.

import type { APIError } from '@anthropic-ai/sdk';
import { abortedError, formatDuration, mapSdkError, mapStreamError, timeoutError, type ErrorContext } from '../map-sdk-error.js';
import { ModelError, isModelError } from '../model-error.js';
import { classifyProviderError, classifyStreamFailure, readProviderError } from '../provider-error.js';
import type { ErrorMapping } from '../run-call.js';
import { loadedAnthropicSdk } from './anthropic-sdk.js';

/** The body as the SDK parsed it (the whole `{"type":"error","error":{…}}`), else its text. */
function providerBody(error: APIError): unknown {
  if (error.error !== undefined && error.error !== null) return error.error;
  return error.message.replace(/^\d{3}\s+/, '');
}

/** The provider's own words from an error object, without the status prefix the SDK adds. */
function providerMessage(error: APIError): string {
  if (typeof error.apiMessage === 'string' && error.apiMessage !== '') return error.apiMessage;
  return readProviderError(providerBody(error)).message || error.message.replace(/^\d{3}\s+/, '') || '(no message)';
}

function errorType(error: APIError): string | null {
  return typeof error.type === 'string' ? error.type : null;
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

/**
 * An HTTP error status from the API. What it means (code, retry, wait) is decided by the one
 * classifier every dialect uses (provider-error.ts, checked against real Anthropic bodies); the
 * messages here name Anthropic's key variable and error type.
 */
function fromStatus(error: APIError, status: number, context: ErrorContext): ModelError {
  const facts = classifyProviderError({ status, body: providerBody(error), headers: error.headers });
  const message = facts.message === '' ? `no error message in the ${status} answer` : facts.message;
  const type = errorType(error);
  const label = type === null ? `${status}` : `${status} ${type}`;
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
        `Authentication failed (${label}) at ${at}: ${sentence(message)} Check the API key (ANTHROPIC_API_KEY) and that it may use this model.`,
        base,
      );
    case 'NOT_FOUND':
      return new ModelError('NOT_FOUND', `Not found (${label}) at ${at}: ${sentence(message)} Check --base-url and the model name.`, base);
    case 'CONTEXT_OVERFLOW':
      return new ModelError('CONTEXT_OVERFLOW', `The request does not fit the model's context window (${label}): ${message}`, base);
    case 'QUOTA_EXCEEDED':
      return new ModelError(
        'QUOTA_EXCEEDED',
        `Out of quota or credit (${label}) at ${at}: ${sentence(message)} Add credit or raise the limit with Anthropic; retrying will not help.`,
        base,
      );
    case 'PROVIDER_MISCONFIGURED':
      return new ModelError('PROVIDER_MISCONFIGURED', `The server at ${at} is not set up for this request (${label}): ${message}`, base);
    case 'CONTENT_FILTERED':
      return new ModelError('CONTENT_FILTERED', `The provider's content filter refused the prompt (${label}): ${message}`, base);
    case 'RATE_LIMITED':
      return new ModelError('RATE_LIMITED', `Rate limited (${label}) by ${at}: ${message}${waited}`, base);
    case 'CONNECTION_FAILED':
      return new ModelError('CONNECTION_FAILED', `The provider timed out the request (${label}): ${message}`, base);
    case 'SERVER_ERROR':
      if (status === 529 || type === 'overloaded_error') {
        return new ModelError('SERVER_ERROR', `The provider is overloaded (${label}) at ${at}: ${message}${waited}`, base);
      }
      return new ModelError('SERVER_ERROR', `Provider server error (${label}) at ${at}: ${message}${waited}`, base);
    default:
      return new ModelError('BAD_REQUEST', `The provider rejected the request (${label}): ${message}`, base);
  }
}

/**
 * An `event: error` inside an open stream (the SDK throws it as an APIError without a status).
 * Its `type` says what an HTTP status would have: `overloaded_error` is a 529 that came after the
 * 200, retryable as long as nothing reached the caller; `api_error` is the provider failing the
 * response, reported like a failed response on the other wires.
 */
export function streamErrorEvent(type: string | null, message: string, yielded: boolean, cause?: unknown): ModelError {
  const text = message === '' ? '(no message)' : message;
  const suffix = type === null ? '' : ` [${type}]`;
  const kind = classifyStreamFailure(`${type ?? ''} ${text}`);
  if (kind === 'CONTEXT_OVERFLOW')
    return new ModelError('CONTEXT_OVERFLOW', `The request does not fit the model's context window: ${text}`, { cause });
  if (kind === 'PROVIDER_MISCONFIGURED')
    return new ModelError('PROVIDER_MISCONFIGURED', `The server is not set up for this request: ${text}`, { cause });
  if (type === 'overloaded_error') {
    return new ModelError('SERVER_ERROR', `The provider is overloaded: ${text}${suffix}`, { retryable: !yielded, cause });
  }
  if (type === 'rate_limit_error') return new ModelError('RATE_LIMITED', `Rate limited: ${text}${suffix}`, { retryable: !yielded, cause });
  if (type === 'authentication_error' || type === 'permission_error') {
    return new ModelError('AUTH_FAILED', `Authentication failed: ${text}${suffix}. Check the API key (ANTHROPIC_API_KEY).`, { cause });
  }
  if (type === 'billing_error') return new ModelError('QUOTA_EXCEEDED', `Out of quota or credit: ${text}${suffix}`, { cause });
  if (type === 'invalid_request_error')
    return new ModelError('BAD_REQUEST', `The provider rejected the request: ${text}${suffix}`, { cause });
  return new ModelError('RESPONSE_FAILED', `The provider failed the response: ${text}${suffix}`, { cause });
}

/** Errors thrown while sending the request, before any of the answer was read. */
export function mapAnthropicRequestError(error: unknown, context: ErrorContext): ModelError {
  const sdk = loadedAnthropicSdk();
  if (context.signal?.aborted || context.timedOut || isModelError(error) || sdk === null) return mapSdkError(error, context);
  if (error instanceof sdk.APIUserAbortError) return abortedError(error);
  if (error instanceof sdk.APIConnectionTimeoutError) return timeoutError(context, error);
  if (error instanceof sdk.APIConnectionError) {
    return new ModelError(
      'CONNECTION_FAILED',
      `Could not connect to ${context.baseURL}: ${describeCause(error.cause ?? error)}. Check --base-url and that the server is reachable.`,
      { retryable: true, cause: error },
    );
  }
  if (error instanceof sdk.APIError) {
    if (typeof error.status === 'number') return fromStatus(error, error.status, context);
    return streamErrorEvent(errorType(error), providerMessage(error), false, error);
  }
  return mapSdkError(error, context);
}

/** Errors thrown while reading an open stream; `yielded` says whether the caller saw events yet. */
export function mapAnthropicStreamError(error: unknown, context: ErrorContext, yielded: boolean): ModelError {
  const sdk = loadedAnthropicSdk();
  if (context.signal?.aborted || context.timedOut || isModelError(error) || sdk === null) return mapStreamError(error, context, yielded);
  if (error instanceof sdk.APIError && !(error instanceof sdk.APIConnectionError) && error.status === undefined) {
    return streamErrorEvent(errorType(error), providerMessage(error), yielded, error);
  }
  return mapStreamError(error, context, yielded);
}

export const ANTHROPIC_ERROR_MAPPING: ErrorMapping = { request: mapAnthropicRequestError, stream: mapAnthropicStreamError };
