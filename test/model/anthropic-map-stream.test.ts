// The anthropic stream mapper and request conversion on their own: pure, no server.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import { isModelError, type ModelErrorCode, type ModelStreamEvent } from '../../src/model/index.js';
import { AnthropicStreamMapper } from '../../src/model/anthropic/map-stream.js';
import { buildAnthropicRequest } from '../../src/model/anthropic/convert-request.js';
import { usesAdaptiveThinking } from '../../src/model/anthropic/thinking-config.js';
import { sdkBaseURL } from '../../src/model/anthropic/anthropic-gateway.js';

function run(events: unknown[], mapper = new AnthropicStreamMapper()): ModelStreamEvent[] {
  const out: ModelStreamEvent[] = [];
  for (const event of events) out.push(...mapper.push(event as RawMessageStreamEvent));
  out.push(...mapper.finish());
  return out;
}

function throwsCode(action: () => unknown, code: ModelErrorCode, pattern?: RegExp): void {
  assert.throws(action, (error: unknown) => {
    assert.ok(isModelError(error));
    assert.equal(error.code, code, error.message);
    if (pattern) assert.match(error.message, pattern);
    return true;
  });
}

const start = { type: 'message_start', message: { id: 'msg_1', model: 'm', usage: { input_tokens: 5, output_tokens: 1 } } };
const stop = (reason: string) => [
  { type: 'message_delta', delta: { stop_reason: reason }, usage: { output_tokens: 3 } },
  { type: 'message_stop' },
];

describe('AnthropicStreamMapper', () => {
  it('turns stop reasons that are not answers into errors', () => {
    throwsCode(() => run([start, ...stop('max_tokens')]), 'OUTPUT_TRUNCATED');
    throwsCode(() => run([start, ...stop('refusal')]), 'MODEL_REFUSED');
    throwsCode(() => run([start, ...stop('model_context_window_exceeded')]), 'CONTEXT_OVERFLOW');
    throwsCode(() => run([start, ...stop('pause_turn')]), 'RESPONSE_FAILED', /pause_turn/);
    const ok = run([start, { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, ...stop('stop_sequence')]);
    assert.equal(ok.at(-1)?.type, 'completed');
  });

  it('needs message_stop to be complete', () => {
    const mapper = new AnthropicStreamMapper();
    mapper.push(start as RawMessageStreamEvent);
    mapper.push(stop('end_turn')[0] as RawMessageStreamEvent);
    assert.equal(mapper.complete, false);
    throwsCode(() => mapper.finish(), 'STREAM_INTERRUPTED', /message_stop/);
  });

  it('refuses a tool_use block without an id and a delta for a block that never started', () => {
    throwsCode(
      () => run([start, { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: '', name: 'x', input: {} } }]),
      'MALFORMED_STREAM',
      /an id/,
    );
    throwsCode(
      () => run([start, { type: 'content_block_delta', index: 3, delta: { type: 'input_json_delta', partial_json: '{' } }]),
      'MALFORMED_STREAM',
      /never started/,
    );
  });

  it('places text and thinking deltas whose block start a compatible server skipped', () => {
    const events = run([
      start,
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'hm' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'hi' } },
      ...stop('end_turn'),
    ]);
    const done = events.at(-1);
    assert.ok(done?.type === 'completed');
    assert.equal(done.response.text, 'hi');
    assert.deepEqual(done.response.reasoning, [
      { format: 'anthropic', text: 'hm', state: { type: 'thinking', thinking: 'hm', signature: 'sig' } },
    ]);
  });

  it('ignores server tool blocks and unknown deltas, and finishes blocks left open at message_stop', () => {
    const events = run([
      start,
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} },
      },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"q":1}' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_1', name: 'read', input: {} } },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"a":' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'citations_delta', citation: {} } },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '1}' } },
      ...stop('tool_use'),
    ]);
    assert.deepEqual(
      events.filter((e) => e.type.startsWith('tool-call')).map((e) => e.type),
      ['tool-call-start', 'tool-call-delta', 'tool-call-delta', 'tool-call-end'],
    );
    const done = events.at(-1);
    assert.ok(done?.type === 'completed');
    assert.deepEqual(done.response.toolCalls, [{ id: 'toolu_1', name: 'read', arguments: '{"a":1}' }]);
  });

  it('enforces the size limits on text, arguments and thinking', () => {
    const limits = { maxTextChars: 10, maxArgumentChars: 10, maxResponseChars: 100 };
    const text = { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } };
    throwsCode(
      () =>
        run(
          [start, text, { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'x'.repeat(11) } }],
          new AnthropicStreamMapper(limits),
        ),
      'RESPONSE_TOO_LARGE',
    );
    const thinking = { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } };
    throwsCode(
      () =>
        run(
          [start, thinking, { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'x'.repeat(11) } }],
          new AnthropicStreamMapper(limits),
        ),
      'RESPONSE_TOO_LARGE',
    );
  });

  it('merges message_delta usage over message_start usage', () => {
    const events = run([
      {
        type: 'message_start',
        message: {
          id: 'm',
          model: 'x',
          usage: { input_tokens: 10, cache_read_input_tokens: 90, cache_creation_input_tokens: 5, output_tokens: 1 },
        },
      },
      {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn' },
        usage: { input_tokens: null, output_tokens: 40, output_tokens_details: { thinking_tokens: 30 } },
      },
      { type: 'message_stop' },
    ]);
    const done = events.at(-1);
    assert.ok(done?.type === 'completed' && done.response.usage);
    const { raw: _raw, ...usage } = done.response.usage;
    assert.deepEqual(usage, {
      inputTokens: 105,
      cachedInputTokens: 90,
      cacheWriteInputTokens: 5,
      outputTokens: 40,
      reasoningTokens: 30,
      totalTokens: 145,
    });
  });
});

describe('anthropic request conversion', () => {
  it('knows which models take adaptive thinking', () => {
    for (const model of [
      'claude-sonnet-5-5',
      'claude-opus-5',
      'claude-fable-5-1',
      'claude-opus-4-6',
      'claude-sonnet-4-6',
      'anthropic/claude-opus-4-8',
      'claude-haiku-5-5',
    ]) {
      assert.equal(usesAdaptiveThinking(model), true, model);
    }
    for (const model of [
      'claude-sonnet-4-5',
      'claude-sonnet-4-5-20250929',
      'claude-opus-4-1',
      'claude-opus-4-20250514',
      'claude-sonnet-4-0',
      'claude-haiku-4-5',
      'claude-3-7-sonnet-latest',
      'claude-sonnet-4-5@20250929',
      'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
      'deepseek-chat',
      'glm-4.6',
    ]) {
      assert.equal(usesAdaptiveThinking(model), false, model);
    }
  });

  it('drops empty text, keeps only anthropic reasoning, and merges consecutive turns', () => {
    const body = buildAnthropicRequest(
      {
        model: 'claude-sonnet-5-5',
        messages: [
          { role: 'system', content: 'S' },
          { role: 'user', content: 'a' },
          { role: 'user', content: 'b' },
          {
            role: 'assistant',
            content: '',
            toolCalls: [{ id: 't1', name: 'x', arguments: '{}', providerFields: { format: 'chat', fields: { extra_content: 1 } } }],
            reasoning: [
              { format: 'chat', text: 'c', state: { field: 'reasoning_content' } },
              { format: 'anthropic', text: 'r', state: { type: 'thinking', thinking: 'r', signature: 's' } },
            ],
          },
          { role: 'tool', toolCallId: 't1', toolName: 'x', content: '', isError: false },
        ],
      },
      true,
    );
    assert.equal(body.stream, true);
    assert.deepEqual(body.messages, [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b', cache_control: { type: 'ephemeral' } },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'r', signature: 's' },
          { type: 'tool_use', id: 't1', name: 'x', input: {} },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', cache_control: { type: 'ephemeral' } }] },
    ]);
  });

  it('gives the SDK a base URL without /v1', () => {
    assert.equal(sdkBaseURL('https://api.anthropic.com'), 'https://api.anthropic.com');
    assert.equal(sdkBaseURL('http://127.0.0.1:9/v1'), 'http://127.0.0.1:9');
    assert.equal(sdkBaseURL('https://openrouter.ai/api/v1/'), 'https://openrouter.ai/api');
    assert.equal(sdkBaseURL('https://proxy.example/anthropic'), 'https://proxy.example/anthropic');
  });
});
