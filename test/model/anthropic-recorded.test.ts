// Real Anthropic wire recordings (test/fixtures/providers/anthropic/, each naming its source)
// replayed over loopback HTTP through the official SDK and the anthropic gateway: what the gateway
// makes of them, and what Glassbox sends back on the next round.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { describe, it } from 'node:test';
import {
  createGateway,
  isModelError,
  type ModelGateway,
  type ModelMessage,
  type ModelReasoning,
  type ModelResponse,
  type ModelStreamEvent,
  type ModelToolCall,
} from '../../src/model/index.js';

interface RecordedEvent {
  event: string | null;
  data: string;
}

interface StreamFixture {
  source: string;
  events: RecordedEvent[];
  expect: {
    text?: string;
    toolCalls?: ModelToolCall[];
    reasoning?: ModelReasoning[];
    usage?: Record<string, number | null>;
    responseId?: string;
    model?: string;
    error?: string;
    streamedText?: string;
  };
}

type Json = Record<string, unknown>;

function fixture<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(`../fixtures/providers/anthropic/${name}.json`, import.meta.url), 'utf8')) as T;
}

/** The recorded frames as the API sends them: `event:` line, the data line verbatim, blank line. */
function sse(events: RecordedEvent[]): string {
  return events
    .map((entry) => `event: ${entry.event ?? (JSON.parse(entry.data) as { type: string }).type}\ndata: ${entry.data}\n\n`)
    .join('');
}

interface Replay {
  baseURL: string;
  bodies: Json[];
  close(): Promise<void>;
}

/** Answers each POST /v1/messages with the next reply: an SSE text or a JSON body. */
async function replay(replies: Array<{ sse: string } | { json: unknown }>): Promise<Replay> {
  const bodies: Json[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      assert.equal(req.url, '/v1/messages');
      bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json);
      const reply = replies.shift();
      if (reply === undefined) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: 'replay exhausted' } }));
      } else if ('sse' in reply) {
        res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'request-id': 'req_replay' });
        res.end(reply.sse);
      } else {
        res.writeHead(200, { 'content-type': 'application/json', 'request-id': 'req_replay' });
        res.end(JSON.stringify(reply.json));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    // Anthropic-style base (no /v1): the SDK appends /v1/messages.
    baseURL: `http://127.0.0.1:${port}`,
    bodies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function gateway(baseURL: string): ModelGateway {
  return createGateway({ wireApi: 'anthropic', baseURL, apiKey: 'sk-ant-replay-key', retry: { maxAttempts: 1 } });
}

async function streamed(
  gw: ModelGateway,
  messages: ModelMessage[],
  model = 'claude-sonnet-5',
): Promise<{ events: ModelStreamEvent[]; response: ModelResponse }> {
  const events: ModelStreamEvent[] = [];
  for await (const event of gw.streamResponse({ model, messages })) events.push(event);
  const last = events.at(-1);
  assert.ok(last?.type === 'completed');
  return { events, response: last.response };
}

function numbers(usage: ModelResponse['usage']): Record<string, unknown> | null {
  if (usage === null) return null;
  const { raw: _raw, ...rest } = usage;
  return rest;
}

/** A request body without its cache breakpoints (they are checked elsewhere). */
function withoutCacheControl(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutCacheControl);
  if (typeof value !== 'object' || value === null) return value;
  const result: Json = {};
  for (const [key, entry] of Object.entries(value)) if (key !== 'cache_control') result[key] = withoutCacheControl(entry);
  return result;
}

const ASK: ModelMessage[] = [{ role: 'user', content: 'Go.' }];

describe('anthropic recordings replayed through the SDK', () => {
  for (const name of ['text-stream', 'tool-use-stream', 'thinking-stream', 'redacted-thinking-stream', 'tool-no-args-stream']) {
    it(`parses ${name}`, async () => {
      const recorded = fixture<StreamFixture>(name);
      const server = await replay([{ sse: sse(recorded.events) }]);
      try {
        const { events, response } = await streamed(gateway(server.baseURL), ASK);
        const expected = recorded.expect;
        assert.equal(response.text, expected.text);
        assert.equal(
          events
            .filter((e) => e.type === 'text-delta')
            .map((e) => (e.type === 'text-delta' ? e.delta : ''))
            .join(''),
          expected.text,
        );
        assert.deepEqual(response.toolCalls, expected.toolCalls);
        assert.deepEqual(response.reasoning, expected.reasoning);
        assert.equal(response.finishReason, (expected.toolCalls ?? []).length > 0 ? 'tool_calls' : 'stop');
        assert.deepEqual(numbers(response.usage), expected.usage);
        if (expected.responseId) assert.equal(response.responseId, expected.responseId);
        if (expected.model) assert.equal(response.model, expected.model);
        const thinking = (expected.reasoning ?? []).map((entry) => entry.text).join('');
        assert.equal(
          events
            .filter((e) => e.type === 'reasoning-delta')
            .map((e) => (e.type === 'reasoning-delta' ? e.delta : ''))
            .join(''),
          thinking,
        );
        const done = events.at(-2);
        assert.ok(done?.type === 'message-done');
        assert.deepEqual(done.reasoning, expected.reasoning);
      } finally {
        await server.close();
      }
    });
  }

  it('reports the recorded refusal as MODEL_REFUSED after its streamed text', async () => {
    const recorded = fixture<StreamFixture>('thinking-refusal-stream');
    const server = await replay([{ sse: sse(recorded.events) }]);
    try {
      const events: ModelStreamEvent[] = [];
      await assert.rejects(
        async () => {
          for await (const event of gateway(server.baseURL).streamResponse({ model: 'claude-fable-5', messages: ASK })) events.push(event);
        },
        (error: unknown) => isModelError(error) && error.code === 'MODEL_REFUSED' && /refusal/.test(error.message),
      );
      assert.equal(events.map((e) => (e.type === 'text-delta' ? e.delta : '')).join(''), recorded.expect.streamedText);
      assert.ok(events.some((e) => e.type === 'reasoning-delta'));
    } finally {
      await server.close();
    }
  });

  it('sends recorded thinking back unchanged, first in its assistant turn, streamed or redacted', async () => {
    const thinking = fixture<StreamFixture>('thinking-stream');
    const redacted = fixture<StreamFixture>('redacted-thinking-stream');
    const server = await replay([{ sse: sse(thinking.events) }, { sse: sse(redacted.events) }]);
    try {
      const gw = gateway(server.baseURL);
      const first = (await streamed(gw, ASK)).response;
      const second = (await streamed(gw, ASK)).response;
      const history: ModelMessage[] = [
        ...ASK,
        { role: 'assistant', content: first.text, toolCalls: [], reasoning: first.reasoning },
        { role: 'user', content: 'And again.' },
        { role: 'assistant', content: second.text, toolCalls: [], reasoning: second.reasoning },
        { role: 'user', content: 'Thanks.' },
      ];
      await assert.rejects(streamed(gw, history)); // the replay is exhausted; only the request matters
      const sent = withoutCacheControl(server.bodies[2]) as { messages: Array<{ role: string; content: Json[] }> };
      assert.deepEqual(sent.messages[1]!.content, [
        ...(thinking.expect.reasoning ?? []).map((r) => r.state),
        { type: 'text', text: first.text },
      ]);
      assert.deepEqual(sent.messages[3]!.content, [
        ...(redacted.expect.reasoning ?? []).map((r) => r.state),
        { type: 'text', text: second.text },
      ]);
    } finally {
      await server.close();
    }
  });

  it('continues the recorded thinking + tool_use exchange with the request the API accepted', async () => {
    const exchange = fixture<{ request: Json; response: Json; nextRequest: Json; nextResponse: Json }>('thinking-tool-use-exchange');
    const server = await replay([{ json: exchange.response }, { json: exchange.nextResponse }]);
    try {
      const gw = gateway(server.baseURL);
      const tool = {
        name: 'get_user_country',
        description: '',
        parameters: { additionalProperties: false, properties: {}, type: 'object' },
        strict: false,
      };
      const question: ModelMessage = { role: 'user', content: 'What is the largest city in the user country?' };
      const first = await gw.createResponse({ model: 'claude-sonnet-4-0', messages: [question], tools: [tool], maxOutputTokens: 4096 });
      const recordedContent = (exchange.response as { content: Json[] }).content;
      assert.equal(first.finishReason, 'tool_calls');
      assert.equal(first.text, recordedContent[1]!.text);
      assert.deepEqual(first.toolCalls, [{ id: 'toolu_01YGzqpRE16Vricda3Aqcejo', name: 'get_user_country', arguments: '{}' }]);
      assert.deepEqual(first.reasoning, [{ format: 'anthropic', text: recordedContent[0]!.thinking, state: recordedContent[0] }]);
      assert.deepEqual(numbers(first.usage), {
        inputTokens: 398,
        cachedInputTokens: 0,
        cacheWriteInputTokens: 0,
        outputTokens: 155,
        reasoningTokens: 0,
        totalTokens: 553,
      });

      const next = await gw.createResponse({
        model: 'claude-sonnet-4-0',
        messages: [
          question,
          { role: 'assistant', content: first.text, toolCalls: first.toolCalls, reasoning: first.reasoning },
          { role: 'tool', toolCallId: first.toolCalls[0]!.id, toolName: 'get_user_country', content: 'Mexico', isError: false },
        ],
        tools: [tool],
        maxOutputTokens: 4096,
      });
      assert.match(next.text, /Mexico City/);
      // What Glassbox sent is what the API accepted from the recording (tool_result's `is_error: false`
      // is left out, the API's default).
      const recordedNext = (exchange.nextRequest as { messages: Json[] }).messages.map((message) => ({
        ...message,
        content: (message.content as Json[]).map((block) => {
          if (block.is_error !== false) return block;
          const { is_error: _default, ...rest } = block;
          return rest;
        }),
      }));
      assert.deepEqual(withoutCacheControl(server.bodies[1]!.messages), recordedNext);
      assert.deepEqual(withoutCacheControl(server.bodies[1]!.tools), (exchange.nextRequest as { tools: unknown }).tools);
    } finally {
      await server.close();
    }
  });
});
