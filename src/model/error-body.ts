// Keeps the raw body of every error answer for the error mapping. The OpenAI SDK parses an error
// body itself and keeps only what fits OpenAI's {"error":{…}} envelope, so Google's JSON array,
// old vLLM's top-level message or a proxy's HTML page reach the caller as "status code (no body)".
// This fetch wrapper reads a non-2xx body first (bounded: a provider can send anything), hands the
// SDK an identical copy, and remembers the text by the copy's Headers object, which the SDK puts
// on the APIError it throws. No other state, so concurrent calls on one client cannot mix bodies.

import type { Fetch } from './bounded-fetch.js';

/** More than any real error message needs; the rest of a larger body is not read. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;

const BODILESS_STATUSES = new Set([101, 103, 204, 205, 304]);

const bodies = new WeakMap<object, string>();

/** The raw error body kept for the response these headers came with, or null. */
export function errorBodyFor(headers: unknown): string | null {
  return typeof headers === 'object' && headers !== null ? (bodies.get(headers) ?? null) : null;
}

/** Up to `maxBytes` of a body as text; stops reading (and cancels the rest) once it has them. */
async function readPrefix(body: ReadableStream<Uint8Array>, maxBytes: number, signal: AbortSignal | null | undefined): Promise<string> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    while (total < maxBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      const room = maxBytes - total;
      const chunk = value.length > room ? value.subarray(0, room) : value;
      chunks.push(chunk);
      total += chunk.length;
    }
  } catch (error) {
    // A cancel or our own timeout is the caller's business; a connection cut mid-body still leaves what arrived.
    if (signal?.aborted) throw error;
  } finally {
    reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return new TextDecoder().decode(bytes);
}

/** Wrap `inner` so every error answer's body (its first MAX_ERROR_BODY_BYTES) is kept for errorBodyFor. */
export function keepErrorBodies(inner: Fetch, maxBytes: number = MAX_ERROR_BODY_BYTES): Fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    if (response.ok || response.status < 400 || BODILESS_STATUSES.has(response.status)) return response;
    const text = response.body === null ? '' : await readPrefix(response.body, maxBytes, init?.signal);
    // The text is what fetch decoded, so the original length and encoding no longer describe it.
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    headers.delete('content-encoding');
    const copy = new Response(text, { status: response.status, statusText: response.statusText, headers });
    // The SDK puts the URL into its error objects and debug logs.
    Object.defineProperty(copy, 'url', { value: response.url });
    bodies.set(copy.headers, text);
    return copy;
  };
}
