// Chat templates that demand strict alternation after the optional system message (Mistral's, as
// vLLM and llama.cpp render them; Gemma 3's) refuse two user messages in a row with a 400:
// - vLLM serving mistralai/Mistral-7B-Instruct-v0.3 for [system, user, user]:
//   {"object":"error","message":"After the optional system message, conversation roles must alternate
//   user/assistant/user/assistant/...","type":"BadRequestError","param":null,"code":400}
//   (https://github.com/vllm-project/vllm/issues/6862)
// - vLLM serving Mistral-7B-Instruct-v0.2: "Conversation roles must alternate
//   user/assistant/user/assistant/..." (https://github.com/microsoft/autogen/issues/1037)
// A compacted history is [system, user(summary), user(prompt)], and a resumed turn after a
// compaction has every kept user message in a row. What reaches the server through the official
// SDK must alternate, whatever the IR holds; tool messages stay one per call.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { itemsToModelMessages, type ResponseItem } from '../../src/agent/index.js';
import { createGateway, type ModelMessage } from '../../src/model/index.js';
import { startReplayServer, type ReplayProfile } from '../helpers/replay-provider.js';

const ANSWER = [
  '{"id":"cmpl-1","object":"chat.completion.chunk","created":0,"model":"mistralai/Mistral-7B-Instruct-v0.3","choices":[{"index":0,"delta":{"role":"assistant","content":"done"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"total_tokens":4,"completion_tokens":1}}',
  '[DONE]',
];

/** Why the messages break a strict template (the way vLLM words it), or null when they alternate. */
function alternationError(messages: Array<{ role: string }>): string | null {
  const roles = messages.map((message) => message.role);
  const start = roles[0] === 'system' ? 1 : 0;
  for (let i = start + 1; i < roles.length; i++) {
    if (roles[i] === 'tool') continue;
    if (roles[i] === roles[i - 1]) {
      return `After the optional system message, conversation roles must alternate user/assistant/user/assistant/... (${roles.join(',')})`;
    }
  }
  if (roles.slice(start).includes('system')) return `a system message after the first (${roles.join(',')})`;
  return null;
}

async function sentThroughSdk(messages: ModelMessage[]): Promise<Array<Record<string, unknown>>> {
  const profile: ReplayProfile = {
    name: 'inline-strict-template',
    provider: 'vllm',
    wireApi: 'chat',
    model: 'mistralai/Mistral-7B-Instruct-v0.3',
    source: ['https://github.com/vllm-project/vllm/issues/6862'],
    notes: '',
    tool: { name: 'read_file', output: 'ok' },
    rounds: [{ frames: ANSWER }],
    requirements: [],
    expect: { rounds: [] },
  };
  const server = await startReplayServer(profile);
  try {
    const gateway = createGateway({ wireApi: 'chat', baseURL: server.baseURL, apiKey: 'test-key' });
    for await (const _ of gateway.streamResponse({ model: profile.model, messages })) {
      // drained
    }
    const [body] = server.accepted() as Array<{ messages: Array<Record<string, unknown>> }>;
    assert.ok(body);
    return body.messages;
  } finally {
    await server.close();
  }
}

const system: ResponseItem = { type: 'message', role: 'system', content: 'You are Glassbox.' };
const summary: ResponseItem = { type: 'compaction_summary', compactionId: 'c1', summary: 'Read src/a.ts; fixing the parser.' };
const user = (content: string): ResponseItem => ({ type: 'message', role: 'user', content });

describe('Chat Completions requests alternate roles for strict chat templates', () => {
  it('after a compaction: [system, summary, prompt] goes out as [system, user]', async () => {
    const messages = itemsToModelMessages([system, summary, user('Now add tests.')]);
    assert.deepEqual(
      messages.map((message) => message.role),
      ['system', 'user', 'user'],
    );
    const sent = await sentThroughSdk(messages);
    assert.equal(alternationError(sent as Array<{ role: string }>), null);
    assert.equal(sent.length, 2);
    const content = sent[1]!.content as string;
    // Both texts verbatim, in order: the summary, then the prompt.
    assert.ok(content.includes('Read src/a.ts; fixing the parser.'));
    assert.ok(content.endsWith('\n\nNow add tests.'));
  });

  it('at the start of a resumed turn: every kept user message and the new prompt become one user message', async () => {
    const messages = itemsToModelMessages([system, summary, user('first ask'), user('second ask'), user('third ask'), user('resume')]);
    const sent = await sentThroughSdk(messages);
    assert.equal(alternationError(sent as Array<{ role: string }>), null);
    assert.deepEqual(
      sent.map((message) => message.role),
      ['system', 'user'],
    );
    assert.ok((sent[1]!.content as string).endsWith('first ask\n\nsecond ask\n\nthird ask\n\nresume'));
  });

  it('keeps tool messages apart and joins consecutive assistant messages, their calls in order', async () => {
    const messages: ModelMessage[] = [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'Looking.', toolCalls: [] },
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          { id: 'call_a', name: 'read_file', arguments: '{"path":"a"}' },
          { id: 'call_b', name: 'read_file', arguments: '{"path":"b"}' },
        ],
        reasoning: [{ format: 'chat', text: 'need both', state: { field: 'reasoning_content' } }],
      },
      { role: 'tool', toolCallId: 'call_a', toolName: 'read_file', content: 'A', isError: false },
      { role: 'tool', toolCallId: 'call_b', toolName: 'read_file', content: 'B', isError: false },
      { role: 'user', content: 'more' },
      { role: 'user', content: 'and more' },
    ];
    const sent = await sentThroughSdk(messages);
    assert.equal(alternationError(sent as Array<{ role: string }>), null);
    assert.deepEqual(
      sent.map((message) => message.role),
      ['system', 'user', 'assistant', 'tool', 'tool', 'user'],
    );
    const assistant = sent[2] as { content: unknown; tool_calls: Array<{ id: string }>; reasoning_content?: unknown };
    assert.equal(assistant.content, 'Looking.');
    assert.deepEqual(
      assistant.tool_calls.map((call) => call.id),
      ['call_a', 'call_b'],
    );
    assert.equal(assistant.reasoning_content, 'need both');
    assert.deepEqual(
      sent.slice(3, 5).map((message) => message.tool_call_id),
      ['call_a', 'call_b'],
    );
    assert.equal(sent[5]!.content, 'more\n\nand more');
  });
});
