// The anthropic dialect's own behaviour, end to end through the official Anthropic SDK against the
// scripted fake provider's Anthropic wire: thinking state round trips, prompt-cache breakpoints,
// usage with cache reads and writes, parallel calls and error results, thinking settings, and the
// failures Anthropic has its own words for. (The behaviour every dialect shares is in gateway.test.ts.)

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { describe, it } from 'node:test';
import {
  createGateway,
  isModelError,
  type GatewayConfig,
  type ModelErrorCode,
  type ModelGateway,
  type ModelMessage,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamEvent,
  type RetryNotice,
} from '../../src/model/index.js';
import { startFakeProvider, type FakeProvider, type FakeProviderOptions } from '../../src/testing/index.js';

const FAST_RETRY = { baseDelayMs: 1, maxDelayMs: 5, random: () => 0.5 };

type Json = Record<string, unknown>;

async function withProvider(options: FakeProviderOptions, run: (provider: FakeProvider) => Promise<void>): Promise<void> {
  const provider = await startFakeProvider(options);
  try {
    await run(provider);
  } finally {
    await provider.close();
  }
}

function gatewayFor(baseURL: string, overrides: Partial<GatewayConfig> = {}): ModelGateway {
  return createGateway({ wireApi: 'anthropic', baseURL, apiKey: 'sk-ant-test-key', retry: FAST_RETRY, ...overrides });
}

async function complete(gateway: ModelGateway, request: ModelRequest, onRetry?: (notice: RetryNotice) => void): Promise<ModelResponse> {
  const events: ModelStreamEvent[] = [];
  for await (const event of gateway.streamResponse(request, { onRetry })) events.push(event);
  const last = events.at(-1);
  assert.ok(last?.type === 'completed');
  return last.response;
}

async function rejects(promise: Promise<unknown>, code: ModelErrorCode, pattern?: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(isModelError(error), `expected a ModelError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    if (pattern) assert.match(error.message, pattern);
    return true;
  });
}

const readTool = {
  name: 'read_file',
  description: 'Read a file.',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  strict: true,
};

function ask(text: string, extra: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: 'claude-sonnet-5-5',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: text },
    ],
    tools: [readTool],
    ...extra,
  };
}

/** The conversation after a tool round: the answer's reasoning and calls, then one output per call. */
function afterTools(request: ModelRequest, response: ModelResponse, outputs: Array<{ content: string; isError?: boolean }>): ModelRequest {
  const messages: ModelMessage[] = [
    ...request.messages,
    { role: 'assistant', content: response.text, toolCalls: response.toolCalls, reasoning: response.reasoning },
    ...response.toolCalls.map(
      (call, i): ModelMessage => ({
        role: 'tool',
        toolCallId: call.id,
        toolName: call.name,
        content: outputs[i]?.content ?? 'ok',
        isError: outputs[i]?.isError ?? false,
      }),
    ),
  ];
  return { ...request, messages };
}

function blocks(body: Json, index: number): Json[] {
  return (body.messages as Array<{ content: Json[] }>)[index]!.content;
}

describe('anthropic gateway', () => {
  it('sends thinking blocks back unchanged on the tool turn, and the provider accepts them', async () => {
    await withProvider(
      {
        requireReasoningBack: true,
        script: [
          { reasoning: { text: 'I should read it.' }, toolCalls: [{ name: 'read_file', arguments: { path: 'a' } }] },
          { text: 'Done.' },
        ],
      },
      async (provider) => {
        const gateway = gatewayFor(provider.baseURL);
        const first = await complete(gateway, ask('read a'));
        assert.equal(first.reasoning.length, 1);
        const [reasoning] = first.reasoning;
        assert.ok(reasoning);
        assert.equal(reasoning.format, 'anthropic');
        assert.equal(reasoning.text, 'I should read it.');
        assert.equal(reasoning.state?.type, 'thinking');
        assert.match(String(reasoning.state?.signature), /^Glassbox-fake-signature-/);
        const second = await complete(gateway, afterTools(ask('read a'), first, [{ content: 'file a' }]));
        assert.equal(second.text, 'Done.');
        const assistant = blocks(provider.requests[1]!.body, 1);
        assert.deepEqual(assistant[0], reasoning.state);
        assert.deepEqual(
          assistant.map((block) => block.type),
          ['thinking', 'tool_use'],
        );
      },
    );
  });

  it('sends redacted thinking back as received', async () => {
    await withProvider(
      {
        requireReasoningBack: true,
        script: [
          { reasoning: { text: 'hidden', redacted: true }, toolCalls: [{ name: 'read_file', arguments: { path: 'a' } }] },
          { text: 'ok' },
        ],
      },
      async (provider) => {
        const gateway = gatewayFor(provider.baseURL);
        const first = await complete(gateway, ask('x'));
        assert.deepEqual(
          first.reasoning.map((r) => [r.text, r.state?.type]),
          [['', 'redacted_thinking']],
        );
        await complete(gateway, afterTools(ask('x'), first, [{ content: 'a' }]));
        assert.deepEqual(blocks(provider.requests[1]!.body, 1)[0], first.reasoning[0]!.state);
      },
    );
  });

  it('is refused the way the API refuses a tool turn without its thinking block, or with a changed one', async () => {
    const script = [{ reasoning: { text: 'think' }, toolCalls: [{ name: 'read_file', arguments: { path: 'a' } }] }];
    await withProvider({ requireReasoningBack: true, script }, async (provider) => {
      const gateway = gatewayFor(provider.baseURL);
      const first = await complete(gateway, ask('x'));
      const dropped = afterTools(ask('x'), { ...first, reasoning: [] }, [{ content: 'a' }]);
      await rejects(complete(gateway, dropped), 'BAD_REQUEST', /Expected `thinking` or `redacted_thinking`, but found `tool_use`/);
      const changed = afterTools(
        ask('x'),
        { ...first, reasoning: [{ ...first.reasoning[0]!, state: { ...first.reasoning[0]!.state, thinking: 'edited' } }] },
        [{ content: 'a' }],
      );
      await rejects(complete(gateway, changed), 'BAD_REQUEST', /Invalid `signature` in `thinking` block/);
      // Reasoning another dialect produced means nothing here and is not sent.
      const foreign = afterTools(
        ask('x'),
        { ...first, reasoning: [{ format: 'responses', text: 'summary', state: { id: 'rs_1', type: 'reasoning' } }] },
        [{ content: 'a' }],
      );
      await rejects(complete(gateway, foreign), 'BAD_REQUEST', /Expected `thinking`/);
      assert.deepEqual(
        blocks(provider.requests[3]!.body, 1).map((block) => block.type),
        ['tool_use'],
      );
    });
  });

  it("marks the cache breakpoints: tools, system, the previous round's tail and the new tail", async () => {
    await withProvider(
      {
        script: [
          { toolCalls: [{ name: 'read_file', arguments: { path: 'a' } }] },
          { toolCalls: [{ name: 'read_file', arguments: { path: 'b' } }] },
          { text: 'done' },
        ],
      },
      async (provider) => {
        const gateway = gatewayFor(provider.baseURL);
        let request = ask('read');
        const first = await complete(gateway, request);
        request = afterTools(request, first, [{ content: 'A' }]);
        const second = await complete(gateway, request);
        request = afterTools(request, second, [{ content: 'B' }]);
        const third = await complete(gateway, request);
        assert.equal(third.text, 'done');
        const marked = (body: Json): string[] => {
          const found: string[] = [];
          (body.tools as Json[]).forEach((tool, i) => tool.cache_control && found.push(`tools.${i}`));
          (body.system as Json[]).forEach((block, i) => block.cache_control && found.push(`system.${i}`));
          (body.messages as Array<{ content: Json[] }>).forEach((message, m) =>
            message.content.forEach((block, b) => block.cache_control && found.push(`messages.${m}.${b}`)),
          );
          return found;
        };
        const bodies = provider.requests.map((r) => r.body);
        assert.deepEqual(marked(bodies[0]!), ['tools.0', 'system.0', 'messages.0.0']);
        assert.deepEqual(marked(bodies[1]!), ['tools.0', 'system.0', 'messages.0.0', 'messages.2.0']);
        // Round 3 marks where round 2 wrote (messages.2) and its own tail (messages.4).
        assert.deepEqual(marked(bodies[2]!), ['tools.0', 'system.0', 'messages.2.0', 'messages.4.0']);
        assert.deepEqual(marked(bodies[2]!).length, 4);
      },
    );
  });

  it("reads each round's prefix from the cache the round before wrote (derived usage)", async () => {
    await withProvider(
      {
        script: [
          { toolCalls: [{ name: 'read_file', arguments: { path: 'a' } }] },
          { toolCalls: [{ name: 'read_file', arguments: { path: 'b' } }] },
          { text: 'done' },
        ],
      },
      async (provider) => {
        const gateway = gatewayFor(provider.baseURL);
        let request = ask('read');
        const usages = [];
        const first = await complete(gateway, request);
        usages.push(first.usage);
        request = afterTools(request, first, [{ content: 'A'.repeat(400) }]);
        const second = await complete(gateway, request);
        usages.push(second.usage);
        request = afterTools(request, second, [{ content: 'B'.repeat(400) }]);
        usages.push((await complete(gateway, request)).usage);
        const writes = usages.map((usage) => (usage?.raw as Json).cache_creation_input_tokens as number);
        const reads = usages.map((usage) => usage?.cachedInputTokens ?? 0);
        assert.equal(reads[0], 0);
        assert.ok(writes[0]! > 0);
        // Each round reads at least everything the previous round wrote, and writes only what is new.
        assert.ok(reads[1]! >= writes[0]!, `round 2 read ${reads[1]}, round 1 wrote ${writes[0]}`);
        assert.ok(reads[2]! >= reads[1]! + writes[1]!, `round 3 read ${reads[2]}`);
        for (const usage of usages)
          assert.ok(
            usage && usage.inputTokens >= (usage.cachedInputTokens ?? 0) + ((usage.raw as Json).cache_creation_input_tokens as number),
          );
      },
    );
  });

  it('maps usage: input counts cache reads and writes too, cached is the read part, written the write part', async () => {
    const usage = { input: 1000, cached: 600, cacheWrite: 300, output: 50, reasoning: 20 };
    await withProvider(
      {
        script: [
          { text: 'a', usage },
          { text: 'b', usage },
        ],
      },
      async (provider) => {
        const gateway = gatewayFor(provider.baseURL);
        for (const response of [await complete(gateway, ask('x')), await gateway.createResponse(ask('y'))]) {
          assert.ok(response.usage);
          const { raw, ...counts } = response.usage;
          assert.deepEqual(counts, {
            inputTokens: 1000,
            cachedInputTokens: 600,
            cacheWriteInputTokens: 300,
            outputTokens: 50,
            reasoningTokens: 20,
            totalTokens: 1050,
          });
          const wire = raw as Json;
          assert.equal(wire.input_tokens, 100);
          assert.equal(wire.cache_read_input_tokens, 600);
          assert.equal(wire.cache_creation_input_tokens, 300);
        }
      },
    );
  });

  it('streams parallel tool calls and sends their results, errors flagged, right after them', async () => {
    await withProvider(
      {
        script: [
          {
            text: 'Both.',
            toolCalls: [
              { id: 'toolu_a', name: 'read_file', arguments: { path: 'a' } },
              { id: 'toolu_b', name: 'read_file', arguments: { path: 'b' } },
            ],
          },
          { text: 'ok' },
        ],
      },
      async (provider) => {
        const gateway = gatewayFor(provider.baseURL);
        const first = await complete(gateway, ask('both'));
        assert.deepEqual(first.toolCalls, [
          { id: 'toolu_a', name: 'read_file', arguments: '{"path":"a"}' },
          { id: 'toolu_b', name: 'read_file', arguments: '{"path":"b"}' },
        ]);
        await complete(gateway, afterTools(ask('both'), first, [{ content: 'A' }, { content: 'Error [NOT_FOUND]: b', isError: true }]));
        const body = provider.requests[1]!.body;
        assert.deepEqual(
          blocks(body, 1).map((block) => [block.type, block.id ?? block.text]),
          [
            ['text', 'Both.'],
            ['tool_use', 'toolu_a'],
            ['tool_use', 'toolu_b'],
          ],
        );
        assert.deepEqual(withoutCache(blocks(body, 2)), [
          { type: 'tool_result', tool_use_id: 'toolu_a', content: 'A' },
          { type: 'tool_result', tool_use_id: 'toolu_b', content: 'Error [NOT_FOUND]: b', is_error: true },
        ]);
      },
    );
  });

  it('puts tool results before a user message that follows them in the same turn', async () => {
    await withProvider({ script: [{ text: 'ok' }] }, async (provider) => {
      const call = { id: 'call_x.1', name: 'read_file', arguments: 'not json' };
      await complete(gatewayFor(provider.baseURL), {
        model: 'claude-sonnet-5-5',
        tools: [readTool],
        messages: [
          { role: 'user', content: 'go' },
          { role: 'assistant', content: '', toolCalls: [call] },
          { role: 'tool', toolCallId: call.id, toolName: 'read_file', content: 'interrupted', isError: true },
          { role: 'user', content: 'continue' },
        ],
      });
      const body = provider.requests[0]!.body;
      // A foreign call id is made to fit Anthropic's pattern; unparsable arguments keep their text.
      assert.deepEqual(blocks(body, 1), [{ type: 'tool_use', id: 'call_x_1', name: 'read_file', input: { _raw_arguments: 'not json' } }]);
      assert.deepEqual(withoutCache(blocks(body, 2)), [
        { type: 'tool_result', tool_use_id: 'call_x_1', content: 'interrupted', is_error: true },
        { type: 'text', text: 'continue' },
      ]);
    });
  });

  it('maps reasoning effort to adaptive thinking or a thinking budget, by model generation', async () => {
    await withProvider({ whenExhausted: { text: 'ok' } }, async (provider) => {
      const gateway = gatewayFor(provider.baseURL);
      await complete(gateway, ask('a', { model: 'claude-sonnet-5-5', reasoningEffort: 'high' }));
      await complete(gateway, ask('b', { model: 'claude-opus-5', reasoningEffort: 'minimal' }));
      await complete(gateway, ask('c', { model: 'claude-haiku-4-5', reasoningEffort: 'medium', maxOutputTokens: 1000 }));
      await complete(gateway, ask('d', { model: 'claude-sonnet-4-5-20250929', reasoningEffort: 'minimal' }));
      await complete(gateway, ask('e', { model: 'claude-sonnet-5-5', temperature: 0.2 }));
      const [adaptive, minimal, budget, off, plain] = provider.requests.map((r) => r.body);
      assert.ok(adaptive && minimal && budget && off && plain);
      assert.deepEqual(adaptive.thinking, { type: 'adaptive', display: 'summarized' });
      assert.deepEqual(adaptive.output_config, { effort: 'high' });
      assert.equal(adaptive.max_tokens, 32_000);
      assert.deepEqual(minimal.output_config, { effort: 'low' });
      assert.deepEqual(budget.thinking, { type: 'enabled', budget_tokens: 8192 });
      assert.ok((budget.max_tokens as number) > 8192);
      assert.ok(!('thinking' in off) && !('output_config' in off));
      // No effort: the model's default; and no sampling parameters, which API 2026-10-21 refuses.
      assert.ok(!('thinking' in plain) && !('temperature' in plain));
      assert.equal(provider.requests[0]!.headers['anthropic-version'], '2026-10-21');
      assert.equal(provider.requests[0]!.headers['x-api-key'], 'sk-ant-test-key');
    });
  });

  it('sends the compaction summary request with a system prompt and no tools', async () => {
    await withProvider({ script: [{ text: 'summary' }] }, async (provider) => {
      const response = await gatewayFor(provider.baseURL).createResponse({
        model: 'claude-sonnet-5-5',
        messages: [
          { role: 'system', content: 'Summarize.' },
          { role: 'user', content: '<transcript>…</transcript>' },
        ],
        maxOutputTokens: 8192,
      });
      assert.equal(response.text, 'summary');
      const body = provider.requests[0]!.body;
      assert.ok(!('tools' in body) && !('tool_choice' in body));
      assert.deepEqual(withoutCache(body.system as Json[]), [{ type: 'text', text: 'Summarize.' }]);
      assert.equal(body.max_tokens, 8192);
    });
  });

  it('retries a 529 overloaded_error, and an overloaded error event before any content', async () => {
    await withProvider(
      {
        script: [
          { fault: { kind: 'status', status: 529, message: 'Overloaded' } },
          { text: 'first' },
          { fault: { kind: 'response_failed', message: 'Overloaded', code: 'overloaded_error' } },
          { text: 'second' },
        ],
      },
      async (provider) => {
        const gateway = gatewayFor(provider.baseURL);
        const notices: RetryNotice[] = [];
        assert.equal((await complete(gateway, ask('x'), (n) => notices.push(n))).text, 'first');
        assert.equal((await complete(gateway, ask('y'), (n) => notices.push(n))).text, 'second');
        assert.deepEqual(
          notices.map((n) => [n.error.code, n.error.status]),
          [
            ['SERVER_ERROR', 529],
            ['SERVER_ERROR', null],
          ],
        );
        assert.match(notices[0]!.error.message, /overloaded.*Overloaded/i);
        assert.equal(provider.requests.length, 4);
      },
    );
  });

  it('does not retry an overloaded error event once text has streamed', async () => {
    await withProvider(
      {
        script: [
          { text: 'partial answer', fault: { kind: 'response_failed', message: 'Overloaded', code: 'overloaded_error' } },
          { text: 'never' },
        ],
      },
      async (provider) => {
        await rejects(complete(gatewayFor(provider.baseURL), ask('x')), 'SERVER_ERROR', /Overloaded/);
        assert.equal(provider.requests.length, 1);
      },
    );
  });

  it('reports max_tokens as OUTPUT_TRUNCATED and a refusal with its explanation', async () => {
    await withProvider({ script: [{ text: 'cut', finishReason: 'length' }, { refusal: 'Not this.' }] }, async (provider) => {
      const gateway = gatewayFor(provider.baseURL);
      await rejects(complete(gateway, ask('x')), 'OUTPUT_TRUNCATED', /max_tokens/);
      await rejects(gateway.createResponse(ask('y')), 'MODEL_REFUSED', /Not this\./);
    });
  });

  it('takes a base URL with or without /v1', async () => {
    await withProvider({ whenExhausted: { text: 'ok' } }, async (provider) => {
      const bare = provider.baseURL.replace(/\/v1$/, '');
      assert.equal((await complete(gatewayFor(provider.baseURL), ask('x'))).text, 'ok');
      assert.equal((await complete(gatewayFor(bare), ask('x'))).text, 'ok');
      assert.equal((await complete(gatewayFor(`${bare}/`), ask('x'))).text, 'ok');
      assert.deepEqual(
        provider.requests.map((r) => r.path),
        ['/v1/messages', '/v1/messages', '/v1/messages'],
      );
    });
  });
});

function withoutCache(list: Json[]): Json[] {
  return list.map(({ cache_control: _marker, ...rest }) => rest);
}

/** Error bodies real Anthropic endpoints sent (test/fixtures/providers/errors/anthropic-*.json). */
describe('anthropic error recordings', () => {
  const dir = new URL('../fixtures/providers/errors/', import.meta.url);
  const files = readdirSync(dir).filter((name) => name.startsWith('anthropic-') && name.endsWith('.json'));
  for (const name of files) {
    it(`maps ${name}`, async () => {
      const recorded = JSON.parse(readFileSync(new URL(name, dir), 'utf8')) as {
        status: number;
        body: unknown;
        expect: { code: ModelErrorCode; retryable: boolean; messageIncludes: string };
      };
      const server = createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          res.writeHead(recorded.status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(recorded.body));
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const { port } = server.address() as { port: number };
        const gateway = gatewayFor(`http://127.0.0.1:${port}`, { retry: { maxAttempts: 1 } });
        await assert.rejects(gateway.createResponse(ask('x')), (error: unknown) => {
          assert.ok(isModelError(error));
          assert.equal(error.code, recorded.expect.code, error.message);
          assert.equal(error.retryable, recorded.expect.retryable);
          assert.ok(error.message.includes(recorded.expect.messageIncludes), error.message);
          assert.equal(error.status, recorded.status);
          return true;
        });
      } finally {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    });
  }
});
