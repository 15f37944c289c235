// Regression tests for the Chat Completions shapes the provider replay corpus
// (test/fixtures/providers/streams, test/model/provider-replay.test.ts) found Glassbox mishandling:
// Mistral's content chunks and its refusal of stream_options, Groq's x_groq-only usage and its
// refusal of reasoning on input messages, Vertex AI's per-call index quirk, and DeepSeek's rule that
// reasoning goes back on every assistant message of a tool-using turn.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import { buildChatRequest } from '../../src/model/chat-completions/convert-messages.js';
import { chatCompletionToResponse } from '../../src/model/chat-completions/convert-response.js';
import { ChatStreamMapper } from '../../src/model/chat-completions/map-stream.js';
import { createGateway, type ModelMessage, type ModelRequest, type ModelStreamEvent } from '../../src/model/index.js';
import { startReplayServer, type ReplayProfile } from '../helpers/replay-provider.js';

const parse = (line: string): ChatCompletionChunk => JSON.parse(line) as ChatCompletionChunk;

function run(lines: string[]): ModelStreamEvent[] {
  const mapper = new ChatStreamMapper();
  return [...lines.flatMap((line) => mapper.push(parse(line))), ...mapper.finish()];
}

function done(events: ModelStreamEvent[]) {
  const event = events.find((candidate) => candidate.type === 'completed');
  assert.ok(event && event.type === 'completed');
  return event.response;
}

describe('Chat Completions shapes from real providers', () => {
  it("reads Mistral's content chunks: thinking is shown (and not sent back), text is the answer", () => {
    // vercel/ai packages/mistral/src/__fixtures__/mistral-reasoning.chunks.txt (magistral-medium-2507), verbatim.
    const events = run([
      '{"id":"a4e29c5b82f94d67b23e108a7c9df6e1","object":"chat.completion.chunk","created":1769088912,"model":"magistral-medium-2507","choices":[{"index":0,"delta":{"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"text","text":"The user is asking"}]}]},"finish_reason":null}]}',
      '{"id":"a4e29c5b82f94d67b23e108a7c9df6e1","object":"chat.completion.chunk","created":1769088912,"model":"magistral-medium-2507","choices":[{"index":0,"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":" for 2+2. This is basic arithmetic. 2+2=4."}]}]},"finish_reason":null}]}',
      '{"id":"a4e29c5b82f94d67b23e108a7c9df6e1","object":"chat.completion.chunk","created":1769088912,"model":"magistral-medium-2507","choices":[{"index":0,"delta":{"content":[{"type":"text","text":"2 + 2 = 4"}]},"finish_reason":null}]}',
      '{"id":"a4e29c5b82f94d67b23e108a7c9df6e1","object":"chat.completion.chunk","created":1769088912,"model":"magistral-medium-2507","choices":[{"index":0,"delta":{"content":""},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"total_tokens":56,"completion_tokens":46}}',
    ]);
    assert.deepEqual(
      events.filter((event) => event.type === 'reasoning-delta' || event.type === 'text-delta'),
      [
        { type: 'reasoning-delta', delta: 'The user is asking' },
        { type: 'reasoning-delta', delta: ' for 2+2. This is basic arithmetic. 2+2=4.' },
        { type: 'text-delta', delta: '2 + 2 = 4' },
      ],
    );
    const response = done(events);
    assert.equal(response.text, '2 + 2 = 4');
    assert.deepEqual(response.reasoning, [
      { format: 'chat', text: 'The user is asking for 2+2. This is basic arithmetic. 2+2=4.', state: null },
    ]);
    // Mistral's schema has no reasoning field (an unknown one is a 422): none goes back.
    const body = buildChatRequest(
      {
        model: 'magistral-medium-2507',
        messages: [
          { role: 'user', content: 'q' },
          { role: 'assistant', content: '', toolCalls: [{ id: 'gSIMJiOkT', name: 't', arguments: '{}' }], reasoning: response.reasoning },
          { role: 'tool', toolCallId: 'gSIMJiOkT', toolName: 't', content: 'ok', isError: false },
        ],
      },
      true,
    );
    assert.deepEqual(Object.keys(body.messages[1]!).sort(), ['content', 'role', 'tool_calls']);
  });

  it("reads Mistral's content chunks in a non-streamed answer too", () => {
    const completion = {
      id: 'x',
      object: 'chat.completion',
      created: 0,
      model: 'magistral-medium-2507',
      choices: [
        {
          index: 0,
          finish_reason: 'stop',
          message: {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: [{ type: 'text', text: 'Think.' }] },
              { type: 'text', text: 'Answer.' },
            ],
          },
        },
      ],
    } as unknown as ChatCompletion;
    const response = chatCompletionToResponse(completion);
    assert.equal(response.text, 'Answer.');
    assert.deepEqual(response.reasoning, [{ format: 'chat', text: 'Think.', state: null }]);
  });

  it("takes usage from Groq's x_groq when the chunk has no usage of its own", () => {
    // The finish chunk as Groq sent it before it added the standard field (vercel/ai groq provider tests, Oct 2024).
    const events = run([
      '{"id":"chatcmpl-e7f8e220-656c-4455-a132-dacfc1370798","object":"chat.completion.chunk","created":1711357598,"model":"gemma2-9b-it","system_fingerprint":"fp_3bc1b5746c","choices":[{"index":0,"delta":{"role":"assistant","content":"Hello"},"logprobs":null,"finish_reason":null}],"x_groq":{"id":"req_01jadadp0femyae9kav1gpkhe8"}}',
      '{"id":"chatcmpl-e7f8e220-656c-4455-a132-dacfc1370798","object":"chat.completion.chunk","created":1729171479,"model":"gemma2-9b-it","system_fingerprint":"fp_10c08bf97d","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"x_groq":{"id":"req_01jadadp0femyae9kav1gpkhe8","usage":{"queue_time":0.061348671,"prompt_tokens":18,"prompt_time":0.000211569,"completion_tokens":439,"completion_time":0.798181818,"total_tokens":457,"total_time":0.798393387}}}',
    ]);
    const usage = done(events).usage;
    assert.ok(usage);
    assert.deepEqual([usage.inputTokens, usage.outputTokens, usage.totalTokens], [18, 439, 457]);
  });

  it('keeps a Vertex AI call together when its first delta has another index than the rest', () => {
    // Google's documented stream_function_call_arguments example (see the vertex-gemini fixture), shortened.
    const chunk = (call: Record<string, unknown>, finish = '') =>
      `{"choices":[{"delta":{"role":"assistant","tool_calls":[${JSON.stringify(call)}]},${finish}"index":0,"logprobs":null}],"created":1770850461,"id":"nQiNafGyF5rw998PstqooAY","model":"google/gemini-3.1-pro-preview","object":"chat.completion.chunk","system_fingerprint":""}`;
    const part = (id: string, index: number, args: string, extra: Record<string, unknown> = {}) => ({
      ...extra,
      function: { arguments: args, name: 'get_current_weather' },
      id,
      index,
      type: 'function',
    });
    const events = run([
      chunk(part('a', 1, '', { extra_content: { google: { thought_signature: 'sig' } } })),
      chunk(part('a', 0, '{"location":"Boston')),
      chunk(part('a', 0, '"}')),
      chunk(part('b', 0, '')),
      chunk(part('b', 1, '{"location":"Delhi')),
      chunk(part('b', 1, '"}'), '"finish_reason":"tool_calls",'),
    ]);
    assert.deepEqual(done(events).toolCalls, [
      {
        id: 'a',
        name: 'get_current_weather',
        arguments: '{"location":"Boston"}',
        providerFields: { format: 'chat', fields: { extra_content: { google: { thought_signature: 'sig' } } } },
      },
      { id: 'b', name: 'get_current_weather', arguments: '{"location":"Delhi"}' },
    ]);
  });

  it('still tells apart two calls of one answer that share an id', () => {
    const call = (index: number, id: string | undefined, name: string | undefined, args: string) =>
      JSON.stringify({
        id: 'c',
        object: 'chat.completion.chunk',
        created: 0,
        model: 'm',
        choices: [
          {
            index: 0,
            delta: {
              tool_calls: [{ index, ...(id ? { id, type: 'function' } : {}), function: { ...(name ? { name } : {}), arguments: args } }],
            },
            finish_reason: null,
          },
        ],
      });
    const events = run([
      call(0, 'call_1', 'echo', ''),
      call(0, undefined, undefined, '{"text":"a"}'),
      call(1, 'call_1', 'echo', ''),
      call(1, undefined, undefined, '{"text":"b"}'),
      '{"id":"c","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}',
    ]);
    assert.deepEqual(
      done(events).toolCalls.map((call) => call.arguments),
      ['{"text":"a"}', '{"text":"b"}'],
    );
  });
});

describe('reasoning sent back on the Chat wire', () => {
  const reasoning = (text: string) => [{ format: 'chat' as const, text, state: { field: 'reasoning_content' } }];
  const turn = (n: number, withTool: boolean): ModelMessage[] =>
    withTool
      ? [
          { role: 'user', content: `q${n}` },
          { role: 'assistant', content: '', toolCalls: [{ id: `c${n}`, name: 't', arguments: '{}' }], reasoning: reasoning(`think ${n}a`) },
          { role: 'tool', toolCallId: `c${n}`, toolName: 't', content: 'ok', isError: false },
          { role: 'assistant', content: `answer ${n}`, toolCalls: [], reasoning: reasoning(`think ${n}b`) },
        ]
      : [
          { role: 'user', content: `q${n}` },
          { role: 'assistant', content: `answer ${n}`, toolCalls: [], reasoning: reasoning(`think ${n}`) },
        ];

  it("goes on every assistant message of a turn that called tools, as DeepSeek's thinking mode requires, and on no other", () => {
    const body = buildChatRequest(
      { model: 'deepseek-reasoner', messages: [...turn(1, true), ...turn(2, false), { role: 'user', content: 'q3' }] },
      true,
    );
    const sent = (body.messages as unknown as Array<Record<string, unknown>>)
      .filter((message) => message.role === 'assistant')
      .map((message) => message.reasoning_content);
    assert.deepEqual(sent, ['think 1a', 'think 1b', undefined]);
  });

  it('is left out, with stream_options, once the provider refused them', () => {
    const body = buildChatRequest({ model: 'm', messages: turn(1, true) }, true, { omit: new Set(['reasoning', 'stream_options']) });
    assert.equal(body.stream_options, undefined);
    for (const message of body.messages as unknown as Array<Record<string, unknown>>) assert.equal(message.reasoning_content, undefined);
  });
});

describe('optional fields a strict provider refuses', () => {
  const request: ModelRequest = {
    model: 'm',
    messages: [
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'c1', name: 't', arguments: '{}' }],
        reasoning: [{ format: 'chat', text: 'think', state: { field: 'reasoning' } }],
      },
      { role: 'tool', toolCallId: 'c1', toolName: 't', content: 'ok', isError: false },
    ],
  };
  const answer = [
    '{"id":"x","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"done"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"total_tokens":4,"completion_tokens":1}}',
    '[DONE]',
  ];
  const profile = (requirement: ReplayProfile['requirements'][number], rounds = 1): ReplayProfile => ({
    name: 'inline',
    provider: 'test',
    wireApi: 'chat',
    model: 'm',
    source: ['inline'],
    notes: '',
    tool: { name: 't', output: 'ok' },
    rounds: Array.from({ length: rounds }, () => ({ frames: answer })),
    requirements: [requirement],
    expect: { rounds: [] },
  });

  async function stream(
    server: { baseURL: string },
    gateway = createGateway({ wireApi: 'chat', baseURL: server.baseURL, apiKey: 'test-key' }),
  ) {
    let text = '';
    for await (const event of gateway.streamResponse(request)) if (event.type === 'text-delta') text += event.delta;
    return { text, gateway };
  }

  it("drops stream_options after Mistral's 422 and sends it no more", async () => {
    const server = await startReplayServer(
      profile(
        {
          id: 'no-stream-options',
          target: '',
          absent: ['stream_options'],
          why: 'Mistral',
          source: 'https://github.com/avante-corp/avante.nvim/issues/2347',
          error: {
            status: 422,
            body: {
              object: 'error',
              message: {
                detail: [
                  {
                    type: 'extra_forbidden',
                    loc: ['body', 'stream_options', 'include_usage'],
                    msg: 'Extra inputs are not permitted',
                    input: true,
                  },
                ],
              },
              type: 'invalid_request_error',
              param: null,
              code: null,
            },
          },
        },
        2,
      ),
    );
    try {
      const { text, gateway } = await stream(server);
      assert.equal(text, 'done');
      await stream(server, gateway);
      assert.deepEqual(
        server.rejections.map((rejection) => rejection.requirement),
        ['no-stream-options'],
      );
      assert.equal(server.requests.length, 3);
    } finally {
      await server.close();
    }
  });

  it("drops reasoning after Groq's 400 'property … is unsupported'", async () => {
    const server = await startReplayServer(
      profile({
        id: 'no-reasoning',
        target: 'messages[role=assistant][*]',
        absent: ['reasoning'],
        why: 'Groq',
        source: 'https://github.com/karthink/gptel/issues/774',
        error: {
          status: 400,
          body: {
            error: {
              message:
                "'messages.1' : for 'role:assistant' the following must be satisfied[('messages.1' : property 'reasoning' is unsupported, did you mean 'role'?)]",
              type: 'invalid_request_error',
            },
          },
        },
      }),
    );
    try {
      assert.equal((await stream(server)).text, 'done');
      assert.equal(server.rejections.length, 1);
    } finally {
      await server.close();
    }
  });

  it('does not drop reasoning when DeepSeek asks for it (the field is named, but wanted)', async () => {
    const server = await startReplayServer(
      profile({
        id: 'wants-reasoning',
        target: 'messages[role=assistant][0]',
        match: { reasoning_content: 'never sent' },
        why: 'DeepSeek',
        source: 'https://api-docs.deepseek.com/guides/thinking_mode',
        error: {
          status: 400,
          body: {
            error: {
              message: 'The `reasoning_content` in the thinking mode must be passed back to the API.',
              type: 'invalid_request_error',
              param: null,
              code: 'invalid_request_error',
            },
          },
        },
      }),
    );
    try {
      await assert.rejects(stream(server), /must be passed back/);
      assert.equal(server.requests.length, 1);
    } finally {
      await server.close();
    }
  });
});
