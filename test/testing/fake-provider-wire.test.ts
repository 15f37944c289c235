import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type OpenAI from 'openai';
import { estimateRequestTokens, estimateTokens } from '../../src/testing/index.js';
import { chatMessages, withProvider } from './fake-provider-client.js';

describe('fake provider: Chat Completions', () => {
  it('streams text and tool calls that reassemble through the SDK, with a final usage chunk', async () => {
    const text = 'I will read both files now, one after the other.';
    const args = { path: 'docs/a-rather-long-file-name.txt', limit: 200 };
    await withProvider(
      {
        script: [
          {
            text,
            toolCalls: [
              { name: 'read_file', arguments: args },
              { name: 'read_file', arguments: '{"path":"b.txt"}', id: 'call_custom' },
            ],
          },
        ],
      },
      async (provider, client) => {
        const stream = await client.chat.completions.create({
          model: 'gpt-test',
          messages: chatMessages,
          stream: true,
          stream_options: { include_usage: true },
        });
        let content = '';
        let contentDeltas = 0;
        const calls: Array<{ id: string; name: string; arguments: string; deltas: number }> = [];
        let finishReason: string | null = null;
        let usageChunk: OpenAI.Chat.ChatCompletionChunk | null = null;
        const ids = new Set<string>();
        for await (const chunk of stream) {
          ids.add(chunk.id);
          assert.equal(chunk.object, 'chat.completion.chunk');
          assert.equal(chunk.model, 'gpt-test');
          if (chunk.choices.length === 0) {
            usageChunk = chunk;
            continue;
          }
          assert.equal(chunk.usage, null);
          const choice = chunk.choices[0]!;
          if (choice.delta.content) {
            content += choice.delta.content;
            contentDeltas++;
          }
          for (const delta of choice.delta.tool_calls ?? []) {
            if (delta.id !== undefined) {
              calls[delta.index] = { id: delta.id, name: delta.function?.name ?? '', arguments: '', deltas: 0 };
            }
            const call = calls[delta.index];
            assert.ok(call, 'argument delta before the call was started');
            if (delta.function?.arguments) {
              call.arguments += delta.function.arguments;
              call.deltas++;
            }
          }
          if (choice.finish_reason !== null) finishReason = choice.finish_reason;
        }
        assert.equal(ids.size, 1);
        assert.equal(content, text);
        assert.ok(contentDeltas > 1, 'text should arrive in several deltas');
        assert.equal(calls.length, 2);
        assert.deepEqual(JSON.parse(calls[0]!.arguments), args);
        assert.ok(calls[0]!.deltas > 1, 'arguments should arrive in several deltas');
        assert.equal(calls[0]!.name, 'read_file');
        assert.equal(calls[0]!.id, 'call_1');
        assert.equal(calls[1]!.id, 'call_custom');
        assert.equal(calls[1]!.arguments, '{"path":"b.txt"}');
        assert.equal(finishReason, 'tool_calls');

        const body = provider.requests[0]!.body;
        const expectedInput = estimateRequestTokens(body, 'chat');
        assert.equal(expectedInput, estimateTokens(JSON.stringify(chatMessages)));
        const expectedOutput = estimateTokens(`${text + JSON.stringify(args)}{"path":"b.txt"}`);
        assert.ok(usageChunk, 'usage chunk missing');
        assert.deepEqual(usageChunk.usage?.prompt_tokens, expectedInput);
        assert.equal(usageChunk.usage?.completion_tokens, expectedOutput);
        assert.equal(usageChunk.usage?.total_tokens, expectedInput + expectedOutput);
        assert.equal(usageChunk.usage?.prompt_tokens_details?.cached_tokens, 0);
        assert.equal(usageChunk.usage?.completion_tokens_details?.reasoning_tokens, 0);
        assert.equal(provider.remaining(), 0);
      },
    );
  });

  it('is accepted by the SDK stream accumulator, and sends no usage chunk unless asked', async () => {
    await withProvider(
      { script: [{ text: 'Hello from the accumulator test.' }, { text: 'plain', usage: { input: 5, output: 1 } }] },
      async (_provider, client) => {
        const runner = client.chat.completions.stream({ model: 'm', messages: chatMessages });
        const final = await runner.finalChatCompletion();
        assert.equal(final.choices[0]!.message.content, 'Hello from the accumulator test.');
        assert.equal(final.choices[0]!.finish_reason, 'stop');

        const stream = await client.chat.completions.create({ model: 'm', messages: chatMessages, stream: true });
        const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
        for await (const chunk of stream) chunks.push(chunk);
        assert.ok(chunks.every((chunk) => chunk.choices.length === 1 && chunk.usage === undefined));
      },
    );
  });

  it('answers non-streaming requests with a full chat.completion', async () => {
    await withProvider(
      {
        script: [
          { text: 'Done.', usage: { input: 100, output: 7, cached: 40, reasoning: 3 } },
          { toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }], usage: { input: 10, output: 2, cached: null } },
        ],
      },
      async (_provider, client) => {
        const first = await client.chat.completions.create({ model: 'm', messages: chatMessages });
        assert.equal(first.object, 'chat.completion');
        assert.match(first.id, /^chatcmpl-/);
        assert.equal(typeof first.created, 'number');
        assert.equal(first.choices[0]!.message.content, 'Done.');
        assert.equal(first.choices[0]!.message.tool_calls, undefined);
        assert.equal(first.choices[0]!.finish_reason, 'stop');
        assert.deepEqual(
          {
            prompt: first.usage?.prompt_tokens,
            completion: first.usage?.completion_tokens,
            total: first.usage?.total_tokens,
            cached: first.usage?.prompt_tokens_details?.cached_tokens,
            reasoning: first.usage?.completion_tokens_details?.reasoning_tokens,
          },
          { prompt: 100, completion: 7, total: 107, cached: 40, reasoning: 3 },
        );

        const second = await client.chat.completions.create({ model: 'm', messages: chatMessages });
        const message = second.choices[0]!.message;
        assert.equal(message.content, null);
        assert.equal(second.choices[0]!.finish_reason, 'tool_calls');
        assert.equal(message.tool_calls?.length, 1);
        const call = message.tool_calls?.[0];
        assert.ok(call?.type === 'function');
        assert.equal(call.function.name, 'list_dir');
        assert.equal(call.function.arguments, '{"path":"."}');
        assert.notEqual(second.id, first.id);
        assert.equal(second.usage?.prompt_tokens_details, undefined, 'cached: null must omit the details');
      },
    );
  });

  it('reports no usage at all when usage is null, and honours finishReason and refusal', async () => {
    await withProvider(
      {
        script: [
          { text: 'no usage here', usage: null },
          { text: 'no usage here', usage: null },
          { text: 'cut off mid', finishReason: 'length' },
          { refusal: 'I cannot help with that.' },
          { text: 'filtered', finishReason: 'content_filter' },
        ],
      },
      async (_provider, client) => {
        const stream = await client.chat.completions.create({
          model: 'm',
          messages: chatMessages,
          stream: true,
          stream_options: { include_usage: true },
        });
        const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
        for await (const chunk of stream) chunks.push(chunk);
        assert.ok(chunks.length > 0);
        assert.ok(chunks.every((chunk) => chunk.choices.length === 1 && chunk.usage == null));

        const plain = await client.chat.completions.create({ model: 'm', messages: chatMessages });
        assert.equal(plain.usage, undefined);

        const truncated = await client.chat.completions.create({ model: 'm', messages: chatMessages });
        assert.equal(truncated.choices[0]!.finish_reason, 'length');

        const refusalStream = await client.chat.completions.create({ model: 'm', messages: chatMessages, stream: true });
        let refusal = '';
        for await (const chunk of refusalStream) refusal += chunk.choices[0]?.delta.refusal ?? '';
        assert.equal(refusal, 'I cannot help with that.');

        const filtered = await client.chat.completions.create({ model: 'm', messages: chatMessages });
        assert.equal(filtered.choices[0]!.finish_reason, 'content_filter');
      },
    );
  });
});

describe('fake provider: Responses', () => {
  it('streams typed events with sequence numbers and a completed response carrying usage', async () => {
    const text = 'Reading the file for you right away.';
    await withProvider(
      {
        script: [
          {
            text,
            toolCalls: [{ name: 'read_file', arguments: { path: 'src/index.ts' } }],
            usage: { input: 1200, output: 80, cached: 1024, reasoning: 16 },
          },
        ],
      },
      async (provider, client) => {
        const stream = await client.responses.create({
          model: 'gpt-test',
          instructions: 'Be brief.',
          input: [{ role: 'user', content: 'Read src/index.ts' }],
          stream: true,
        });
        const events: OpenAI.Responses.ResponseStreamEvent[] = [];
        for await (const event of stream) events.push(event);
        assert.deepEqual(
          events.map((event) => event.sequence_number),
          events.map((_event, index) => index),
        );
        assert.equal(events[0]!.type, 'response.created');
        assert.equal(events[1]!.type, 'response.in_progress');
        const last = events[events.length - 1]!;
        assert.equal(last.type, 'response.completed');

        let streamedText = '';
        let streamedArgs = '';
        let textDeltas = 0;
        for (const event of events) {
          if (event.type === 'response.output_text.delta') {
            streamedText += event.delta;
            textDeltas++;
          }
          if (event.type === 'response.function_call_arguments.delta') streamedArgs += event.delta;
        }
        assert.equal(streamedText, text);
        assert.ok(textDeltas > 1);
        assert.equal(streamedArgs, '{"path":"src/index.ts"}');
        const types = new Set(events.map((event) => event.type));
        for (const expected of [
          'response.output_item.added',
          'response.content_part.added',
          'response.output_text.done',
          'response.content_part.done',
          'response.function_call_arguments.done',
          'response.output_item.done',
        ]) {
          assert.ok(types.has(expected as OpenAI.Responses.ResponseStreamEvent['type']), `missing ${expected}`);
        }

        assert.ok(last.type === 'response.completed');
        const response = last.response;
        assert.equal(response.status, 'completed');
        assert.equal(response.model, 'gpt-test');
        assert.equal(response.usage?.input_tokens, 1200);
        assert.equal(response.usage?.output_tokens, 80);
        assert.equal(response.usage?.total_tokens, 1280);
        assert.equal(response.usage?.input_tokens_details.cached_tokens, 1024);
        assert.equal(response.usage?.output_tokens_details.reasoning_tokens, 16);
        const call = response.output.find((item) => item.type === 'function_call');
        assert.ok(call?.type === 'function_call');
        assert.match(call.id ?? '', /^fc_/);
        assert.equal(call.call_id, 'call_1');
        assert.equal(call.name, 'read_file');
        assert.equal(call.status, 'completed');
        assert.equal(provider.requests[0]!.wireApi, 'responses');
        assert.equal(provider.requests[0]!.stream, true);
      },
    );
  });

  it('is accepted by the SDK response accumulator, including a reasoning summary and refusal', async () => {
    await withProvider(
      {
        script: [{ text: 'All good.', reasoningSummary: 'Checked the repository layout first.' }, { refusal: 'Not going to do that.' }],
      },
      async (_provider, client) => {
        const first = await client.responses.stream({ model: 'm', input: 'hi' }).finalResponse();
        assert.equal(first.output_text, 'All good.');
        const reasoning = first.output.find((item) => item.type === 'reasoning');
        assert.ok(reasoning?.type === 'reasoning');
        assert.equal(reasoning.summary[0]!.text, 'Checked the repository layout first.');

        const second = await client.responses.stream({ model: 'm', input: 'hi' }).finalResponse();
        const message = second.output[0]!;
        assert.ok(message.type === 'message');
        assert.equal(message.content.length, 1);
        const part = message.content[0]!;
        assert.ok(part.type === 'refusal');
        assert.equal(part.refusal, 'Not going to do that.');
      },
    );
  });

  it('answers non-streaming requests with a full response object and derived usage', async () => {
    await withProvider(
      { script: [{ text: 'Here it is.', toolCalls: [{ name: 'grep', arguments: { pattern: 'x' } }] }] },
      async (provider, client) => {
        const tools: OpenAI.Responses.Tool[] = [{ type: 'function', name: 'grep', parameters: { type: 'object' }, strict: false }];
        const response = await client.responses.create({ model: 'm', input: 'find x', instructions: 'sys', tools });
        assert.equal(response.object, 'response');
        assert.match(response.id, /^resp_/);
        assert.equal(typeof response.created_at, 'number');
        assert.equal(response.status, 'completed');
        assert.equal(response.output_text, 'Here it is.');
        assert.equal(response.output.length, 2);
        const [message, call] = response.output;
        assert.ok(message && call);
        assert.ok(message.type === 'message');
        assert.equal(message.content[0]!.type, 'output_text');
        assert.deepEqual(call, {
          id: call.type === 'function_call' ? call.id : '',
          type: 'function_call',
          status: 'completed',
          call_id: 'call_1',
          name: 'grep',
          arguments: '{"pattern":"x"}',
        });
        const body = provider.requests[0]!.body;
        const expectedInput = estimateTokens(JSON.stringify('find x') + JSON.stringify('sys') + JSON.stringify(tools));
        assert.equal(estimateRequestTokens(body, 'responses'), expectedInput);
        assert.equal(response.usage?.input_tokens, expectedInput);
        assert.equal(response.usage?.output_tokens, estimateTokens('Here it is.{"pattern":"x"}'));
      },
    );
  });

  it('maps length and content_filter to incomplete responses, and null usage to none', async () => {
    await withProvider(
      {
        script: [
          { text: 'truncat', finishReason: 'length' },
          { text: 'blocked', finishReason: 'content_filter', usage: null },
        ],
      },
      async (_provider, client) => {
        const stream = await client.responses.create({ model: 'm', input: 'hi', stream: true });
        const events: OpenAI.Responses.ResponseStreamEvent[] = [];
        for await (const event of stream) events.push(event);
        const last = events[events.length - 1]!;
        assert.ok(last.type === 'response.incomplete');
        assert.equal(last.response.status, 'incomplete');
        assert.deepEqual(last.response.incomplete_details, { reason: 'max_output_tokens' });
        assert.ok(last.response.usage);

        const plain = await client.responses.create({ model: 'm', input: 'hi' });
        assert.equal(plain.status, 'incomplete');
        assert.deepEqual(plain.incomplete_details, { reason: 'content_filter' });
        assert.equal(plain.usage, null);
      },
    );
  });
});
