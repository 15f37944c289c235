// Tool call arguments sent as a JSON value instead of a JSON string. llama-server answered that way
// by default for a while and does so again when started with `--tool-args-object`
// (https://github.com/ggml-org/llama.cpp/issues/20198, "tool_calls returns arguments as JSON object
// instead of string"; https://github.com/ggml-org/llama.cpp/pull/20202, which added the flag);
// clients met it as a dict or a list (https://github.com/NousResearch/hermes-agent/pull/1114). An
// object cannot be streamed in pieces, so it comes whole, in one delta.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import { buildChatRequest } from '../../src/model/chat-completions/convert-messages.js';
import { chatCompletionToResponse } from '../../src/model/chat-completions/convert-response.js';
import { ChatStreamMapper } from '../../src/model/chat-completions/map-stream.js';
import { createGateway, type ModelRequest, type ModelStreamEvent, type ModelToolCall } from '../../src/model/index.js';
import { startReplayServer, type ReplayProfile } from '../helpers/replay-provider.js';

const chunk = (delta: unknown, finish: string | null = null): string =>
  JSON.stringify({
    id: 'chatcmpl-llama',
    object: 'chat.completion.chunk',
    created: 1772900000,
    model: 'qwen3-coder-30b',
    choices: [{ index: 0, delta, finish_reason: finish }],
  });

/** llama-server's stream with `--tool-args-object`: the call's arguments arrive as one object. */
const OBJECT_STREAM = [
  chunk({ role: 'assistant', content: null }),
  chunk({ tool_calls: [{ index: 0, id: 'call_llama_1', type: 'function', function: { name: 'run_command', arguments: '' } }] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: { command: 'ls -la', workdir: '/tmp' } } }] }),
  chunk({}, 'tool_calls'),
];

function callsOf(events: ModelStreamEvent[]): ModelToolCall[] {
  const done = events.find((event) => event.type === 'completed');
  assert.ok(done && done.type === 'completed');
  return done.response.toolCalls;
}

describe('tool arguments sent as a JSON object', () => {
  it('become their JSON text in a stream, never "[object Object]"', () => {
    const mapper = new ChatStreamMapper();
    const events = [...OBJECT_STREAM.flatMap((line) => mapper.push(JSON.parse(line) as ChatCompletionChunk)), ...mapper.finish()];
    const [call] = callsOf(events);
    assert.equal(call?.arguments, '{"command":"ls -la","workdir":"/tmp"}');
    assert.deepEqual(
      events.filter((event) => event.type === 'tool-call-delta').map((event) => event.delta),
      ['{"command":"ls -la","workdir":"/tmp"}'],
    );
  });

  it('become their JSON text in a non-streamed answer, objects and strings alike', () => {
    const completion = {
      id: 'chatcmpl-llama',
      object: 'chat.completion',
      created: 1772900000,
      model: 'qwen3-coder-30b',
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'a', type: 'function', function: { name: 'get_weather', arguments: { city: 'Paris' } } },
              { id: 'b', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
            ],
          },
        },
      ],
    } as unknown as ChatCompletion;
    const response = chatCompletionToResponse(completion);
    assert.deepEqual(
      response.toolCalls.map((call) => call.arguments),
      ['{"city":"Paris"}', '{"city":"Oslo"}'],
    );
  });

  it('go back to the server as a JSON string through the SDK, on the next round', async () => {
    const profile: ReplayProfile = {
      name: 'inline-llama-tool-args-object',
      provider: 'llama.cpp',
      wireApi: 'chat',
      model: 'qwen3-coder-30b',
      source: ['https://github.com/ggml-org/llama.cpp/pull/20202'],
      notes: '',
      tool: { name: 'run_command', output: 'ok' },
      rounds: [{ frames: [...OBJECT_STREAM, '[DONE]'] }, { frames: [chunk({ role: 'assistant', content: 'done' }, 'stop'), '[DONE]'] }],
      requirements: [
        {
          id: 'arguments-are-json-text',
          request: 2,
          target: 'messages[role=assistant][0].tool_calls[0].function.arguments',
          equals: '{"command":"ls -la","workdir":"/tmp"}',
          why: 'OpenAI-compatible servers read the arguments of an earlier call as a JSON string',
          source: 'https://platform.openai.com/docs/api-reference/chat/create',
        },
      ],
      expect: { rounds: [] },
    };
    const server = await startReplayServer(profile);
    try {
      const gateway = createGateway({ wireApi: 'chat', baseURL: server.baseURL, apiKey: 'test-key' });
      const request: ModelRequest = { model: 'qwen3-coder-30b', messages: [{ role: 'user', content: 'list /tmp' }] };
      const events: ModelStreamEvent[] = [];
      for await (const event of gateway.streamResponse(request)) events.push(event);
      const calls = callsOf(events);
      const next: ModelRequest = {
        ...request,
        messages: [
          ...request.messages,
          { role: 'assistant', content: '', toolCalls: calls },
          { role: 'tool', toolCallId: calls[0]!.id, toolName: 'run_command', content: 'ok', isError: false },
        ],
      };
      for await (const _ of gateway.streamResponse(next)) {
        // drained
      }
      assert.deepEqual(server.rejections, []);
      assert.equal(server.accepted().length, 2);
    } finally {
      await server.close();
    }
  });

  it('recorded as an object (a session written by a build that kept it) still go back as JSON text', () => {
    const body = buildChatRequest(
      {
        model: 'm',
        messages: [
          { role: 'user', content: 'q' },
          { role: 'assistant', content: '', toolCalls: [{ id: 'a', name: 't', arguments: { city: 'Paris' } as unknown as string }] },
        ],
      },
      false,
    );
    const sent = body.messages[1] as { tool_calls: Array<{ function: { arguments: unknown } }> };
    assert.equal(sent.tool_calls[0]!.function.arguments, '{"city":"Paris"}');
  });
});
