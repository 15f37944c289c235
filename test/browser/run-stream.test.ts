// The workbench's run stream against a real server: when the connection drops mid-run it
// re-attaches with Last-Event-ID and delivers every event exactly once, in order; a refused run
// is an ApiError carrying the server's message. No browser: the stream code only needs fetch.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { RunEvent } from '../../src/agent/index.js';
import { ApiError } from '../../src/web/api/api-client.js';
import { RunStream } from '../../src/web/api/run-stream.js';
import { startWorkbench, TOKEN, type Workbench } from './workbench-harness.js';

let workbench: Workbench;
const answer = 'The quick brown fox jumps over the lazy dog, again and again.';

before(async () => {
  workbench = await startWorkbench({
    contextWindow: '128000',
    script: [{ text: answer, chunkSize: 3, chunkDelayMs: 5 }],
  });
});

after(async () => {
  await workbench?.close();
});

/** A body that delivers `keepBytes` of the real one, then fails like a dropped connection. */
function cutBody(body: ReadableStream<Uint8Array>, keepBytes: number): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) return controller.close();
      if (sent + value.length >= keepBytes) {
        controller.enqueue(value.slice(0, keepBytes - sent));
        await reader.cancel();
        controller.error(new TypeError('network error'));
        return;
      }
      sent += value.length;
      controller.enqueue(value);
    },
  });
}

interface Recorded {
  urls: string[];
  lastEventIds: Array<string | null>;
}

/** The page's fetch, as Node sees it: the server's origin, the token as a bearer header, an optional cut. */
function serverFetch(recorded: Recorded, cutPostAfterBytes: number | null): typeof fetch {
  return async (input, init) => {
    const url = new URL(String(input), workbench.origin);
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${TOKEN}`);
    recorded.urls.push(`${init?.method ?? 'GET'} ${url.pathname}`);
    recorded.lastEventIds.push(headers.get('last-event-id'));
    const response = await fetch(url, { ...init, headers });
    if (init?.method === 'POST' && cutPostAfterBytes !== null && response.ok && response.body !== null) {
      return new Response(cutBody(response.body, cutPostAfterBytes), { status: response.status, headers: response.headers });
    }
    return response;
  };
}

describe('RunStream', () => {
  test('re-attaches after a dropped connection and loses no event', async () => {
    const recorded: Recorded = { urls: [], lastEventIds: [] };
    const ids: number[] = [];
    const events: RunEvent[] = [];
    const connections: string[] = [];
    const stream = new RunStream(
      {
        onRunId: () => undefined,
        onEvent: (event, id) => {
          ids.push(id);
          events.push(event);
        },
        onConnection: (state) => connections.push(state),
      },
      { fetch: serverFetch(recorded, 700), reconnectDelayMs: 10 },
    );
    await stream.start({ prompt: 'Say the sentence' });

    assert.deepEqual(
      ids,
      ids.map((_, index) => index + 1),
      'ids are contiguous from 1, none repeated',
    );
    assert.equal(events[0]!.type, 'run_started');
    assert.equal(events[events.length - 1]!.type, 'run_succeeded');
    const text = events.map((event) => (event.type === 'assistant_delta' ? event.delta : '')).join('');
    assert.equal(text, answer);
    assert.ok(connections.includes('reconnecting'), 'it noticed the drop');
    const reattach = recorded.urls.findIndex((url) => url.endsWith('/events'));
    assert.ok(reattach > 0, `it re-attached: ${recorded.urls.join(', ')}`);
    const resumedAfter = Number(recorded.lastEventIds[reattach]);
    assert.ok(resumedAfter >= 1 && resumedAfter < ids.length, `Last-Event-ID ${resumedAfter} points into the run`);
  });

  test('a run the server refuses is an ApiError with its message', async () => {
    const stream = new RunStream(
      { onRunId: () => assert.fail('no run id for a refused run'), onEvent: () => assert.fail('no events'), onConnection: () => undefined },
      { fetch: serverFetch({ urls: [], lastEventIds: [] }, null) },
    );
    await assert.rejects(stream.start({ prompt: 'x', sandbox: 'danger-full-access' }), (error: unknown) => {
      assert.ok(error instanceof ApiError);
      assert.equal(error.status, 403);
      assert.match(error.describe(), /more permissive than this server allows/);
      return true;
    });
  });

  test('an unknown run cannot be attached to', async () => {
    const stream = new RunStream(
      { onRunId: () => undefined, onEvent: () => assert.fail('no events'), onConnection: () => undefined },
      { fetch: serverFetch({ urls: [], lastEventIds: [] }, null) },
    );
    await assert.rejects(
      stream.attach('01234567-89ab-4cde-8f01-23456789abcd'),
      (error: unknown) => error instanceof ApiError && error.status === 404,
    );
  });
});
