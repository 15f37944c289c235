// The byte bound under the SDK: an SSE event is counted from one blank line to the next, whatever
// the line endings (and however the bytes are split into chunks), and a plain body in total.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { boundedFetch } from '../../src/model/bounded-fetch.js';
import { ModelError } from '../../src/model/index.js';

function responseOf(chunks: string[], init: ResponseInit & { contentType?: string } = {}): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
  return new Response(body, { status: init.status ?? 200, headers: { 'content-type': init.contentType ?? 'text/event-stream' } });
}

function fetchOf(response: Response, maxBytes: number) {
  return boundedFetch(
    maxBytes,
    (unit) => new ModelError('RESPONSE_TOO_LARGE', `too large: ${unit}`),
    async () => response,
  );
}

async function read(response: Response): Promise<string> {
  return response.text();
}

describe('boundedFetch', () => {
  it('lets through a stream of many events each under the bound, whatever the line endings', async () => {
    const events = ['data: 12345\n\n', 'data: 12345\r\n\r\n', 'data: 12345\r\r', 'event: x\ndata: 1234\n\n'];
    // Split mid-terminator too: a CRLF pair across chunks still ends one line, not two.
    const chunks = events.join('').match(/.{1,3}/gs) ?? [];
    const response = await fetchOf(responseOf(chunks), 20)('http://x');
    assert.equal(await read(response), events.join(''));
  });

  it('errors a stream as soon as one event passes the bound', async () => {
    const response = await fetchOf(responseOf(['data: 1\n\n', 'data: 12345', '67890', '12345\n\n']), 16)('http://x');
    await assert.rejects(read(response), /too large: event/);
    // Lines of one event add up: no blank line between them, so they are one event.
    const lines = await fetchOf(responseOf(['data: 12345\n', 'data: 12345\n', 'data: 12345\n\n']), 20)('http://x');
    await assert.rejects(read(lines), /too large: event/);
  });

  it('bounds any other body in total, keeps status, headers and url, and leaves bodiless answers alone', async () => {
    const original = responseOf(['{"a":', '"1234567890"}'], { contentType: 'application/json', status: 500 });
    Object.defineProperty(original, 'url', { value: 'http://x/v1/responses' });
    const json = await fetchOf(original, 10)('http://x');
    assert.equal(json.status, 500);
    assert.equal(json.url, 'http://x/v1/responses');
    assert.equal(json.headers.get('content-type'), 'application/json');
    await assert.rejects(read(json), /too large: body/);
    const small = await fetchOf(responseOf(['{}'], { contentType: 'application/json' }), 10)('http://x');
    assert.equal(await read(small), '{}');
    const empty = new Response(null, { status: 204 });
    assert.equal(await fetchOf(empty, 10)('http://x'), empty);
  });

  it('hands the fetch below a non-ASCII string body as its UTF-8 bytes (no two-byte string reaches undici), an ASCII one and other bodies as they are', async () => {
    const seen: Array<RequestInit['body']> = [];
    const fetch = boundedFetch(
      1_000,
      () => new ModelError('RESPONSE_TOO_LARGE', 'too large'),
      async (_input, init) => {
        seen.push(init?.body);
        return new Response('ok');
      },
    );
    const text = JSON.stringify({ content: 'naïve — 日本語 \ud83d\ude00' });
    await (await fetch('http://x', { method: 'POST', body: text })).text();
    const stream = new ReadableStream<Uint8Array>();
    await (await fetch('http://x', { method: 'POST', body: stream })).text();
    await (await fetch('http://x')).text();
    const ascii = JSON.stringify({ content: 'plain \\u00e9 ascii' });
    await (await fetch('http://x', { method: 'POST', body: ascii })).text();
    const latin1 = JSON.stringify({ content: 'caf\u00e9' });
    await (await fetch('http://x', { method: 'POST', body: latin1 })).text();
    assert.ok(seen[0] instanceof Uint8Array, 'a string body is encoded');
    assert.equal(new TextDecoder().decode(seen[0]), text);
    assert.equal(seen[1], stream);
    assert.equal(seen[2], undefined);
    // undici encodes a one-byte string in one pass; bytes it would copy once more.
    assert.equal(seen[3], ascii, 'an ASCII body is handed on as the same string');
    assert.ok(seen[4] instanceof Uint8Array, 'a Latin-1 character is not ASCII: encoded here');
    assert.equal(new TextDecoder().decode(seen[4]), latin1);
  });

  it('closes the source when the bound trips or the reader cancels, and passes a source error on as it is', async () => {
    // An endless source that records its cancel: the connection of a real answer.
    const source = () => {
      const seen: { reason?: unknown; cancelled: boolean } = { cancelled: false };
      const encoder = new TextEncoder();
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          controller.enqueue(encoder.encode('data: 1234567890'));
        },
        cancel(reason) {
          seen.cancelled = true;
          seen.reason = reason;
        },
      });
      return { seen, response: new Response(body, { headers: { 'content-type': 'text/event-stream' } }) };
    };
    const tripped = source();
    await assert.rejects(read(await fetchOf(tripped.response, 100)('http://x')), /too large: event/);
    assert.equal(tripped.seen.cancelled, true, 'the bound left the connection open');
    assert.match(String(tripped.seen.reason), /too large: event/);

    const dropped = source();
    const reader = (await fetchOf(dropped.response, 1_000_000)('http://x')).body!.getReader();
    await reader.read();
    await reader.cancel('the caller stopped');
    assert.deepEqual(dropped.seen, { cancelled: true, reason: 'the caller stopped' });

    const failing = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.error(new TypeError('terminated'));
      },
    });
    const broken = await fetchOf(new Response(failing, { headers: { 'content-type': 'text/event-stream' } }), 100)('http://x');
    await assert.rejects(read(broken), (error: unknown) => error instanceof TypeError && error.message === 'terminated');
  });
});
