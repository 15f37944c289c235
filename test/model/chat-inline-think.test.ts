// MiniMax M2.x on its OpenAI-compatible API (without `reasoning_split`) writes its reasoning into
// `content`, wrapped in <think>…</think> before the answer
// (https://github.com/MiniMax-AI/MiniMax-M2/issues/18: the thinking is in
// `response.choices[0].message.content`; https://github.com/vellum-ai/vellum-assistant/pull/34556:
// "MiniMax embeds reasoning in `content` wrapped in <think>...</think> tags"), and its interleaved
// thinking needs that content back unchanged in the history. Shown as reasoning, sent back whole.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import { buildChatRequest } from '../../src/model/chat-completions/convert-messages.js';
import { chatCompletionToResponse } from '../../src/model/chat-completions/convert-response.js';
import { ChatStreamMapper } from '../../src/model/chat-completions/map-stream.js';
import type { ModelResponse, ModelStreamEvent } from '../../src/model/index.js';

const chunk = (delta: unknown, finish: string | null = null): ChatCompletionChunk =>
  ({
    id: '05b1f0c8a1e6',
    object: 'chat.completion.chunk',
    created: 1762000000,
    model: 'MiniMax-M2.1',
    choices: [{ index: 0, delta, finish_reason: finish }],
  }) as ChatCompletionChunk;

function run(pieces: string[], toolCall = false): ModelStreamEvent[] {
  const mapper = new ChatStreamMapper();
  const chunks = pieces.map((content, i) => chunk(i === 0 ? { role: 'assistant', content } : { content }));
  if (toolCall) {
    chunks.push(
      chunk({
        tool_calls: [{ index: 0, id: 'call_function_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } }],
      }),
    );
  }
  chunks.push(chunk({}, toolCall ? 'tool_calls' : 'stop'));
  return [...chunks.flatMap((c) => mapper.push(c)), ...mapper.finish()];
}

function done(events: ModelStreamEvent[]): ModelResponse {
  const event = events.find((candidate) => candidate.type === 'completed');
  assert.ok(event && event.type === 'completed');
  return event.response;
}

function sentBack(response: ModelResponse): unknown {
  const body = buildChatRequest(
    {
      model: 'MiniMax-M2.1',
      messages: [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: response.text, toolCalls: response.toolCalls, reasoning: response.reasoning },
        ...response.toolCalls.map((call) => ({
          role: 'tool' as const,
          toolCallId: call.id,
          toolName: call.name,
          content: 'ok',
          isError: false,
        })),
      ],
    },
    true,
  );
  return (body.messages[1] as { content: unknown }).content;
}

const CONTENT = '<think>\nThe user asks for 2+2. That is 4.\n</think>\n\n2 + 2 = 4.';

describe('a <think> block in the content (MiniMax)', () => {
  it('streams as reasoning, even with both tags cut across chunks, and the answer is only the text', () => {
    const events = run(['<thi', 'nk>\nThe user asks', ' for 2+2. That is 4.\n</th', 'ink>', '\n\n2 + 2', ' = 4.']);
    const text = events.flatMap((event) => (event.type === 'text-delta' ? [event.delta] : [])).join('');
    const thought = events.flatMap((event) => (event.type === 'reasoning-delta' ? [event.delta] : [])).join('');
    assert.equal(text, '2 + 2 = 4.');
    assert.equal(thought, '\nThe user asks for 2+2. That is 4.\n');
    const response = done(events);
    assert.equal(response.text, '2 + 2 = 4.');
    assert.deepEqual(
      response.reasoning.map((entry) => entry.text),
      ['The user asks for 2+2. That is 4.'],
    );
    // Sent back byte for byte as MiniMax sent it.
    assert.equal(sentBack(response), CONTENT);
  });

  it('goes back whole on a tool round too, and never in a reasoning field', () => {
    const events = run(['<think>\nRead a first.\n</think>\n\n'], true);
    const response = done(events);
    assert.equal(response.text, '');
    const body = buildChatRequest(
      {
        model: 'MiniMax-M2.1',
        messages: [
          { role: 'user', content: 'q' },
          { role: 'assistant', content: response.text, toolCalls: response.toolCalls, reasoning: response.reasoning },
          { role: 'tool', toolCallId: 'call_function_1', toolName: 'read_file', content: 'ok', isError: false },
        ],
      },
      true,
    );
    const assistant = body.messages[1] as unknown as Record<string, unknown>;
    assert.equal(assistant.content, '<think>\nRead a first.\n</think>\n\n');
    assert.equal('reasoning_content' in assistant, false);
  });

  it('is split the same way in a non-streamed answer', () => {
    const completion = {
      id: '05b1f0c8a1e6',
      object: 'chat.completion',
      created: 1762000000,
      model: 'MiniMax-M2.1',
      choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: CONTENT } }],
    } as unknown as ChatCompletion;
    const response = chatCompletionToResponse(completion);
    assert.equal(response.text, '2 + 2 = 4.');
    assert.equal(response.reasoning[0]?.text, 'The user asks for 2+2. That is 4.');
    assert.equal(sentBack(response), CONTENT);
  });

  it('leaves text alone that only mentions <think> later, or starts like it', () => {
    const later = done(run(['Use the ', '<think> tag.']));
    assert.equal(later.text, 'Use the <think> tag.');
    assert.deepEqual(later.reasoning, []);
    const lookalike = done(run(['<th', 'ings>']));
    assert.equal(lookalike.text, '<things>');
  });
});
