// Reasoning carried across rounds (issue 11, part 1), through the official SDK against the fake
// provider in its strict mode, which answers as DeepSeek, Gemini and OpenAI do when a client
// drops the reasoning state they handed out (see src/testing/reasoning-ledger.ts).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { itemsToModelMessages, type ResponseItem } from '../../src/agent/index.js';
import type { ScriptedTurn } from '../../src/testing/index.js';
import { echoTool, runLoop } from '../helpers/loop-harness.js';

const toolRound = (reasoning: ScriptedTurn['reasoning'], fields?: Record<string, unknown>): ScriptedTurn => ({
  reasoning,
  toolCalls: [{ name: 'echo', arguments: { text: 'one' }, ...(fields ? { fields } : {}) }],
});

function assistantMessages(body: Record<string, unknown>): Record<string, unknown>[] {
  return (body.messages as Record<string, unknown>[]).filter((message) => message.role === 'assistant');
}

describe('reasoning over Chat Completions', () => {
  test('DeepSeek-style reasoning_content is recorded, streamed live, and sent back on the assistant tool-call message', async () => {
    const run = await runLoop({
      wireApi: 'chat',
      tools: [echoTool()],
      requireReasoningBack: true,
      script: [
        toolRound({ text: 'I should echo first.' }),
        toolRound({ text: 'Once more.' }),
        { reasoning: { text: 'Done now.' }, text: 'All done.' },
      ],
    });
    assert.equal(run.terminal.type, 'run_succeeded', JSON.stringify(run.terminal));
    const reasoning = run.history.filter((item) => item.type === 'reasoning');
    assert.deepEqual(
      reasoning.map((item) => item.type === 'reasoning' && [item.format, item.text, item.state]),
      [
        ['chat', 'I should echo first.', { field: 'reasoning_content' }],
        ['chat', 'Once more.', { field: 'reasoning_content' }],
        ['chat', 'Done now.', { field: 'reasoning_content' }],
      ],
    );
    // The reasoning item leads its round: reasoning, then the call it led to.
    const firstReasoning = run.history.findIndex((item) => item.type === 'reasoning');
    assert.equal(run.history[firstReasoning + 1]?.type, 'function_call');
    const third = assistantMessages(run.provider.requests[2]!.body);
    assert.deepEqual(
      third.map((message) => message.reasoning_content),
      ['I should echo first.', 'Once more.'],
    );
    const live = run.events
      .filter((event) => event.type === 'reasoning_delta')
      .map((event) => (event.type === 'reasoning_delta' ? event.delta : ''));
    assert.equal(live.join(''), 'I should echo first.Once more.Done now.');
  });

  test('the `reasoning` spelling (OpenRouter, Ollama) goes back under the same name', async () => {
    const run = await runLoop({
      wireApi: 'chat',
      tools: [echoTool()],
      requireReasoningBack: true,
      script: [toolRound({ text: 'Thinking.', field: 'reasoning' }), { text: 'ok' }],
    });
    assert.equal(run.terminal.type, 'run_succeeded', JSON.stringify(run.terminal));
    const [sent] = assistantMessages(run.provider.requests[1]!.body);
    assert.ok(sent);
    assert.equal(sent.reasoning, 'Thinking.');
    assert.equal(sent.reasoning_content, undefined);
  });

  test("Gemini's thought signature on a tool call goes back on that call, unchanged", async () => {
    const signature = { extra_content: { google: { thought_signature: 'c2lnbmF0dXJlLWJ5dGVz' } } };
    const run = await runLoop({
      wireApi: 'chat',
      tools: [echoTool()],
      requireReasoningBack: true,
      script: [toolRound(undefined, signature), toolRound(undefined, signature), { text: 'ok' }],
    });
    assert.equal(run.terminal.type, 'run_succeeded', JSON.stringify(run.terminal));
    const calls = run.history.filter((item) => item.type === 'function_call');
    assert.deepEqual(
      calls.map((item) => item.type === 'function_call' && item.providerFields),
      [
        { format: 'chat', fields: signature },
        { format: 'chat', fields: signature },
      ],
    );
    const sentCalls = assistantMessages(run.provider.requests[2]!.body).flatMap(
      (message) => message.tool_calls as Record<string, unknown>[],
    );
    assert.deepEqual(
      sentCalls.map((call) => call.extra_content),
      [signature.extra_content, signature.extra_content],
    );
  });

  test('the strict fake provider really rejects a dropped reasoning_content (the check is live)', async () => {
    // History as a client that drops reasoning would send it: the call without its reasoning item.
    const run = await runLoop({
      wireApi: 'chat',
      tools: [echoTool()],
      requireReasoningBack: true,
      script: [toolRound({ text: 'secret plan' }), { text: 'unreachable' }],
      onEvent: (event, { history }) => {
        if (event.type === 'tool_started') {
          const index = history.findIndex((item) => item.type === 'reasoning');
          if (index !== -1) history.splice(index, 1);
        }
      },
    });
    assert.equal(run.terminal.type, 'run_failed');
    assert.match(run.terminal.type === 'run_failed' ? run.terminal.error.message : '', /reasoning_content.*must be passed back/);
  });
});

describe('reasoning over Responses', () => {
  test('asks for encrypted reasoning (store: false) and sends each reasoning item back, in place, with it', async () => {
    const run = await runLoop({
      wireApi: 'responses',
      tools: [echoTool()],
      requireReasoningBack: true,
      script: [toolRound({ text: 'Plan: echo.' }), toolRound({ text: 'Again.' }), { text: 'Done.' }],
    });
    assert.equal(run.terminal.type, 'run_succeeded', JSON.stringify(run.terminal));
    for (const request of run.provider.requests) {
      assert.equal(request.body.store, false);
      assert.deepEqual(request.body.include, ['reasoning.encrypted_content']);
    }
    const input = run.provider.requests[2]!.body.input as Record<string, unknown>[];
    const kinds = input.map((item) => item.type ?? item.role);
    assert.deepEqual(kinds, [
      'message',
      'reasoning',
      'function_call',
      'function_call_output',
      'reasoning',
      'function_call',
      'function_call_output',
    ]);
    const sent = input.filter((item) => item.type === 'reasoning');
    for (const item of sent) {
      assert.match(String(item.encrypted_content), /^reasoning_state_/);
      assert.match(String(item.id), /^rs_/);
      assert.equal('status' in item, false, 'status is output-only');
    }
    const recorded = run.history.filter((item) => item.type === 'reasoning');
    assert.deepEqual(
      recorded.map((item) => item.type === 'reasoning' && item.text),
      ['Plan: echo.', 'Again.'],
    );
  });

  test('a model that refuses encrypted reasoning is asked again without it, once, and remembered', async () => {
    const run = await runLoop({
      wireApi: 'responses',
      tools: [echoTool()],
      rejectEncryptedReasoning: true,
      script: [toolRound(undefined), { text: 'Done.' }],
    });
    assert.equal(run.terminal.type, 'run_succeeded', JSON.stringify(run.terminal));
    assert.deepEqual(
      run.provider.requests.map((request) => request.body.include ?? null),
      [['reasoning.encrypted_content'], null, null],
      'refused once, then the gateway stops asking for that model',
    );
  });

  test('reasoning items without encrypted content are not sent back (an id alone is a 404 with store: false)', () => {
    const history: ResponseItem[] = [
      { type: 'message', role: 'user', content: 'go' },
      { type: 'reasoning', format: 'responses', text: 'summary only', state: { id: 'rs_1', type: 'reasoning', summary: [] } },
      { type: 'function_call', callId: 'c1', name: 'echo', arguments: '{}' },
    ];
    const messages = itemsToModelMessages(history);
    assert.deepEqual(messages[1], {
      role: 'assistant',
      content: '',
      toolCalls: [{ id: 'c1', name: 'echo', arguments: '{}' }],
      reasoning: [{ format: 'responses', text: 'summary only', state: { id: 'rs_1', type: 'reasoning', summary: [] } }],
    });
  });
});

test('reasoning of another dialect is never sent (its state means nothing there)', async () => {
  const history: ResponseItem[] = [
    { type: 'message', role: 'user', content: 'go' },
    {
      type: 'reasoning',
      format: 'responses',
      text: 'from responses',
      state: { id: 'rs_1', type: 'reasoning', summary: [], encrypted_content: 'x' },
    },
    { type: 'function_call', callId: 'c1', name: 'echo', arguments: '{"text":"a"}' },
    { type: 'function_call_output', callId: 'c1', name: 'echo', output: 'echo: a', isError: false },
  ];
  const run = await runLoop({ wireApi: 'chat', tools: [echoTool()], history, script: [{ text: 'ok' }] });
  assert.equal(run.terminal.type, 'run_succeeded');
  const [assistant] = assistantMessages(run.provider.requests[0]!.body);
  assert.ok(assistant);
  assert.deepEqual(Object.keys(assistant).sort(), ['content', 'role', 'tool_calls']);
});
