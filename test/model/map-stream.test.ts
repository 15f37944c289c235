import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { ChatStreamMapper } from '../../src/model/chat-completions/map-stream.js';
import { isModelError, type ModelErrorCode, type ModelStreamEvent } from '../../src/model/index.js';
import { ResponsesStreamMapper } from '../../src/model/responses/map-stream.js';

type Delta = ChatCompletionChunk.Choice.Delta;

function chunk(delta: Delta, finishReason: string | null = null): ChatCompletionChunk {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'm-1',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason as ChatCompletionChunk.Choice['finish_reason'] }],
  };
}

function usageChunk(usage: Record<string, unknown>): ChatCompletionChunk {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'm-1',
    choices: [],
    usage,
  } as unknown as ChatCompletionChunk;
}

function runChat(chunks: ChatCompletionChunk[]): ModelStreamEvent[] {
  const mapper = new ChatStreamMapper();
  const events = chunks.flatMap((c) => mapper.push(c));
  return [...events, ...mapper.finish()];
}

function throwsCode(fn: () => unknown, code: ModelErrorCode, pattern?: RegExp): void {
  assert.throws(fn, (error: unknown) => isModelError(error) && error.code === code && (!pattern || pattern.test(error.message)));
}

describe('ChatStreamMapper', () => {
  it('streams text, accumulates interleaved tool-call deltas by index and ends with usage', () => {
    const events = runChat([
      chunk({ role: 'assistant', content: '' }),
      chunk({ content: 'Hel' }),
      chunk({ content: 'lo' }),
      chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'read', arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'list', arguments: '{"d"' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"p":' } }] }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: ':"."}' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"x"}' } }] }),
      chunk({}, 'tool_calls'),
      usageChunk({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, prompt_tokens_details: { cached_tokens: 4 } }),
    ]);
    const callA = { id: 'call_a', name: 'read', arguments: '{"p":"x"}' };
    const callB = { id: 'call_b', name: 'list', arguments: '{"d":"."}' };
    assert.deepEqual(events, [
      { type: 'text-delta', delta: 'Hel' },
      { type: 'text-delta', delta: 'lo' },
      { type: 'tool-call-start', index: 0, id: 'call_a', name: 'read' },
      { type: 'tool-call-start', index: 1, id: 'call_b', name: 'list' },
      { type: 'tool-call-delta', index: 1, delta: '{"d"' },
      { type: 'tool-call-delta', index: 0, delta: '{"p":' },
      { type: 'tool-call-delta', index: 1, delta: ':"."}' },
      { type: 'tool-call-delta', index: 0, delta: '"x"}' },
      { type: 'tool-call-end', index: 0, call: callA },
      { type: 'tool-call-end', index: 1, call: callB },
      { type: 'message-done', text: 'Hello', toolCalls: [callA, callB], reasoning: [] },
      {
        type: 'completed',
        response: {
          text: 'Hello',
          toolCalls: [callA, callB],
          reasoning: [],
          usage: {
            inputTokens: 10,
            cachedInputTokens: 4,
            outputTokens: 5,
            reasoningTokens: 0,
            totalTokens: 15,
            raw: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, prompt_tokens_details: { cached_tokens: 4 } },
          },
          finishReason: 'tool_calls',
          responseId: 'chatcmpl-1',
          model: 'm-1',
        },
      },
    ]);
  });

  it('reports null usage when none is sent and null cached tokens when details are missing', () => {
    const none = runChat([chunk({ content: 'x' }, 'stop')]).at(-1);
    assert.equal(none?.type === 'completed' && none.response.usage, null);
    const bare = runChat([chunk({ content: 'x' }, 'stop'), usageChunk({ prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 })]).at(-1);
    assert.ok(bare?.type === 'completed');
    assert.equal(bare.response.usage?.cachedInputTokens, null);
    assert.equal(bare.response.usage?.reasoningTokens, 0);
  });

  it('tells apart calls that a server sends all at index 0 by their ids', () => {
    const events = runChat([
      chunk({ tool_calls: [{ index: 0, id: 'c1', function: { name: 'a', arguments: '{}' } }] }),
      chunk({ tool_calls: [{ index: 0, id: 'c2', function: { name: 'b', arguments: '{}' } }] }),
      chunk({}, 'stop'),
    ]);
    const done = events.find((event) => event.type === 'message-done');
    assert.deepEqual(done?.type === 'message-done' && done.toolCalls.map((call) => call.id), ['c1', 'c2']);
    const completed = events.at(-1);
    assert.equal(completed?.type === 'completed' && completed.response.finishReason, 'tool_calls');
  });

  it('throws for refusal, length, content_filter, a missing finish and a call without id', () => {
    throwsCode(
      () => runChat([chunk({ refusal: "I can't " }), chunk({ refusal: 'help with that.' }), chunk({}, 'stop')]),
      'MODEL_REFUSED',
      /I can't help with that\./,
    );
    throwsCode(() => runChat([chunk({ content: 'abc' }, 'length')]), 'OUTPUT_TRUNCATED');
    throwsCode(() => runChat([chunk({ content: 'abc' }, 'content_filter')]), 'CONTENT_FILTERED');
    throwsCode(() => runChat([chunk({ content: 'abc' })]), 'STREAM_INTERRUPTED');
    throwsCode(
      () => runChat([chunk({ tool_calls: [{ index: 0, function: { name: 'x', arguments: '{}' } }] }), chunk({}, 'tool_calls')]),
      'MALFORMED_STREAM',
      /without an id/,
    );
  });
});

function responseObject(fields: Record<string, unknown>): Record<string, unknown> {
  return {
    id: 'resp_1',
    object: 'response',
    model: 'm-2',
    status: 'completed',
    output: [],
    error: null,
    incomplete_details: null,
    ...fields,
  };
}

function runResponses(events: Array<Record<string, unknown>>): ModelStreamEvent[] {
  const mapper = new ResponsesStreamMapper();
  const out = events.flatMap((event) => mapper.push(event as unknown as ResponseStreamEvent));
  return [...out, ...mapper.finish()];
}

describe('ResponsesStreamMapper', () => {
  it('maps text, function-call items and completion with usage', () => {
    const finalCall = { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'read', arguments: '{"p":"x"}', status: 'completed' };
    const usage = {
      input_tokens: 20,
      output_tokens: 7,
      total_tokens: 27,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 2 },
    };
    const events = runResponses([
      { type: 'response.created', response: responseObject({ status: 'in_progress' }) },
      { type: 'response.output_text.delta', delta: 'Look', item_id: 'msg_1', output_index: 0, content_index: 0 },
      { type: 'response.output_text.delta', delta: 'ing', item_id: 'msg_1', output_index: 0, content_index: 0 },
      { type: 'response.output_item.added', output_index: 1, item: { ...finalCall, arguments: '', status: 'in_progress' } },
      { type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 1, delta: '{"p":' },
      { type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 1, delta: '"x"}' },
      { type: 'response.function_call_arguments.done', item_id: 'fc_1', output_index: 1, arguments: '{"p":"x"}' },
      { type: 'response.output_item.done', output_index: 1, item: finalCall },
      {
        type: 'response.completed',
        response: responseObject({
          output: [
            {
              type: 'message',
              id: 'msg_1',
              role: 'assistant',
              status: 'completed',
              content: [{ type: 'output_text', text: 'Looking', annotations: [] }],
            },
            finalCall,
          ],
          usage,
        }),
      },
    ]);
    const call = { id: 'call_1', name: 'read', arguments: '{"p":"x"}' };
    assert.deepEqual(events, [
      { type: 'text-delta', delta: 'Look' },
      { type: 'text-delta', delta: 'ing' },
      { type: 'tool-call-start', index: 0, id: 'call_1', name: 'read' },
      { type: 'tool-call-delta', index: 0, delta: '{"p":' },
      { type: 'tool-call-delta', index: 0, delta: '"x"}' },
      { type: 'tool-call-end', index: 0, call },
      { type: 'message-done', text: 'Looking', toolCalls: [call], reasoning: [] },
      {
        type: 'completed',
        response: {
          text: 'Looking',
          toolCalls: [call],
          reasoning: [],
          usage: { inputTokens: 20, cachedInputTokens: 0, outputTokens: 7, reasoningTokens: 2, totalTokens: 27, raw: usage },
          finishReason: 'tool_calls',
          responseId: 'resp_1',
          model: 'm-2',
        },
      },
    ]);
  });

  it('fills in text and calls that only appear in the completed response', () => {
    const events = runResponses([
      {
        type: 'response.completed',
        response: responseObject({
          output: [
            {
              type: 'message',
              id: 'm',
              role: 'assistant',
              status: 'completed',
              content: [{ type: 'output_text', text: 'Hi', annotations: [] }],
            },
            { type: 'function_call', id: 'fc', call_id: 'c9', name: 'ls', arguments: '{}' },
          ],
        }),
      },
    ]);
    assert.deepEqual(
      events.map((event) => event.type),
      ['text-delta', 'tool-call-start', 'tool-call-delta', 'tool-call-end', 'message-done', 'completed'],
    );
    const completed = events.at(-1);
    assert.ok(completed?.type === 'completed');
    assert.equal(completed.response.text, 'Hi');
    assert.equal(completed.response.usage, null);
  });

  it('throws for failed, incomplete, error events, refusals and a stream without completion', () => {
    throwsCode(
      () =>
        runResponses([
          { type: 'response.failed', response: responseObject({ status: 'failed', error: { code: 'server_error', message: 'It broke' } }) },
        ]),
      'RESPONSE_FAILED',
      /It broke/,
    );
    throwsCode(
      () =>
        runResponses([
          {
            type: 'response.incomplete',
            response: responseObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } }),
          },
        ]),
      'OUTPUT_TRUNCATED',
    );
    throwsCode(
      () =>
        runResponses([
          {
            type: 'response.incomplete',
            response: responseObject({ status: 'incomplete', incomplete_details: { reason: 'content_filter' } }),
          },
        ]),
      'CONTENT_FILTERED',
    );
    throwsCode(
      () => runResponses([{ type: 'error', code: 'server_error', message: 'Stream exploded', param: null }]),
      'RESPONSE_FAILED',
      /Stream exploded/,
    );
    throwsCode(
      () =>
        runResponses([
          { type: 'response.refusal.delta', delta: 'No.', item_id: 'm', output_index: 0, content_index: 0 },
          { type: 'response.completed', response: responseObject({}) },
        ]),
      'MODEL_REFUSED',
      /No\./,
    );
    throwsCode(
      () => runResponses([{ type: 'response.output_text.delta', delta: 'x', item_id: 'm', output_index: 0, content_index: 0 }]),
      'STREAM_INTERRUPTED',
    );
  });
});

describe('stream mappers: size limits', () => {
  const limits = { maxTextChars: 10, maxArgumentChars: 8, maxResponseChars: 20 };

  it('Chat counts refusal text with the answer text and checks each delta before keeping it', () => {
    const mapper = new ChatStreamMapper(limits);
    assert.deepEqual(mapper.push(chunk({ content: '12345' })), [{ type: 'text-delta', delta: '12345' }]);
    throwsCode(() => mapper.push(chunk({ refusal: '678901' })), 'RESPONSE_TOO_LARGE', /10 characters \(limits\.maxTextChars\)/);
    const calls = new ChatStreamMapper(limits);
    calls.push(chunk({ tool_calls: [{ index: 0, id: 'a', type: 'function', function: { name: 'write', arguments: '{"x":1}' } }] }));
    throwsCode(
      () => calls.push(chunk({ tool_calls: [{ index: 0, function: { arguments: '99' } }] })),
      'RESPONSE_TOO_LARGE',
      /tool call #0 \(write\) passed 8 characters/,
    );
  });

  it('Responses checks arguments and text that arrive whole, not only as deltas', () => {
    const added = (args: string) => ({
      type: 'response.output_item.added',
      output_index: 0,
      item: { type: 'function_call', id: 'fc', call_id: 'c', name: 'write', arguments: args },
    });
    throwsCode(
      () => new ResponsesStreamMapper(limits).push(added('123456789') as unknown as ResponseStreamEvent),
      'RESPONSE_TOO_LARGE',
      /maxArgumentChars/,
    );
    const done = new ResponsesStreamMapper(limits);
    done.push(added('') as unknown as ResponseStreamEvent);
    throwsCode(
      () =>
        done.push({
          type: 'response.function_call_arguments.done',
          item_id: 'fc',
          output_index: 0,
          name: 'write',
          arguments: '123456789',
        } as unknown as ResponseStreamEvent),
      'RESPONSE_TOO_LARGE',
      /maxArgumentChars/,
    );
    const message = {
      type: 'message',
      id: 'm',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'x'.repeat(11), annotations: [] }],
    };
    throwsCode(
      () =>
        new ResponsesStreamMapper(limits).push({
          type: 'response.completed',
          response: responseObject({ output: [message] }),
        } as unknown as ResponseStreamEvent),
      'RESPONSE_TOO_LARGE',
      /maxTextChars/,
    );
  });

  it('Responses counts every call toward the total, and a replaced value only once', () => {
    const mapper = new ResponsesStreamMapper(limits);
    const push = (event: Record<string, unknown>) => mapper.push(event as unknown as ResponseStreamEvent);
    const item = (i: number, args: string) => ({
      type: 'response.output_item.done',
      output_index: i,
      item: { type: 'function_call', id: `fc${i}`, call_id: `c${i}`, name: 'w', arguments: args },
    });
    push({
      type: 'response.output_item.added',
      output_index: 0,
      item: { type: 'function_call', id: 'fc0', call_id: 'c0', name: 'w', arguments: '' },
    });
    push({ type: 'response.function_call_arguments.delta', item_id: 'fc0', output_index: 0, delta: '1234' });
    // The finished value replaces the streamed preview: call 0 now holds 8 characters, not 12.
    push({ type: 'response.function_call_arguments.done', item_id: 'fc0', output_index: 0, name: 'w', arguments: '12345678' });
    push(item(1, '12345678'));
    push(item(2, '1234'));
    throwsCode(() => push(item(3, '1')), 'RESPONSE_TOO_LARGE', /20 characters \(limits\.maxResponseChars\)/);
  });
});
