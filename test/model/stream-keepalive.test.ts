// The silence limits count content, not chunks: a provider (or a proxy in front of one) that keeps
// a stream open with frames that carry nothing (empty deltas, `ping`, repeated `in_progress`) must
// still hit the idle timeout, or a broken call stays open forever. A raw loopback HTTP server
// writes the wire API's real frame shapes through the real SDK; the limits are tiny and nothing
// asserts how long anything took.

import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import { createGateway, isModelError, WIRE_APIS, type ModelStreamEvent, type WireApi } from '../../src/model/index.js';

const SHORT_TIMEOUT_MS = 300;
/** Only a guard against the old behaviour (a call that never ends) hanging the suite. */
const HANG_GUARD = { timeout: 60_000 };

interface Frames {
  /** Sent once: the opening frames, with one text delta "Hi" unless `contentFirst` is false. */
  opening: string[];
  /** Sent every few milliseconds until the client goes away: frames without content. */
  keepalive: (n: number) => string;
}

const sse = (data: unknown, event?: string): string => `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;

function framesFor(wireApi: WireApi, contentFirst: boolean): Frames {
  switch (wireApi) {
    case 'chat': {
      const chunk = (delta: Record<string, unknown>) => ({
        id: 'chatcmpl-1',
        object: 'chat.completion.chunk',
        created: 0,
        model: 'm',
        choices: [{ index: 0, delta, finish_reason: null }],
      });
      return {
        opening: [sse(chunk({ role: 'assistant', content: '' })), ...(contentFirst ? [sse(chunk({ content: 'Hi' }))] : [])],
        keepalive: () => sse(chunk({ content: '' })),
      };
    }
    case 'responses': {
      const response = { id: 'resp_1', object: 'response', created_at: 0, status: 'in_progress', model: 'm', output: [] };
      const delta = (text: string, n: number) => ({
        type: 'response.output_text.delta',
        item_id: 'msg_1',
        output_index: 0,
        content_index: 0,
        delta: text,
        sequence_number: n,
      });
      return {
        opening: [
          sse({ type: 'response.created', response, sequence_number: 0 }, 'response.created'),
          sse(
            {
              type: 'response.output_item.added',
              output_index: 0,
              item: { id: 'msg_1', type: 'message', role: 'assistant', status: 'in_progress', content: [] },
              sequence_number: 1,
            },
            'response.output_item.added',
          ),
          ...(contentFirst ? [sse(delta('Hi', 2), 'response.output_text.delta')] : []),
        ],
        // Alternating: an empty text delta and a repeated in_progress.
        keepalive: (n) =>
          n % 2 === 0
            ? sse(delta('', n + 3), 'response.output_text.delta')
            : sse({ type: 'response.in_progress', response, sequence_number: n + 3 }, 'response.in_progress'),
      };
    }
    case 'anthropic': {
      const message = {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'm',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 0 },
      };
      const text = (piece: string) => ({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } });
      return {
        opening: [
          sse({ type: 'message_start', message }, 'message_start'),
          sse({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, 'content_block_start'),
          ...(contentFirst ? [sse(text('Hi'), 'content_block_delta')] : []),
        ],
        // Anthropic's own keepalive, and an empty text delta.
        keepalive: (n) => (n % 2 === 0 ? sse({ type: 'ping' }, 'ping') : sse(text(''), 'content_block_delta')),
      };
    }
  }
}

interface KeepaliveServer {
  baseURL: string;
  /** Resolves with the number of keepalive frames written once the client closed the connection. */
  clientGone: Promise<number>;
  close(): Promise<void>;
}

async function keepaliveServer(frames: Frames): Promise<KeepaliveServer> {
  let gone: (written: number) => void = () => {};
  const clientGone = new Promise<number>((resolve) => (gone = resolve));
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      for (const frame of frames.opening) response.write(frame);
      let written = 0;
      const timer = setInterval(() => response.write(frames.keepalive(written++)), 5);
      response.on('close', () => {
        clearInterval(timer);
        gone(written);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    clientGone,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('stream silence counts content, not chunks', { concurrency: true }, () => {
  for (const wireApi of WIRE_APIS) {
    it(`${wireApi}: empty deltas and keepalives after the answer started end the call with the idle timeout`, HANG_GUARD, async (t) => {
      const server = await keepaliveServer(framesFor(wireApi, true));
      t.after(() => server.close());
      const gateway = createGateway({
        wireApi,
        baseURL: wireApi === 'anthropic' ? server.baseURL.replace(/\/v1$/, '') : server.baseURL,
        apiKey: 'sk-test',
        streamIdleTimeoutMs: SHORT_TIMEOUT_MS,
        retry: { maxAttempts: 1 },
      });
      const events: ModelStreamEvent[] = [];
      await assert.rejects(
        async () => {
          for await (const event of gateway.streamResponse({ model: 'm', messages: [{ role: 'user', content: 'x' }] })) events.push(event);
        },
        (error: unknown) => {
          assert.ok(isModelError(error), String(error));
          assert.equal(error.code, 'STREAM_INTERRUPTED', error.message);
          assert.match(error.message, /went silent for 300 ms.*--stream-idle-timeout/);
          return true;
        },
      );
      assert.deepEqual(
        events.filter((event) => event.type === 'text-delta').map((event) => event.type === 'text-delta' && event.delta),
        ['Hi'],
        'empty deltas are not passed on',
      );
      assert.ok((await server.clientGone) > 0, 'the keepalives were flowing when the call was cut');
    });

    it(`${wireApi}: keepalives before any content end the call with the start timeout`, HANG_GUARD, async (t) => {
      const server = await keepaliveServer(framesFor(wireApi, false));
      t.after(() => server.close());
      const gateway = createGateway({
        wireApi,
        baseURL: wireApi === 'anthropic' ? server.baseURL.replace(/\/v1$/, '') : server.baseURL,
        apiKey: 'sk-test',
        streamStartTimeoutMs: SHORT_TIMEOUT_MS,
        retry: { maxAttempts: 1 },
      });
      await assert.rejects(
        async () => {
          for await (const _event of gateway.streamResponse({ model: 'm', messages: [{ role: 'user', content: 'x' }] })) {
            // nothing carries content
          }
        },
        (error: unknown) => {
          assert.ok(isModelError(error), String(error));
          assert.equal(error.code, 'CONNECTION_FAILED', error.message);
          assert.match(error.message, /No response from .* within 300 ms/);
          return true;
        },
      );
      assert.ok((await server.clientGone) > 0);
    });
  }
});
