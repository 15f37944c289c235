import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildChatRequest } from '../../src/model/chat-completions/convert-messages.js';
import type { ModelRequest, ModelToolDefinition } from '../../src/model/index.js';
import { buildResponsesRequest } from '../../src/model/responses/convert-input.js';

const readTool: ModelToolDefinition = {
  name: 'read_file',
  description: 'Read a file.',
  parameters: {
    type: 'object',
    properties: { path: { type: 'string' }, limit: { type: 'integer' } },
    required: ['path'],
  },
  strict: true,
};
const looseTool: ModelToolDefinition = { ...readTool, name: 'loose', strict: false };

const conversation: ModelRequest = {
  model: 'm',
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Read a.txt' },
    {
      role: 'assistant',
      content: '',
      toolCalls: [
        { id: 'call_1', name: 'read_file', arguments: '{"path":"a.txt"}' },
        { id: 'call_2', name: 'loose', arguments: '{}' },
      ],
    },
    { role: 'tool', toolCallId: 'call_1', toolName: 'read_file', content: 'hello', isError: false },
    { role: 'tool', toolCallId: 'call_2', toolName: 'loose', content: 'Error [X]: no', isError: true },
    { role: 'assistant', content: 'It says hello.', toolCalls: [] },
    { role: 'user', content: 'Thanks' },
  ],
  tools: [readTool, looseTool],
  maxOutputTokens: 100,
  temperature: 0,
};

const strictParameters = {
  type: 'object',
  properties: { path: { type: 'string' }, limit: { type: ['integer', 'null'] } },
  required: ['path', 'limit'],
  additionalProperties: false,
};

describe('buildChatRequest', () => {
  it('maps every IR message role and the tools', () => {
    const body = buildChatRequest(conversation, true);
    assert.deepEqual(body.messages, [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Read a.txt' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } },
          { id: 'call_2', type: 'function', function: { name: 'loose', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'hello' },
      { role: 'tool', tool_call_id: 'call_2', content: 'Error [X]: no' },
      { role: 'assistant', content: 'It says hello.' },
      { role: 'user', content: 'Thanks' },
    ]);
    assert.deepEqual(body.tools, [
      { type: 'function', function: { name: 'read_file', description: 'Read a file.', parameters: strictParameters, strict: true } },
      { type: 'function', function: { name: 'loose', description: 'Read a file.', parameters: readTool.parameters } },
    ]);
    assert.equal(body.tool_choice, 'auto');
    assert.equal(body.max_completion_tokens, 100);
    assert.equal(body.temperature, 0);
    assert.equal(body.stream, true);
    assert.deepEqual(body.stream_options, { include_usage: true });
  });

  it('sends neither tools nor tool_choice without tools, and no stream fields when not streaming', () => {
    for (const tools of [undefined, []]) {
      const body = buildChatRequest({ model: 'm', messages: [{ role: 'user', content: 'hi' }], tools }, false);
      assert.deepEqual(Object.keys(body).sort(), ['messages', 'model']);
    }
  });
});

describe('buildResponsesRequest', () => {
  it('maps messages to input items and always sends store:false', () => {
    const body = buildResponsesRequest(conversation, true);
    assert.equal(body.store, false);
    assert.deepEqual(body.input, [
      { type: 'message', role: 'system', content: 'Be brief.' },
      { type: 'message', role: 'user', content: 'Read a.txt' },
      { type: 'function_call', call_id: 'call_1', name: 'read_file', arguments: '{"path":"a.txt"}' },
      { type: 'function_call', call_id: 'call_2', name: 'loose', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'hello' },
      { type: 'function_call_output', call_id: 'call_2', output: 'Error [X]: no' },
      { type: 'message', role: 'assistant', content: 'It says hello.' },
      { type: 'message', role: 'user', content: 'Thanks' },
    ]);
    assert.deepEqual(body.tools, [
      { type: 'function', name: 'read_file', description: 'Read a file.', parameters: strictParameters, strict: true },
      { type: 'function', name: 'loose', description: 'Read a file.', parameters: readTool.parameters, strict: false },
    ]);
    assert.equal(body.tool_choice, 'auto');
    assert.equal(body.max_output_tokens, 100);
    assert.equal(body.stream, true);
  });

  it('keeps assistant text before the calls it made', () => {
    const body = buildResponsesRequest(
      {
        model: 'm',
        messages: [{ role: 'assistant', content: 'Let me look.', toolCalls: [{ id: 'c', name: 'read_file', arguments: '{}' }] }],
      },
      false,
    );
    assert.deepEqual(body.input, [
      { type: 'message', role: 'assistant', content: 'Let me look.' },
      { type: 'function_call', call_id: 'c', name: 'read_file', arguments: '{}' },
    ]);
  });

  it('sends neither tools nor tool_choice without tools', () => {
    const body = buildResponsesRequest({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, false);
    assert.deepEqual(Object.keys(body).sort(), ['include', 'input', 'model', 'store']);
  });
});
