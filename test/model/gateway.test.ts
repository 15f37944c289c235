// End to end through the real SDKs (OpenAI's for chat and responses, Anthropic's for anthropic)
// against the scripted fake provider on loopback, for every wire API: what goes on the wire, what
// comes back as IR, and how every failure surfaces.

import assert from 'node:assert/strict';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { describe, it } from 'node:test';
import {
  createGateway,
  isModelError,
  WIRE_APIS,
  type GatewayConfig,
  type ModelErrorCode,
  type ModelGateway,
  type ModelRequest,
  type ModelStreamEvent,
  type RetryNotice,
  type WireApi,
} from '../../src/model/index.js';
import { startFakeProvider, type FakeProvider, type FakeProviderOptions } from '../../src/testing/index.js';

const FAST_RETRY = { baseDelayMs: 10, maxDelayMs: 40, random: () => 0.5 };

async function withProvider(options: FakeProviderOptions, run: (provider: FakeProvider) => Promise<void>): Promise<void> {
  const provider = await startFakeProvider(options);
  try {
    await run(provider);
  } finally {
    await provider.close();
  }
}

function gatewayFor(wireApi: WireApi, baseURL: string, overrides: Partial<GatewayConfig> = {}): ModelGateway {
  return createGateway({ wireApi, baseURL, apiKey: 'sk-test', retry: FAST_RETRY, ...overrides });
}

function userAsks(text: string, extra: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: 'fake-model',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: text },
    ],
    ...extra,
  };
}

async function collect(stream: AsyncIterable<ModelStreamEvent>): Promise<ModelStreamEvent[]> {
  const events: ModelStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** Consume a stream expecting it to fail; returns the events seen before the failure. */
async function failingStream(stream: AsyncIterable<ModelStreamEvent>, code: ModelErrorCode, pattern?: RegExp): Promise<ModelStreamEvent[]> {
  const events: ModelStreamEvent[] = [];
  await assert.rejects(
    async () => {
      for await (const event of stream) events.push(event);
    },
    (error: unknown) => {
      assert.ok(isModelError(error), `expected a ModelError, got ${String(error)}`);
      assert.equal(error.code, code, error.message);
      if (pattern) assert.match(error.message, pattern);
      return true;
    },
  );
  return events;
}

async function failingCall(promise: Promise<unknown>, code: ModelErrorCode, pattern?: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(isModelError(error), `expected a ModelError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    if (pattern) assert.match(error.message, pattern);
    return true;
  });
}

function textOf(events: ModelStreamEvent[]): string {
  return events.map((event) => (event.type === 'text-delta' ? event.delta : '')).join('');
}

async function closedPortURL(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}

/** Anthropic frames always carry their `event:` line. */
function anthropicFrame(event: { type: string } & Record<string, unknown>): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** A server that sends one text frame and then nothing, holding the connection open. */
async function withSilentServer(wireApi: WireApi, run: (baseURL: string) => Promise<void>): Promise<void> {
  const frame =
    wireApi === 'chat'
      ? `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta: { content: 'hi' }, finish_reason: null }] })}\n\n`
      : wireApi === 'responses'
        ? `event: response.output_text.delta\ndata: ${JSON.stringify({ type: 'response.output_text.delta', delta: 'hi', item_id: 'm1', output_index: 0, content_index: 0, sequence_number: 0 })}\n\n`
        : anthropicFrame({
            type: 'message_start',
            message: {
              id: 'msg_1',
              type: 'message',
              role: 'assistant',
              model: 'm',
              content: [],
              stop_reason: null,
              usage: { input_tokens: 1, output_tokens: 1 },
            },
          }) +
          anthropicFrame({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }) +
          anthropicFrame({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hi' } });
  const server = createHttpServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(frame);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  try {
    await run(`http://127.0.0.1:${port}/v1`);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const strictTool = {
  name: 'read_file',
  description: 'Read a file.',
  parameters: { type: 'object', properties: { path: { type: 'string' }, limit: { type: 'integer' } }, required: ['path'] },
  strict: true,
};

for (const wireApi of WIRE_APIS) {
  describe(`gateway over ${wireApi}`, () => {
    it('streams text with usage, in the documented event order', async () => {
      await withProvider(
        { script: [{ text: 'Hello there, world!', chunkSize: 5, usage: { input: 11, output: 3, cached: 2, reasoning: 1 } }] },
        async (provider) => {
          const gateway = gatewayFor(wireApi, provider.baseURL);
          assert.equal(gateway.wireApi, wireApi);
          assert.equal(gateway.baseURL, provider.baseURL);
          const events = await collect(gateway.streamResponse(userAsks('hi')));
          assert.ok(events.filter((event) => event.type === 'text-delta').length >= 4);
          assert.equal(textOf(events), 'Hello there, world!');
          assert.deepEqual(
            events.slice(-2).map((event) => event.type),
            ['message-done', 'completed'],
          );
          const done = events.at(-2);
          assert.deepEqual(done, { type: 'message-done', text: 'Hello there, world!', toolCalls: [], reasoning: [] });
          const completed = events.at(-1);
          assert.ok(completed?.type === 'completed');
          const { usage, ...rest } = completed.response;
          assert.equal(rest.text, 'Hello there, world!');
          assert.equal(rest.finishReason, 'stop');
          assert.equal(rest.model, 'fake-model');
          assert.ok(rest.responseId);
          assert.ok(usage);
          const { raw, ...numbers } = usage;
          assert.deepEqual(numbers, {
            inputTokens: 11,
            cachedInputTokens: 2,
            ...(wireApi === 'anthropic' ? { cacheWriteInputTokens: 0 } : {}),
            outputTokens: 3,
            reasoningTokens: 1,
            totalTokens: 14,
          });
          assert.ok(raw && typeof raw === 'object');
          assert.equal(provider.requests.length, 1);
          assert.equal(provider.requests[0]!.headers.authorization, 'Bearer sk-test');
        },
      );
    });

    it('streams tool calls with ids preserved and arguments reassembled', async () => {
      await withProvider(
        {
          script: [
            {
              text: 'Reading.',
              chunkSize: 3,
              toolCalls: [
                { id: 'call_one', name: 'read_file', arguments: { path: 'src/index.ts', limit: 20 } },
                { id: 'call_two', name: 'list_dir', arguments: '{"dir":"."}' },
              ],
            },
          ],
        },
        async (provider) => {
          const events = await collect(gatewayFor(wireApi, provider.baseURL).streamResponse(userAsks('read', { tools: [strictTool] })));
          const starts = events.filter((event) => event.type === 'tool-call-start');
          assert.deepEqual(starts, [
            { type: 'tool-call-start', index: 0, id: 'call_one', name: 'read_file' },
            { type: 'tool-call-start', index: 1, id: 'call_two', name: 'list_dir' },
          ]);
          const argsOf = (index: number) =>
            events.map((event) => (event.type === 'tool-call-delta' && event.index === index ? event.delta : '')).join('');
          assert.equal(argsOf(0), '{"path":"src/index.ts","limit":20}');
          assert.equal(argsOf(1), '{"dir":"."}');
          assert.ok(events.filter((event) => event.type === 'tool-call-delta' && event.index === 0).length > 3);
          const ends = events.filter((event) => event.type === 'tool-call-end');
          assert.deepEqual(
            ends.map((event) => event.type === 'tool-call-end' && event.call),
            [
              { id: 'call_one', name: 'read_file', arguments: '{"path":"src/index.ts","limit":20}' },
              { id: 'call_two', name: 'list_dir', arguments: '{"dir":"."}' },
            ],
          );
          // Every call's start comes before its deltas and its end, and all ends before message-done.
          for (const index of [0, 1]) {
            const positions = events
              .map((event, position) => ('index' in event && event.index === index ? `${event.type}@${position}` : null))
              .filter((entry): entry is string => entry !== null);
            assert.match(positions[0]!, /^tool-call-start/);
            assert.match(positions.at(-1) ?? '', /^tool-call-end/);
          }
          const completed = events.at(-1);
          assert.ok(completed?.type === 'completed');
          assert.equal(completed.response.finishReason, 'tool_calls');
          assert.equal(completed.response.text, 'Reading.');
          assert.equal(completed.response.toolCalls.length, 2);
        },
      );
    });

    it('answers createResponse without streaming', async () => {
      await withProvider(
        {
          script: [
            {
              text: 'Done.',
              toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: 'a' } }],
              usage: { input: 5, output: 2, cached: null },
            },
          ],
        },
        async (provider) => {
          const response = await gatewayFor(wireApi, provider.baseURL).createResponse(userAsks('go', { tools: [strictTool] }));
          assert.equal(response.text, 'Done.');
          assert.deepEqual(response.toolCalls, [{ id: 'c1', name: 'read_file', arguments: '{"path":"a"}' }]);
          assert.equal(response.finishReason, 'tool_calls');
          assert.equal(response.usage?.inputTokens, 5);
          assert.equal(response.usage?.cachedInputTokens, null);
          assert.equal(provider.requests[0]!.stream, false);
        },
      );
    });

    it('sends the documented request body', async () => {
      await withProvider({ script: [{ text: 'a' }, { text: 'b' }] }, async (provider) => {
        const gateway = gatewayFor(wireApi, provider.baseURL);
        await collect(gateway.streamResponse(userAsks('no tools', { maxOutputTokens: 64 })));
        await collect(gateway.streamResponse(userAsks('tools', { tools: [strictTool] })));
        const [plain, withTools] = provider.requests.map((request) => request.body);
        assert.ok(plain && withTools);
        assert.equal(plain.stream, true);
        assert.ok(!('tools' in plain) && !('tool_choice' in plain));
        const strictParameters = {
          type: 'object',
          properties: { path: { type: 'string' }, limit: { type: ['integer', 'null'] } },
          required: ['path', 'limit'],
          additionalProperties: false,
        };
        if (wireApi === 'anthropic') {
          assert.equal(plain.max_tokens, 64);
          assert.deepEqual(plain.system, [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }]);
          assert.deepEqual(plain.messages, [
            { role: 'user', content: [{ type: 'text', text: 'no tools', cache_control: { type: 'ephemeral' } }] },
          ]);
          // Anthropic takes the schema as written: strict mode's nullable rewrite is an OpenAI thing.
          assert.deepEqual(withTools.tools, [
            { name: 'read_file', description: 'Read a file.', input_schema: strictTool.parameters, cache_control: { type: 'ephemeral' } },
          ]);
          assert.deepEqual(withTools.tool_choice, { type: 'auto' });
          return;
        }
        if (wireApi === 'chat') {
          assert.deepEqual(plain.stream_options, { include_usage: true });
          assert.equal(plain.max_completion_tokens, 64);
          assert.deepEqual(plain.messages, [
            { role: 'system', content: 'Be brief.' },
            { role: 'user', content: 'no tools' },
          ]);
          assert.deepEqual(withTools.tools, [
            { type: 'function', function: { name: 'read_file', description: 'Read a file.', parameters: strictParameters, strict: true } },
          ]);
        } else {
          assert.equal(plain.store, false);
          assert.equal(withTools.store, false);
          assert.equal(plain.max_output_tokens, 64);
          assert.deepEqual(plain.input, [
            { type: 'message', role: 'system', content: 'Be brief.' },
            { type: 'message', role: 'user', content: 'no tools' },
          ]);
          assert.deepEqual(withTools.tools, [
            { type: 'function', name: 'read_file', description: 'Read a file.', parameters: strictParameters, strict: true },
          ]);
        }
        assert.equal(withTools.tool_choice, 'auto');
      });
    });

    it('reports usage as null when the provider sends none', async () => {
      await withProvider(
        {
          script: [
            { text: 'x', usage: null },
            { text: 'y', usage: null },
          ],
        },
        async (provider) => {
          const gateway = gatewayFor(wireApi, provider.baseURL);
          const completed = (await collect(gateway.streamResponse(userAsks('x')))).at(-1);
          assert.ok(completed?.type === 'completed');
          assert.equal(completed.response.usage, null);
          assert.equal((await gateway.createResponse(userAsks('y'))).usage, null);
        },
      );
    });

    it('retries a 429 after its Retry-After, then succeeds', async () => {
      await withProvider(
        { script: [{ fault: { kind: 'status', status: 429, retryAfter: '0.02', message: 'Slow down' } }, { text: 'ok' }] },
        async (provider) => {
          const notices: RetryNotice[] = [];
          const events = await collect(
            gatewayFor(wireApi, provider.baseURL).streamResponse(userAsks('x'), { onRetry: (notice) => notices.push(notice) }),
          );
          assert.equal(textOf(events), 'ok');
          assert.equal(provider.requests.length, 2);
          assert.equal(notices.length, 1);
          assert.equal(notices[0]!.attempt, 1);
          assert.equal(notices[0]!.delayMs, 20);
          assert.equal(notices[0]!.error.code, 'RATE_LIMITED');
          assert.equal(notices[0]!.error.status, 429);
          assert.match(notices[0]!.error.message, /Slow down/);
        },
      );
    });

    it('retries a 500 with jittered backoff, for both calls', async () => {
      await withProvider(
        {
          script: [
            { fault: { kind: 'status', status: 500 } },
            { text: 'streamed' },
            { fault: { kind: 'status', status: 503 } },
            { text: 'created' },
          ],
        },
        async (provider) => {
          const notices: RetryNotice[] = [];
          const gateway = gatewayFor(wireApi, provider.baseURL);
          const onRetry = (notice: RetryNotice) => notices.push(notice);
          assert.equal(textOf(await collect(gateway.streamResponse(userAsks('x'), { onRetry }))), 'streamed');
          assert.equal((await gateway.createResponse(userAsks('y'), { onRetry })).text, 'created');
          assert.deepEqual(
            notices.map((notice) => [notice.error.code, notice.delayMs]),
            [
              ['SERVER_ERROR', 5],
              ['SERVER_ERROR', 5],
            ],
          );
          assert.equal(provider.requests.length, 4);
        },
      );
    });

    it('does not retry 400 or 401', async () => {
      await withProvider({ script: [{ fault: { kind: 'status', status: 400, message: 'Invalid tools' } }] }, async (provider) => {
        await failingStream(gatewayFor(wireApi, provider.baseURL).streamResponse(userAsks('x')), 'BAD_REQUEST', /Invalid tools/);
        assert.equal(provider.requests.length, 1);
      });
      await withProvider({ apiKey: 'the-right-key' }, async (provider) => {
        const keyVariable = wireApi === 'anthropic' ? /ANTHROPIC_API_KEY/ : /OPENAI_API_KEY/;
        await failingCall(gatewayFor(wireApi, provider.baseURL).createResponse(userAsks('x')), 'AUTH_FAILED', keyVariable);
        assert.equal(provider.requests.length, 1);
      });
    });

    it('gives up after maxAttempts with RATE_LIMITED or SERVER_ERROR', async () => {
      const limited = { fault: { kind: 'status', status: 429, retryAfter: '0' } } as const;
      const broken = { fault: { kind: 'status', status: 502 } } as const;
      await withProvider({ script: [limited, limited, limited, limited, broken, broken, broken] }, async (provider) => {
        await failingStream(
          gatewayFor(wireApi, provider.baseURL).streamResponse(userAsks('x')),
          'RATE_LIMITED',
          /gave up after 4 attempts/,
        );
        assert.equal(provider.requests.length, 4);
        const gateway = gatewayFor(wireApi, provider.baseURL, { retry: { ...FAST_RETRY, maxAttempts: 3 } });
        await failingCall(gateway.createResponse(userAsks('y')), 'SERVER_ERROR', /502/);
        assert.equal(provider.requests.length, 7);
        assert.equal(provider.unexpectedRequests.length, 0);
      });
    });

    it('reports a refused connection as CONNECTION_FAILED after retrying', async () => {
      const baseURL = await closedPortURL();
      const notices: RetryNotice[] = [];
      const gateway = gatewayFor(wireApi, baseURL, { retry: { ...FAST_RETRY, maxAttempts: 2 } });
      await failingStream(
        gateway.streamResponse(userAsks('x'), { onRetry: (notice) => notices.push(notice) }),
        'CONNECTION_FAILED',
        /--base-url/,
      );
      assert.equal(notices.length, 1);
      assert.equal(notices[0]!.error.code, 'CONNECTION_FAILED');
    });

    it('retries a connection dropped before any response', async () => {
      await withProvider({ script: [{ fault: { kind: 'drop' } }, { text: 'back' }] }, async (provider) => {
        assert.equal(textOf(await collect(gatewayFor(wireApi, provider.baseURL).streamResponse(userAsks('x')))), 'back');
        assert.equal(provider.requests.length, 2);
      });
    });

    it('fails a stream cut after text started with STREAM_INTERRUPTED, without retrying', async () => {
      // Frames before the second text delta: Chat sends a role chunk first; Responses sends
      // created, in_progress, output_item.added and content_part.added; Anthropic sends
      // message_start, content_block_start and a ping.
      const afterEvents = wireApi === 'chat' ? 3 : wireApi === 'responses' ? 6 : 5;
      await withProvider(
        { script: [{ text: 'abcdefghijklmnop', chunkSize: 2, fault: { kind: 'cut', afterEvents } }, { text: 'again' }] },
        async (provider) => {
          const events = await failingStream(gatewayFor(wireApi, provider.baseURL).streamResponse(userAsks('x')), 'STREAM_INTERRUPTED');
          assert.equal(textOf(events), 'abcd');
          assert.equal(provider.requests.length, 1);
        },
      );
    });

    it('retries a stream cut before any content reached the caller', async () => {
      await withProvider({ script: [{ text: 'lost', fault: { kind: 'cut', afterEvents: 1 } }, { text: 'again' }] }, async (provider) => {
        const notices: RetryNotice[] = [];
        const events = await collect(
          gatewayFor(wireApi, provider.baseURL).streamResponse(userAsks('x'), { onRetry: (notice) => notices.push(notice) }),
        );
        assert.equal(textOf(events), 'again');
        assert.deepEqual(
          notices.map((notice) => notice.error.code),
          ['STREAM_INTERRUPTED'],
        );
        assert.equal(provider.requests.length, 2);
      });
    });

    it('reports invalid JSON in the stream as MALFORMED_STREAM', async () => {
      await withProvider({ script: [{ text: 'hello', fault: { kind: 'malformed', afterEvents: 1 } }] }, async (provider) => {
        await failingStream(gatewayFor(wireApi, provider.baseURL).streamResponse(userAsks('x')), 'MALFORMED_STREAM', /not valid JSON/);
        assert.equal(provider.requests.length, 1);
      });
    });

    it('reports a failed response and an in-stream error as RESPONSE_FAILED', async () => {
      await withProvider(
        {
          script: [
            { text: 'partial', fault: { kind: 'response_failed', message: 'The model crashed' } },
            { fault: { kind: 'stream_error_event', message: 'Stream exploded' } },
          ],
        },
        async (provider) => {
          const gateway = gatewayFor(wireApi, provider.baseURL);
          await failingStream(gateway.streamResponse(userAsks('x')), 'RESPONSE_FAILED', /The model crashed/);
          await failingStream(gateway.streamResponse(userAsks('y')), 'RESPONSE_FAILED', /Stream exploded/);
          assert.equal(provider.requests.length, 2);
        },
      );
    });

    it('reports refusals, truncation and content filtering, streamed or not', async () => {
      const refusal = { refusal: "I can't help with that." };
      const length = { text: 'cut sho', finishReason: 'length' } as const;
      const filtered = { text: 'bad', finishReason: 'content_filter' } as const;
      await withProvider({ script: [refusal, refusal, length, length, filtered, filtered] }, async (provider) => {
        const gateway = gatewayFor(wireApi, provider.baseURL);
        await failingStream(gateway.streamResponse(userAsks('x')), 'MODEL_REFUSED', /I can't help with that\./);
        await failingCall(gateway.createResponse(userAsks('x')), 'MODEL_REFUSED', /I can't help with that\./);
        await failingStream(gateway.streamResponse(userAsks('x')), 'OUTPUT_TRUNCATED');
        await failingCall(gateway.createResponse(userAsks('x')), 'OUTPUT_TRUNCATED');
        // Anthropic has no content-filter ending: its classifiers stop a response as a refusal.
        const filteredCode = wireApi === 'anthropic' ? 'MODEL_REFUSED' : 'CONTENT_FILTERED';
        await failingStream(gateway.streamResponse(userAsks('x')), filteredCode);
        await failingCall(gateway.createResponse(userAsks('x')), filteredCode);
        assert.equal(provider.requests.length, 6);
      });
    });

    it('reports a context overflow 400 as CONTEXT_OVERFLOW without retrying', async () => {
      await withProvider({ contextWindow: 5 }, async (provider) => {
        await failingStream(
          gatewayFor(wireApi, provider.baseURL).streamResponse(userAsks('a prompt far longer than five tokens')),
          'CONTEXT_OVERFLOW',
          wireApi === 'anthropic' ? /prompt is too long: \d+ tokens > 5 maximum/ : /maximum context length/,
        );
        assert.equal(provider.requests.length, 1);
      });
    });

    it('reports a wrong base URL path as NOT_FOUND', async () => {
      await withProvider({}, async (provider) => {
        await failingCall(gatewayFor(wireApi, `${provider.baseURL}/wrong`).createResponse(userAsks('x')), 'NOT_FOUND', /--base-url/);
      });
    });

    it('aborts mid-stream with ABORTED', async () => {
      await withProvider({ script: [{ text: 'x'.repeat(200), chunkSize: 1, chunkDelayMs: 20 }] }, async (provider) => {
        const controller = new AbortController();
        const events: ModelStreamEvent[] = [];
        await assert.rejects(
          async () => {
            for await (const event of gatewayFor(wireApi, provider.baseURL).streamResponse(userAsks('x'), { signal: controller.signal })) {
              events.push(event);
              if (event.type === 'text-delta') controller.abort();
            }
          },
          (error: unknown) => isModelError(error) && error.code === 'ABORTED',
        );
        assert.equal(events.filter((event) => event.type === 'text-delta').length, 1);
        assert.equal(provider.requests.length, 1);
      });
    });

    it('aborts during a backoff sleep with ABORTED, without another request', async () => {
      await withProvider(
        { script: [{ fault: { kind: 'status', status: 429, retryAfter: '30' } }, { text: 'never' }] },
        async (provider) => {
          const controller = new AbortController();
          await failingCall(
            gatewayFor(wireApi, provider.baseURL).createResponse(userAsks('x'), {
              signal: controller.signal,
              onRetry: (notice) => {
                assert.equal(notice.delayMs, 30_000);
                setImmediate(() => controller.abort());
              },
            }),
            'ABORTED',
          );
          assert.equal(provider.requests.length, 1);
        },
      );
    });

    it('times out a provider that never answers or sends no content, as a retryable CONNECTION_FAILED', async () => {
      await withProvider(
        { script: [{ fault: { kind: 'hang' } }, { text: 'abcdefgh', chunkSize: 2, chunkDelayMs: 5_000 }] },
        async (provider) => {
          const gateway = gatewayFor(wireApi, provider.baseURL, { timeoutMs: 150, retry: { ...FAST_RETRY, maxAttempts: 1 } });
          await failingCall(gateway.createResponse(userAsks('x')), 'CONNECTION_FAILED', /No response/);
          // Headers and a first frame arrive, but no content before the provider goes quiet.
          await failingStream(gateway.streamResponse(userAsks('y')), 'CONNECTION_FAILED', /No response/);
        },
      );
    });

    it('gives up on a stream that goes silent after content with STREAM_INTERRUPTED', async () => {
      await withSilentServer(wireApi, async (baseURL) => {
        const gateway = gatewayFor(wireApi, baseURL, { timeoutMs: 150 });
        const events = await failingStream(gateway.streamResponse(userAsks('y')), 'STREAM_INTERRUPTED', /went silent/);
        assert.equal(textOf(events), 'hi');
      });
    });
  });
}

describe('createGateway', () => {
  it('rejects bad configuration with the setting named', () => {
    assert.throws(() => createGateway({ wireApi: 'chat', baseURL: 'not a url', apiKey: 'k' }), /--base-url/);
    assert.throws(() => createGateway({ wireApi: 'chat', baseURL: 'ftp://x/v1', apiKey: 'k' }), /http/);
    assert.throws(() => createGateway({ wireApi: 'chat', baseURL: 'http://x/v1', apiKey: '' }), /OPENAI_API_KEY/);
    assert.throws(() => createGateway({ wireApi: 'anthropic', baseURL: 'http://x', apiKey: ' ' }), /ANTHROPIC_API_KEY/);
    assert.throws(() => createGateway({ wireApi: 'soap' as WireApi, baseURL: 'http://x/v1', apiKey: 'k' }), /chat, responses/);
    assert.throws(() => createGateway({ wireApi: 'chat', baseURL: 'http://x/v1', apiKey: 'k', timeoutMs: 0 }), /timeout/);
    assert.throws(() => createGateway({ wireApi: 'chat', baseURL: 'http://x/v1', apiKey: 'k', retry: { maxAttempts: 0 } }), /maxAttempts/);
  });
});
