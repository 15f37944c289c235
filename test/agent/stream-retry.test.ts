// A stream cut after text appeared is retried as a round (issue 23 item 6), as Codex retries a
// stream that "disconnected before completion" (openai/codex codex-rs core, stream_max_retries).
// The streams are real recordings, cut by a loopback server that sends part of the frames and then
// destroys the socket: OpenAI Chat gpt-4o ("Foo" then "!", openai/openai-python inline snapshot, in
// test/fixtures/providers/streams/openai-chat-gpt-4o-tool-call.json) and Anthropic claude-sonnet-5
// thinking then text (Vercel AI SDK fixture, test/fixtures/providers/anthropic/thinking-stream.json).
// The official SDKs read them.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import {
  ALLOW_ALL_GATE,
  NO_APPROVER,
  ToolRuntime,
  runSamplingLoop,
  userMessage,
  type ModelCallRecord,
  type ResponseItem,
  type RunEvent,
  type StreamRetryOptions,
} from '../../src/agent/index.js';
import { createGateway, type WireApi } from '../../src/model/index.js';
import { createToolSessionState } from '../../src/tools/index.js';

function json<T>(path: string): T {
  return JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as T;
}

/** The recorded frames as SSE, one string per frame. */
const RECORDED: Record<'chat' | 'anthropic', { frames: string[]; path: string; answer: string; cutAfter: number }> = {
  chat: {
    frames: json<{ rounds: Array<{ frames: string[] }> }>(
      '../fixtures/providers/streams/openai-chat-gpt-4o-tool-call.json',
    ).rounds[1]!.frames.map((frame) => `data: ${frame}\n\n`),
    path: '/v1/chat/completions',
    answer: 'Foo!',
    // The role chunk and "Foo" arrive, then the connection drops.
    cutAfter: 2,
  },
  anthropic: {
    frames: json<{ events: Array<{ data: string }> }>('../fixtures/providers/anthropic/thinking-stream.json').events.map(
      ({ data }) => `event: ${(JSON.parse(data) as { type: string }).type}\ndata: ${data}\n\n`,
    ),
    path: '/v1/messages',
    answer: '',
    // Thinking, its signature and the first text delta arrive, then the connection drops.
    cutAfter: 11,
  },
};
RECORDED.anthropic.answer = RECORDED.anthropic.frames
  .map((frame) => /"text_delta","text":("(?:[^"\\]|\\.)*")/.exec(frame)?.[1])
  .filter((text): text is string => text !== undefined)
  .map((text) => JSON.parse(text) as string)
  .join('');

/** Cuts the first `cuts` answers after `cutAfter` frames (socket destroyed), then answers whole. */
async function cuttingServer(
  wire: 'chat' | 'anthropic',
  cuts: number,
): Promise<{ baseURL: string; requests: () => number; close(): Promise<void> }> {
  const recorded = RECORDED[wire];
  let requests = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests += 1;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (requests > cuts) {
        res.end(recorded.frames.join(''));
        return;
      }
      res.write(recorded.frames.slice(0, recorded.cutAfter).join(''), () => {
        // Let the client read what was sent before the connection goes.
        setImmediate(() => res.socket?.destroy());
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}${wire === 'chat' ? '/v1' : ''}`,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Run {
  events: RunEvent[];
  history: ResponseItem[];
  calls: ModelCallRecord[];
  requests: number;
  terminal: RunEvent;
}

async function run(
  wire: 'chat' | 'anthropic',
  cuts: number,
  streamRetry: StreamRetryOptions,
  onEvent?: (event: RunEvent, abort: () => void) => void,
): Promise<Run> {
  const server = await cuttingServer(wire, cuts);
  const controller = new AbortController();
  const events: RunEvent[] = [];
  const calls: ModelCallRecord[] = [];
  const history: ResponseItem[] = [];
  try {
    const terminal = await runSamplingLoop({
      gateway: createGateway({ wireApi: wire as WireApi, baseURL: server.baseURL, apiKey: 'k', retry: { maxAttempts: 1 } }),
      model: wire === 'chat' ? 'gpt-4o' : 'claude-sonnet-5',
      wireApi: wire,
      sessionId: 's',
      runId: 'r',
      resumed: false,
      history,
      newItems: [userMessage('Say foo')],
      tools: new ToolRuntime({
        tools: [],
        root: process.cwd(),
        state: createToolSessionState(),
        gate: ALLOW_ALL_GATE,
        approvals: NO_APPROVER,
      }),
      signal: controller.signal,
      streamRetry,
      observer: {
        onEvent: (event) => {
          events.push(event);
          onEvent?.(event, () => controller.abort());
        },
        onModelCall: (call) => {
          calls.push(call);
        },
      },
    });
    return { events, history, calls, requests: server.requests(), terminal };
  } finally {
    await server.close();
  }
}

const QUICK: StreamRetryOptions = { policy: { baseDelayMs: 1, maxDelayMs: 2, random: () => 0.5 } };

describe('a stream cut after it started is retried as a round', () => {
  for (const wire of ['chat', 'anthropic'] as const) {
    it(`${wire}: cut once, then the round succeeds; the cut attempt's text is discarded and never committed`, async () => {
      const result = await run(wire, 1, QUICK);
      assert.equal(result.terminal.type, 'run_succeeded', JSON.stringify(result.terminal));
      assert.equal(result.terminal.type === 'run_succeeded' ? result.terminal.answer : null, RECORDED[wire].answer);
      assert.equal(result.requests, 2);
      const retries = result.events.filter((event) => event.type === 'stream_retry');
      assert.equal(retries.length, 1);
      const retry = retries[0]!;
      assert.ok(retry.type === 'stream_retry');
      assert.deepEqual([retry.round, retry.attempt, retry.maxAttempts, retry.error.code], [1, 1, 3, 'STREAM_INTERRUPTED']);
      assert.ok(retry.discardedChars > 0, 'the cut attempt had shown text');
      // What streamed after the retry is the whole answer, again from its start.
      const after = result.events.slice(result.events.indexOf(retry));
      const text = after.flatMap((event) => (event.type === 'assistant_delta' ? [event.delta] : [])).join('');
      assert.equal(text, RECORDED[wire].answer);
      // Only the successful round is in the history: one assistant message, reasoning once.
      assert.deepEqual(
        result.history.filter((item) => item.type !== 'message' || item.role !== 'user').map((item) => item.type),
        wire === 'anthropic' ? ['reasoning', 'message'] : ['message'],
      );
      // Both calls are on record, the cut one with its error.
      assert.deepEqual(
        result.calls.map((call) => call.error?.code ?? null),
        ['STREAM_INTERRUPTED', null],
      );
    });
  }

  it('gives up after three retries with STREAM_INTERRUPTED, nothing committed', async () => {
    const result = await run('chat', 10, QUICK);
    assert.equal(result.terminal.type, 'run_failed');
    assert.equal(result.terminal.type === 'run_failed' ? result.terminal.error.code : null, 'STREAM_INTERRUPTED');
    assert.equal(result.requests, 4);
    assert.deepEqual(
      result.events.flatMap((event) => (event.type === 'stream_retry' ? [`${event.attempt}/${event.maxAttempts}`] : [])),
      ['1/3', '2/3', '3/3'],
    );
    assert.deepEqual(
      result.history.map((item) => item.type),
      ['message'],
    );
  });

  it('a cancel during the wait ends the run cancelled at once, without another request', async () => {
    const started = performance.now();
    const result = await run('chat', 1, { policy: { baseDelayMs: 60_000, maxDelayMs: 60_000, random: () => 0.99 } }, (event, abort) => {
      if (event.type === 'stream_retry') abort();
    });
    assert.equal(result.terminal.type, 'run_cancelled');
    assert.equal(result.requests, 1);
    assert.ok(performance.now() - started < 30_000, 'did not sleep out the backoff');
    assert.deepEqual(
      result.history.map((item) => item.type),
      ['message'],
    );
  });
});
