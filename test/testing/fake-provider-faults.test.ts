import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startFakeProvider } from '../../src/testing/index.js';
import { chatMessages, rejectsWith, waitFor, withProvider } from './fake-provider-client.js';

/** Read `stream` until it throws an error that passes `check`; returns how many items came first. */
async function countUntilError(stream: AsyncIterable<unknown>, check: (error: unknown) => boolean): Promise<number> {
  let received = 0;
  await rejectsWith(
    (async () => {
      for await (const _item of stream) received++;
    })(),
    check,
  );
  return received;
}

describe('fake provider: faults', () => {
  it('answers a status fault with an OpenAI error body and Retry-After on both APIs', async () => {
    const fault = { kind: 'status', status: 429, retryAfter: '7', message: 'Slow down.' } as const;
    await withProvider({ script: [{ fault }, { fault }] }, async (_provider, client) => {
      for (const call of [
        () => client.chat.completions.create({ model: 'm', messages: chatMessages }),
        () => client.responses.create({ model: 'm', input: 'hi', stream: true }),
      ]) {
        const error = await rejectsWith(call(), (e) => e instanceof OpenAI.RateLimitError);
        assert.ok(error instanceof OpenAI.RateLimitError);
        assert.equal(error.status, 429);
        assert.equal(error.headers?.get('retry-after'), '7');
        assert.equal(error.code, 'rate_limit_exceeded');
        assert.match(error.message, /Slow down\./);
      }
    });
  });

  it('cuts a stream mid-way: the SDK throws during iteration after the first events', async () => {
    await withProvider(
      {
        script: [
          { text: 'a long enough answer to need several chunks', fault: { kind: 'cut', afterEvents: 3 } },
          { text: 'another long answer to be cut short', fault: { kind: 'cut', afterEvents: 4 } },
          { text: 'a non-streaming body cut in half', fault: { kind: 'cut', afterEvents: 0 } },
        ],
      },
      async (_provider, client) => {
        const chat = await client.chat.completions.create({ model: 'm', messages: chatMessages, stream: true });
        assert.equal(await countUntilError(chat, (e) => !(e instanceof OpenAI.APIError)), 3);

        const responses = await client.responses.create({ model: 'm', input: 'hi', stream: true });
        assert.equal(await countUntilError(responses, (e) => e instanceof Error), 4);

        // Without streaming, the promised body is cut off half-way.
        await rejectsWith(client.responses.create({ model: 'm', input: 'hi' }), (e) => e instanceof Error);
      },
    );
  });

  it('sends a non-JSON data line for a malformed fault, and the SDK throws', async () => {
    await withProvider(
      {
        script: [
          { text: 'abc', fault: { kind: 'malformed', afterEvents: 1 } },
          { text: 'abc', fault: { kind: 'malformed', afterEvents: 2 } },
          { text: 'abc', fault: { kind: 'malformed', afterEvents: 0 } },
          { text: 'abc', fault: { kind: 'malformed', afterEvents: 1000 } },
        ],
      },
      async (_provider, client) => {
        const chat = await client.chat.completions.create({ model: 'm', messages: chatMessages, stream: true });
        assert.equal(await countUntilError(chat, (e) => e instanceof SyntaxError), 1);

        const responses = await client.responses.create({ model: 'm', input: 'hi', stream: true });
        assert.equal(await countUntilError(responses, (e) => e instanceof SyntaxError), 2);

        await rejectsWith(client.chat.completions.create({ model: 'm', messages: chatMessages }), (e) => e instanceof Error);

        // Past the end of the stream the bad line still replaces the last frame, so it is never lost.
        const late = await client.chat.completions.create({ model: 'm', messages: chatMessages, stream: true });
        await countUntilError(late, (e) => e instanceof SyntaxError);
      },
    );
  });

  it('hangs until the client aborts, and close() ends a hanging request', async () => {
    const provider = await startFakeProvider({ script: [{ fault: { kind: 'hang' } }, { fault: { kind: 'hang' } }] });
    const client = new OpenAI({ baseURL: provider.baseURL, apiKey: 'k', maxRetries: 0, logLevel: 'off' });
    try {
      const controller = new AbortController();
      const aborted = client.chat.completions.create({ model: 'm', messages: chatMessages, stream: true }, { signal: controller.signal });
      await waitFor(() => provider.requests.length === 1);
      controller.abort();
      await rejectsWith(aborted, (e) => e instanceof OpenAI.APIUserAbortError);

      const pending = client.responses.create({ model: 'm', input: 'hi' });
      await waitFor(() => provider.requests.length === 2);
      const closing = provider.close();
      await rejectsWith(pending, (e) => e instanceof OpenAI.APIConnectionError);
      await closing;
    } finally {
      await provider.close();
    }
  });

  it('stalls after N events with the connection open, until the client gives up', async () => {
    let secondArrived: () => void = () => {};
    const arrived = new Promise<void>((resolve) => (secondArrived = resolve));
    await withProvider(
      {
        script: [
          { text: 'an answer long enough for several chunks', chunkSize: 4, fault: { kind: 'stall', afterEvents: 3 } },
          () => {
            secondArrived();
            return { text: 'whole', fault: { kind: 'stall', afterEvents: 0 } };
          },
        ],
      },
      async (provider, client) => {
        const controller = new AbortController();
        const chat = await client.chat.completions.create(
          { model: 'm', messages: chatMessages, stream: true },
          { signal: controller.signal },
        );
        const received: string[] = [];
        // The SDK ends an aborted stream quietly; the stall itself never ends it.
        for await (const chunk of chat) {
          received.push(chunk.choices[0]?.delta.content ?? '');
          if (received.length === 3) controller.abort();
        }
        assert.deepEqual(received, ['', 'an a', 'nswe']);
        assert.deepEqual(await provider.exchangeEnded(0), { finished: false, framesWritten: 3, framesTotal: 13 });

        // Without streaming, half the promised body arrives and then nothing.
        const later = new AbortController();
        const pending = client.responses.create({ model: 'm', input: 'hi' }, { signal: later.signal });
        const ended = provider.exchangeEnded(1);
        await arrived;
        later.abort();
        await rejectsWith(pending, (e) => e instanceof Error);
        assert.equal((await ended).finished, false);
      },
    );
  });

  it('reports a complete answer as finished, with every frame written', async () => {
    await withProvider({ script: [{ text: 'abcdef', chunkSize: 2 }, { text: 'plain' }] }, async (provider, client) => {
      const stream = await client.responses.create({ model: 'm', input: 'hi', stream: true });
      for await (const _event of stream);
      const outcome = await provider.exchangeEnded(0);
      assert.equal(outcome.finished, true);
      assert.ok(outcome.framesTotal > 3);
      assert.equal(outcome.framesWritten, outcome.framesTotal);
      await client.chat.completions.create({ model: 'm', messages: chatMessages });
      assert.deepEqual(await provider.exchangeEnded(1), { finished: true, framesWritten: 0, framesTotal: 0 });
    });
  });

  it('drops the connection before answering: the SDK reports a connection error', async () => {
    await withProvider({ script: [{ fault: { kind: 'drop' } }, { fault: { kind: 'drop' } }] }, async (provider, client) => {
      await rejectsWith(
        client.chat.completions.create({ model: 'm', messages: chatMessages, stream: true }),
        (e) => e instanceof OpenAI.APIConnectionError,
      );
      await rejectsWith(client.responses.create({ model: 'm', input: 'x' }), (e) => e instanceof OpenAI.APIConnectionError);
      assert.equal(provider.requests.length, 2);
      assert.equal(provider.remaining(), 0);
    });
  });

  it('reports response_failed in-band: Chat error chunk, Responses response.failed', async () => {
    const fault = { kind: 'response_failed', message: 'The model crashed.', code: 'server_error' } as const;
    await withProvider(
      { script: [{ text: 'partial', fault }, { text: 'partial', fault }, { fault }, { fault }] },
      async (_provider, client) => {
        const chat = await client.chat.completions.create({ model: 'm', messages: chatMessages, stream: true });
        let text = '';
        const error = await rejectsWith(
          (async () => {
            for await (const chunk of chat) text += chunk.choices[0]?.delta.content ?? '';
          })(),
          (e) => e instanceof OpenAI.APIError,
        );
        assert.match((error as Error).message, /The model crashed\./);
        assert.equal(text, 'partial');

        const stream = await client.responses.create({ model: 'm', input: 'hi', stream: true });
        const events: OpenAI.Responses.ResponseStreamEvent[] = [];
        for await (const event of stream) events.push(event);
        const last = events[events.length - 1]!;
        assert.ok(last.type === 'response.failed');
        assert.equal(last.response.status, 'failed');
        assert.deepEqual(last.response.error, { code: 'server_error', message: 'The model crashed.' });

        await rejectsWith(
          client.chat.completions.create({ model: 'm', messages: chatMessages }),
          (e) => e instanceof OpenAI.InternalServerError,
        );
        const failed = await client.responses.create({ model: 'm', input: 'hi' });
        assert.equal(failed.status, 'failed');
        assert.equal(failed.error?.message, 'The model crashed.');
      },
    );
  });

  it('sends a top-level error event for stream_error_event', async () => {
    await withProvider(
      { script: [{ text: 'never shown', fault: { kind: 'stream_error_event', message: 'Overloaded.' } }] },
      async (_provider, client) => {
        const stream = await client.responses.create({ model: 'm', input: 'hi', stream: true });
        const events: OpenAI.Responses.ResponseStreamEvent[] = [];
        for await (const event of stream) events.push(event);
        assert.deepEqual(
          events.map((event) => event.type),
          ['response.created', 'response.in_progress', 'error'],
        );
        const last = events[2]!;
        assert.ok(last.type === 'error');
        assert.equal(last.message, 'Overloaded.');
        assert.equal(last.sequence_number, 2);
      },
    );
  });
});
