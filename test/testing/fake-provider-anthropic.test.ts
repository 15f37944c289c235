// The fake provider's Anthropic wire, checked with the official Anthropic SDK (its own accumulator,
// `messages.stream().finalMessage()`, must accept the event sequence) and with raw HTTP where the
// exact bytes matter: event names, the error envelope, request checks in the API's own words.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { estimateRequestTokens, startFakeProvider, type FakeProvider, type FakeProviderOptions } from '../../src/testing/index.js';

async function withAnthropic(
  options: FakeProviderOptions,
  run: (provider: FakeProvider, client: Anthropic) => Promise<void>,
): Promise<void> {
  const provider = await startFakeProvider(options);
  // The SDK joins its base URL and /v1/messages; the fake's base URL ends in /v1.
  const client = new Anthropic({
    baseURL: provider.baseURL.replace(/\/v1$/, ''),
    apiKey: 'sk-ant-test',
    maxRetries: 0,
    logLevel: 'off',
    openTelemetry: false,
  });
  try {
    await run(provider, client);
  } finally {
    await provider.close();
  }
}

async function post(provider: FakeProvider, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${provider.baseURL}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2026-10-21', ...headers },
    body: JSON.stringify(body),
  });
}

const hello = { model: 'claude-test', max_tokens: 100, messages: [{ role: 'user' as const, content: 'hi' }] };

describe('fake provider: anthropic wire', () => {
  it("streams an event sequence the SDK's own accumulator turns into the message", async () => {
    await withAnthropic(
      {
        script: [
          {
            reasoning: { text: 'Let me look.' },
            text: 'Reading both.',
            toolCalls: [
              { id: 'toolu_a', name: 'read', arguments: { p: 'a' } },
              { id: 'toolu_b', name: 'read', arguments: {} },
            ],
            usage: { input: 50, output: 9, cached: 20, cacheWrite: 10, reasoning: 4 },
          },
        ],
      },
      async (_provider, client) => {
        const message = await client.messages
          .stream({ ...hello, tools: [{ name: 'read', input_schema: { type: 'object' } }] })
          .finalMessage();
        assert.deepEqual(
          message.content.map((block) => block.type),
          ['thinking', 'text', 'tool_use', 'tool_use'],
        );
        const [thinking, text, first, second] = message.content;
        assert.ok(thinking && text && first && second);
        assert.ok(
          thinking.type === 'thinking' && thinking.thinking === 'Let me look.' && thinking.signature.startsWith('Glassbox-fake-signature-'),
        );
        assert.ok(text.type === 'text' && text.text === 'Reading both.');
        assert.ok(first.type === 'tool_use' && first.id === 'toolu_a');
        assert.deepEqual(first.input, { p: 'a' });
        assert.ok(second.type === 'tool_use');
        assert.deepEqual(second.input, {});
        assert.equal(message.stop_reason, 'tool_use');
        assert.equal(message.usage.input_tokens, 20);
        assert.equal(message.usage.cache_read_input_tokens, 20);
        assert.equal(message.usage.cache_creation_input_tokens, 10);
        assert.equal(message.usage.output_tokens, 9);
      },
    );
  });

  it('names every SSE frame with its event type and pings after the first block starts', async () => {
    await withAnthropic({ script: [{ text: 'ok' }] }, async (provider) => {
      const response = await post(provider, { ...hello, stream: true });
      const text = await response.text();
      const names = [...text.matchAll(/^event: (\S+)$/gm)].map((match) => match[1]);
      assert.deepEqual(names, [
        'message_start',
        'content_block_start',
        'ping',
        'content_block_delta',
        'content_block_stop',
        'message_delta',
        'message_stop',
      ]);
      for (const frame of text.trim().split('\n\n')) {
        const [event, data] = frame.split('\n');
        assert.ok(event !== undefined && data !== undefined);
        assert.equal((JSON.parse(data.slice('data: '.length)) as { type: string }).type, event.slice('event: '.length));
      }
    });
  });

  it("answers errors in Anthropic's envelope, a status fault with its type and an in-stream failure as an error event", async () => {
    await withAnthropic(
      {
        apiKey: 'sk-right',
        script: [
          { fault: { kind: 'status', status: 529, message: 'Overloaded' } },
          { text: 'so far', fault: { kind: 'response_failed', message: 'Overloaded', code: 'overloaded_error' } },
        ],
      },
      async (provider) => {
        const denied = await post(provider, hello, { 'x-api-key': 'sk-wrong' });
        assert.equal(denied.status, 401);
        assert.deepEqual(await denied.json(), {
          type: 'error',
          error: { type: 'authentication_error', message: 'invalid x-api-key' },
          request_id: 'req_fake_0',
        });
        const bearer = await post(provider, hello, { authorization: 'Bearer sk-right' });
        assert.equal(bearer.status, 529);
        assert.deepEqual(((await bearer.json()) as { error: unknown }).error, { type: 'overloaded_error', message: 'Overloaded' });
        const streamed = await (await post(provider, { ...hello, stream: true }, { 'x-api-key': 'sk-right' })).text();
        assert.match(streamed, /event: error\ndata: \{"type":"error","error":\{"type":"overloaded_error","message":"Overloaded"\}/);
        assert.doesNotMatch(streamed, /message_stop/);
      },
    );
  });

  it('refuses what the real API refuses, in its words', async () => {
    await withAnthropic({ script: [{ text: 'ok' }] }, async (provider) => {
      const cases: Array<[unknown, RegExp]> = [
        [{ model: 'm', messages: [{ role: 'user', content: 'x' }] }, /^max_tokens: Field required$/],
        [{ ...hello, messages: [] }, /at least one message is required/],
        [{ ...hello, temperature: 1 }, /^temperature: Extra inputs are not permitted$/],
        [{ ...hello, thinking: { type: 'enabled', budget_tokens: 100 } }, /budget_tokens: Input should be greater than or equal to 1024/],
        [{ ...hello, thinking: { type: 'enabled', budget_tokens: 2048 } }, /`max_tokens` must be greater than `thinking.budget_tokens`/],
        [
          {
            ...hello,
            tools: [{ name: 't', input_schema: { type: 'object' } }],
            messages: [
              { role: 'user', content: 'x' },
              { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 't', input: {} }] },
              { role: 'user', content: 'y' },
            ],
          },
          /messages\.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1/,
        ],
        [
          {
            ...hello,
            tools: [{ name: 't', input_schema: { type: 'object' } }],
            messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_9', content: 'x' }] }],
          },
          /messages\.0\.content\.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_9/,
        ],
        [
          {
            ...hello,
            messages: [
              { role: 'user', content: 'x' },
              { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 't', input: {} }] },
              { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1' }] },
            ],
          },
          /must define tools/,
        ],
        [
          { ...hello, system: [1, 2, 3, 4, 5].map((n) => ({ type: 'text', text: `s${n}`, cache_control: { type: 'ephemeral' } })) },
          /A maximum of 4 blocks with cache_control may be provided. Found 5\./,
        ],
      ];
      for (const [body, pattern] of cases) {
        const response = await post(provider, body);
        assert.equal(response.status, 400, JSON.stringify(body));
        const answer = (await response.json()) as { type: string; error: { type: string; message: string } };
        assert.equal(answer.type, 'error');
        assert.equal(answer.error.type, 'invalid_request_error');
        assert.match(answer.error.message, pattern);
      }
      // A refused request consumes no step.
      assert.equal(provider.remaining(), 1);
    });
  });

  it('estimates anthropic input from system, messages and tools, and refuses past the window as the API does', async () => {
    const body = { ...hello, system: [{ type: 'text', text: 'sys' }], tools: [{ name: 't', input_schema: { type: 'object' } }] };
    const expected = Math.ceil((JSON.stringify(body.system) + JSON.stringify(body.messages) + JSON.stringify(body.tools)).length / 4);
    assert.equal(estimateRequestTokens(body, 'anthropic'), expected);
    await withAnthropic({ contextWindow: 5 }, async (provider) => {
      const response = await post(provider, body);
      assert.equal(response.status, 400);
      assert.deepEqual(((await response.json()) as { error: unknown }).error, {
        type: 'invalid_request_error',
        message: `prompt is too long: ${expected} tokens > 5 maximum`,
      });
    });
  });

  it('ends a malformed stream with a named event, so the SDK parses (and fails on) it', async () => {
    await withAnthropic({ script: [{ text: 'hello', fault: { kind: 'malformed', afterEvents: 1 } }] }, async (_provider, client) => {
      const stream = await client.messages.create({ ...hello, stream: true });
      await assert.rejects(async () => {
        for await (const _event of stream) {
          // read to the broken frame
        }
      }, SyntaxError);
    });
  });
});
