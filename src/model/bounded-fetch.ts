// The fetch the SDK client uses: the platform's, with a byte bound on what one answer can make the
// SDK hold. The SDK reads a whole SSE event (or a whole non-streamed body) before we see any of it,
// and re-copies an event's buffer each time another piece of it arrives, so one enormous event
// would cost unbounded memory and quadratic time before the size limits of response-limits.ts got
// a look. Counting bytes on the way in stops such a body at the bound instead. The MCP client's
// Streamable HTTP transport has the same shape of problem and uses it too.

export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * Loads the platform's fetch now rather than on its first call. Node loads its fetch (undici and
 * the internals it needs) lazily, ~40 ms of compiling on the main thread; a caller that is about
 * to wait on something else (the environment block's `git status` in the sandbox, before a
 * session's first request) can have that done in the wait. Touching one of the classes Node
 * defines beside `fetch` loads the same module `fetch` loads on its first call.
 */
export function loadFetch(): void {
  void globalThis.Headers;
}

/** Statuses whose responses cannot carry a body, so they cannot be rebuilt with one. */
const BODILESS_STATUSES = new Set([101, 103, 204, 205, 304]);

const LF = 0x0a;
const CR = 0x0d;

/**
 * Counts the bytes of the current SSE event: everything since the last blank line, which ends an
 * event whether lines end in LF, CRLF or CR. Jumps from line break to line break with the native
 * `indexOf`, so the bytes in between cost nothing each: this sees every byte of every answer.
 */
class EventBytes {
  private event = 0;
  private line = 0;
  private afterCR = false;

  /** The largest size any event reached while `chunk` was counted (one may end inside it). */
  add(chunk: Uint8Array): number {
    let peak = this.event;
    let nextLF = chunk.indexOf(LF);
    let nextCR = chunk.indexOf(CR);
    let at = 0;
    for (;;) {
      const end = nextLF === -1 ? nextCR : nextCR === -1 ? nextLF : Math.min(nextLF, nextCR);
      const content = (end === -1 ? chunk.length : end) - at;
      if (content > 0) {
        this.line += content;
        this.event += content;
        this.afterCR = false;
      }
      if (end === -1) break;
      if (chunk[end] === LF && this.afterCR) {
        // The LF of a CRLF: the CR already ended the line.
        this.afterCR = false;
      } else {
        this.afterCR = chunk[end] === CR;
        if (this.line === 0) {
          peak = Math.max(peak, this.event);
          this.event = 0;
        } else {
          this.event++;
          this.line = 0;
        }
      }
      at = end + 1;
      if (end === nextLF) nextLF = chunk.indexOf(LF, at);
      if (end === nextCR) nextCR = chunk.indexOf(CR, at);
    }
    return Math.max(peak, this.event);
  }
}

/**
 * The SDKs hand fetch the request as a JSON string. Once any character in it is outside Latin-1
 * (a user's prompt, a tool's output) V8 holds the whole body as a two-byte string, and undici then
 * scans it for lone surrogates and copies it before encoding — on every request, over the whole
 * history. Encoding such a body here once, natively, gives undici bytes. An ASCII body stays a
 * string: undici encodes a one-byte string in one pass, while bytes handed to it are copied once
 * more (a 10 MB history paid ~80 ms a round for that copy). `byteLength` equals `length` exactly
 * when every character is ASCII, and counts without allocating.
 */
export function encodedBody(init: RequestInit | undefined): RequestInit | undefined {
  if (init === undefined || typeof init.body !== 'string') return init;
  if (Buffer.byteLength(init.body, 'utf8') === init.body.length) return init;
  return { ...init, body: Buffer.from(init.body, 'utf8') };
}

/**
 * Wrap `inner` so a streamed response errors as soon as one event passes `maxBytes`, and any other
 * body as soon as it does in total. The error comes from `tooLarge` and reaches the caller as it
 * is; erroring the body also cancels it, which closes the connection.
 */
export function boundedFetch(maxBytes: number, tooLarge: (unit: 'event' | 'body') => Error, inner: Fetch = globalThis.fetch): Fetch {
  return async (input, init) => {
    const response = await inner(input, encodedBody(init));
    if (response.body === null || BODILESS_STATUSES.has(response.status)) return response;
    const streaming = (response.headers.get('content-type') ?? '').includes('text/event-stream');
    const events = new EventBytes();
    let total = 0;
    // A pull source over the body's own reader rather than `pipeThrough` a TransformStream: the
    // pipe machinery costs several promises per chunk (~2.5 µs each, ~150 µs a 60-chunk answer),
    // this one read. Erroring here must cancel the source itself, which closes the connection.
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) {
          controller.close();
          return;
        }
        total += value.length;
        if (streaming ? events.add(value) > maxBytes : total > maxBytes) {
          const error = tooLarge(streaming ? 'event' : 'body');
          controller.error(error);
          await reader.cancel(error).catch(() => undefined);
          return;
        }
        controller.enqueue(value);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    });
    const bounded = new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
    // The SDK puts the URL into its error objects and debug logs.
    Object.defineProperty(bounded, 'url', { value: response.url });
    return bounded;
  };
}
