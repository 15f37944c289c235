import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { errorBodyFor, keepErrorBodies, MAX_ERROR_BODY_BYTES } from '../../src/model/error-body.js';

function fakeFetch(status: number, body: string | ReadableStream<Uint8Array>, headers: Record<string, string> = {}) {
  return async (): Promise<Response> => new Response(body, { status, headers });
}

describe('keepErrorBodies', () => {
  it('keeps an error body by the headers the SDK will see, and hands on an identical copy', async () => {
    const fetch = keepErrorBodies(fakeFetch(400, '[{"error":{"message":"nope"}}]', { 'content-type': 'application/json' }));
    const response = await fetch('http://x');
    assert.equal(response.status, 400);
    assert.equal(errorBodyFor(response.headers), '[{"error":{"message":"nope"}}]');
    assert.equal(await response.text(), '[{"error":{"message":"nope"}}]');
    assert.equal(response.headers.get('content-type'), 'application/json');
  });

  it('leaves successful answers alone', async () => {
    const original = new Response('ok', { status: 200 });
    const response = await keepErrorBodies(async () => original)('http://x');
    assert.equal(response, original);
    assert.equal(errorBodyFor(response.headers), null);
  });

  it('reads no more than the bound and cancels the rest', async () => {
    let pulled = 0;
    let cancelled = false;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(16 * 1024).fill(0x61));
      },
      cancel() {
        cancelled = true;
      },
    });
    const response = await keepErrorBodies(fakeFetch(500, endless))('http://x');
    assert.equal(errorBodyFor(response.headers)?.length, MAX_ERROR_BODY_BYTES);
    assert.ok(cancelled, 'the rest of the body was not cancelled');
    assert.ok(pulled <= MAX_ERROR_BODY_BYTES / (16 * 1024) + 2, `pulled ${pulled} chunks`);
  });

  it('keeps what arrived when the connection breaks mid-body', async () => {
    let sent = false;
    const broken = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent) controller.error(new TypeError('terminated'));
        else controller.enqueue(new TextEncoder().encode('partial body'));
        sent = true;
      },
    });
    const response = await keepErrorBodies(fakeFetch(502, broken))('http://x');
    assert.equal(errorBodyFor(response.headers), 'partial body');
  });

  it('keeps concurrent answers apart', async () => {
    let n = 0;
    const fetch = keepErrorBodies(async () => new Response(`body ${++n}`, { status: 503 }));
    const [a, b] = await Promise.all([fetch('http://x'), fetch('http://x')]);
    assert.deepEqual([errorBodyFor(a.headers), errorBodyFor(b.headers)].sort(), ['body 1', 'body 2']);
  });
});
