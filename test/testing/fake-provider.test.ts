import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { estimateRequestTokens, startFakeProvider } from '../../src/testing/index.js';
import { chatMessages, rejectsWith, waitFor, withProvider } from './fake-provider-client.js';

describe('fake provider: script and capture', () => {
  it('rejects requests over the context window without consuming the step', async () => {
    await withProvider({ contextWindow: 20, script: [{ text: 'fits' }] }, async (provider, client) => {
      const big = [{ role: 'user' as const, content: 'x'.repeat(200) }];
      const error = await rejectsWith(
        client.chat.completions.create({ model: 'm', messages: big }),
        (e) => e instanceof OpenAI.BadRequestError,
      );
      assert.ok(error instanceof OpenAI.BadRequestError);
      assert.equal(error.code, 'context_length_exceeded');
      assert.equal(error.type, 'invalid_request_error');
      const tokens = estimateRequestTokens({ messages: big }, 'chat');
      assert.match(error.message, new RegExp(`maximum context length is 20 tokens\\. However, your messages resulted in ${tokens} tokens`));
      assert.equal(provider.remaining(), 1);

      const ok = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(ok.choices[0]!.message.content, 'fits');
      assert.equal(provider.requests.length, 2);
    });
  });

  it('records requests past the end of the script as unexpected, or answers them with whenExhausted', async () => {
    await withProvider({ script: [{ text: 'only one' }] }, async (provider, client) => {
      await client.responses.create({ model: 'm', input: 'first' });
      const error = await rejectsWith(
        client.responses.create({ model: 'm', input: 'second' }),
        (e) => e instanceof OpenAI.InternalServerError,
      );
      assert.match((error as Error).message, /fake provider: script exhausted \(request #1\)/);
      assert.equal(provider.unexpectedRequests.length, 1);
      assert.equal(provider.unexpectedRequests[0]!.body.input, 'second');

      provider.push({ text: 'pushed' });
      assert.equal(provider.remaining(), 1);
      const pushed = await client.responses.create({ model: 'm', input: 'third' });
      assert.equal(pushed.output_text, 'pushed');
    });

    await withProvider(
      { whenExhausted: (request) => ({ text: `echo #${request.index}: ${String(request.body.input)}` }) },
      async (provider, client) => {
        const first = await client.responses.create({ model: 'm', input: 'ping' });
        const second = await client.responses.create({ model: 'm', input: 'pong' });
        assert.equal(first.output_text, 'echo #0: ping');
        assert.equal(second.output_text, 'echo #1: pong');
        assert.equal(provider.unexpectedRequests.length, 0);
      },
    );
  });

  it('captures method, path, headers and the full body, including unknown fields', async () => {
    await withProvider(
      { model: 'served-model', script: [async (request) => ({ text: `saw ${request.wireApi}` })] },
      async (provider, client) => {
        const params = {
          model: 'asked-model',
          messages: chatMessages,
          temperature: 0.2,
          glassbox_extra: { nested: [1, 2] },
        } as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming;
        const answer = await client.chat.completions.create(params);
        assert.equal(answer.choices[0]!.message.content, 'saw chat');
        assert.equal(answer.model, 'served-model');
        const [captured] = provider.requests;
        assert.ok(captured);
        assert.equal(captured.index, 0);
        assert.equal(captured.method, 'POST');
        assert.equal(captured.path, '/v1/chat/completions');
        assert.equal(captured.wireApi, 'chat');
        assert.equal(captured.stream, false);
        assert.equal(captured.headers.authorization, 'Bearer test-key');
        assert.equal(captured.headers['content-type'], 'application/json');
        assert.deepEqual(captured.body, JSON.parse(captured.rawBody));
        assert.deepEqual(captured.body.messages, chatMessages);
        assert.deepEqual(captured.body.glassbox_extra, { nested: [1, 2] });
        assert.equal(typeof captured.receivedAt, 'number');
      },
    );
  });

  it('requires the API key when configured, without consuming a step', async () => {
    await withProvider({ apiKey: 'right', script: [{ text: 'welcome' }] }, async (provider) => {
      const wrong = new OpenAI({ baseURL: provider.baseURL, apiKey: 'wrong', maxRetries: 0, logLevel: 'off' });
      await rejectsWith(wrong.responses.create({ model: 'm', input: 'hi' }), (e) => e instanceof OpenAI.AuthenticationError);
      assert.equal(provider.remaining(), 1);
      const right = new OpenAI({ baseURL: provider.baseURL, apiKey: 'right', maxRetries: 0, logLevel: 'off' });
      assert.equal((await right.responses.create({ model: 'm', input: 'hi' })).output_text, 'welcome');
      const models = await right.models.list();
      assert.equal(models.data.length, 1);
    });
  });

  it('answers bad bodies and unknown paths with OpenAI-style errors and keeps serving', async () => {
    await withProvider({ script: [{ text: 'still alive' }] }, async (provider, client) => {
      const post = (path: string, body: string) =>
        fetch(`${provider.baseURL}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const invalid = await post('/chat/completions', '{"model": "m", "messages": [');
      assert.equal(invalid.status, 400);
      const invalidBody = (await invalid.json()) as { error: { message: string; type: string } };
      assert.equal(invalidBody.error.type, 'invalid_request_error');
      assert.match(invalidBody.error.message, /could not parse the JSON body/);

      const notObject = await post('/responses', '[1,2]');
      assert.equal(notObject.status, 400);
      await notObject.body?.cancel();
      const missing = await post('/responses', '{"model":"m"}');
      assert.equal(missing.status, 400);
      assert.match(((await missing.json()) as { error: { message: string } }).error.message, /'input'/);

      const unknown = await post('/completions', '{}');
      assert.equal(unknown.status, 404);
      assert.ok(((await unknown.json()) as { error: unknown }).error);

      assert.equal(provider.remaining(), 1, 'bad requests must not consume steps');
      const ok = await client.chat.completions.create({ model: 'm', messages: chatMessages });
      assert.equal(ok.choices[0]!.message.content, 'still alive');
    });
  });

  it('rejects malformed scripts with a clear error', async () => {
    await assert.rejects(
      startFakeProvider({ script: [{ text: 'ok' }, { toolCalls: [{ name: '', arguments: '{}' }] }] }),
      /invalid script step 1: toolCalls\[0\]\.name must be a non-empty string/,
    );
    await withProvider({ script: [() => ({ usage: { input: -1, output: 0 } })] }, async (provider, client) => {
      assert.throws(() => provider.push({ fault: { kind: 'teleport' } } as never), /invalid pushed step 0: fault must be one of/);
      const error = await rejectsWith(client.responses.create({ model: 'm', input: 'hi' }), (e) => e instanceof OpenAI.InternalServerError);
      assert.match((error as Error).message, /invalid turn returned for request #0: usage\.input must be a non-negative integer/);
    });
  });

  it('waits delayMs before answering and spaces streamed events by chunkDelayMs', async () => {
    await withProvider(
      {
        script: [
          { text: 'slow but steady', delayMs: 30, chunkDelayMs: 5 },
          { fault: { kind: 'hang' }, delayMs: 10_000 },
        ],
      },
      async (provider, client) => {
        const started = Date.now();
        const stream = await client.chat.completions.create({ model: 'm', messages: chatMessages, stream: true });
        let text = '';
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
        assert.equal(text, 'slow but steady');
        assert.ok(Date.now() - started >= 25, 'the answer came before delayMs had passed');

        // A client that gives up during the delay must not leave the server stuck or crash it.
        const controller = new AbortController();
        const pending = client.chat.completions.create({ model: 'm', messages: chatMessages }, { signal: controller.signal });
        await waitFor(() => provider.requests.length === 2);
        controller.abort();
        await rejectsWith(pending, (e) => e instanceof OpenAI.APIUserAbortError);
      },
    );
  });
});
