// The attempt logic every dialect shares: one SDK call under a CallScope, every failure mapped to
// a ModelError, and for streams the bookkeeping of whether anything reached the caller yet
// (which decides whether a broken stream may be retried).

import { CallScope } from './call-scope.js';
import type { ModelStreamEvent } from './ir.js';
import { abortedError, mapSdkError, mapStreamError, type ErrorContext } from './map-sdk-error.js';
import { ModelError } from './model-error.js';

/** How one SDK's errors become ModelErrors: while sending the request, and while reading a stream. */
export interface ErrorMapping {
  request(error: unknown, context: ErrorContext): ModelError;
  stream(error: unknown, context: ErrorContext, yielded: boolean): ModelError;
}

/** The OpenAI SDK's mapping, used by both OpenAI dialects. */
export const OPENAI_ERROR_MAPPING: ErrorMapping = { request: mapSdkError, stream: mapStreamError };

export interface AttemptSettings {
  signal: AbortSignal | undefined;
  timeoutMs: number;
  /** Stream silence limits: before the first event reaches the caller, and after. */
  streamStartTimeoutMs: number;
  streamIdleTimeoutMs: number;
  baseURL: string;
  /** Omitted: the OpenAI SDK's mapping. A dialect on another SDK brings its own. */
  errors?: ErrorMapping;
}

/** Converts one dialect's wire chunks into IR events. */
export interface StreamMapper<Chunk> {
  push(chunk: Chunk): ModelStreamEvent[];
  /** The provider signalled the end of the message; `finish` may be called. */
  readonly complete: boolean;
  /** Nothing more is needed from the wire (the terminal event was already mapped). */
  readonly ended: boolean;
  /** Closing events after the wire stream ended; throws if the message is not complete. */
  finish(): ModelStreamEvent[];
}

/**
 * Whether an event is progress. An empty delta is not: a provider or a proxy that keeps a stream
 * alive with frames that carry nothing (empty deltas, `ping`, a repeated `in_progress`) would
 * otherwise hold a broken call open forever, so the silence limits count content, not chunks.
 */
function carriesContent(event: ModelStreamEvent): boolean {
  switch (event.type) {
    case 'text-delta':
    case 'reasoning-delta':
    case 'tool-call-delta':
      return event.delta !== '';
    default:
      return true;
  }
}

/** One non-streaming attempt: `call` gets the signal to hand the SDK. */
export async function runCall<T>(settings: AttemptSettings, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const { timeoutMs } = settings;
  const timeouts = { requestTimeoutMs: timeoutMs, startMs: timeoutMs, idleMs: timeoutMs, stream: false };
  const scope = new CallScope(settings.signal, timeouts, settings.baseURL);
  const errors = settings.errors ?? OPENAI_ERROR_MAPPING;
  try {
    if (scope.cancelled) throw abortedError(settings.signal?.reason);
    return await call(scope.signal);
  } catch (error) {
    throw errors.request(error, scope.errorContext());
  } finally {
    scope.dispose();
  }
}

/**
 * One streaming attempt. `open` sends the request and resolves with the wire stream once the
 * provider accepted it; errors there are request errors (status codes, refused connections).
 * Errors while reading are stream errors, retryable only while nothing was yielded.
 */
export async function* runStream<Chunk>(
  settings: AttemptSettings,
  open: (signal: AbortSignal) => Promise<AsyncIterable<Chunk>>,
  mapper: StreamMapper<Chunk>,
): AsyncGenerator<ModelStreamEvent, void, undefined> {
  const timeouts = {
    requestTimeoutMs: settings.timeoutMs,
    startMs: settings.streamStartTimeoutMs,
    idleMs: settings.streamIdleTimeoutMs,
    stream: true,
  };
  const scope = new CallScope(settings.signal, timeouts, settings.baseURL);
  const errors = settings.errors ?? OPENAI_ERROR_MAPPING;
  let yielded = false;
  try {
    let stream: AsyncIterable<Chunk>;
    try {
      if (scope.cancelled) throw abortedError(settings.signal?.reason);
      stream = await open(scope.signal);
    } catch (error) {
      throw errors.request(error, scope.errorContext());
    }
    // Headers arrived: the provider took the request; the wait for its first content starts now.
    scope.touch();
    try {
      // Leaving this loop early (a mapper error, e.g. a size limit; the caller stopping) makes the
      // SDK abort the request, so the connection closes instead of being read to its end.
      for await (const chunk of stream) {
        // Only content resets the silence timer and reaches the caller; a chunk that maps to
        // nothing, or to an empty delta, is a keepalive.
        for (const event of mapper.push(chunk)) {
          if (!carriesContent(event)) continue;
          scope.touch();
          if (!yielded) scope.answerStarted();
          yielded = true;
          yield event;
        }
        if (mapper.ended) return;
      }
    } catch (error) {
      throw errors.stream(error, scope.errorContext(), yielded);
    }
    // The SDK ends a stream quietly when its signal aborts, so a clean end may still be a cancel
    // or one of our silence timeouts.
    if (scope.cancelled) throw abortedError(settings.signal?.reason);
    if (scope.timedOut) throw errors.stream(new Error('stream timed out'), scope.errorContext(), yielded);
    if (!mapper.complete) {
      throw new ModelError('STREAM_INTERRUPTED', `The stream from ${settings.baseURL} ended before the response was complete.`, {
        retryable: !yielded,
      });
    }
    for (const event of mapper.finish()) {
      yielded = true;
      yield event;
    }
  } finally {
    scope.dispose();
  }
}
