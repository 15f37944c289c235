// The gateway's guards against a provider that stalls or never stops talking, through the real
// OpenAI SDK against the scripted fake provider on loopback, for both wire APIs: a stream that
// goes silent is cut after the idle timeout (and retried only if nothing reached the caller), and
// an answer that outgrows its size limits is abandoned mid-stream instead of being buffered whole.
// Timeouts here are tiny so the tests are quick; nothing asserts how long anything took.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  createGateway,
  isModelError,
  WIRE_APIS,
  type GatewayConfig,
  type ModelErrorCode,
  type ModelGateway,
  type ModelRequest,
  type ModelStreamEvent,
  type RetryNotice,
  type WireApi,
} from '../../src/model/index.js';
import { resolveClientConfig } from '../../src/model/sdk-client.js';
import { startFakeProvider, type FakeProvider, type FakeProviderOptions } from '../../src/testing/index.js';

const FAST_RETRY = { baseDelayMs: 10, maxDelayMs: 40, random: () => 0.5 };
/**
 * Short enough for a quick test, long enough that a loaded machine never pauses this long between
 * frames the fake provider writes back to back.
 */
const SHORT_TIMEOUT_MS = 500;
/** Only a guard against a 600 s silence (the old behaviour) hanging the suite; no test relies on it. */
const HANG_GUARD = { timeout: 60_000 };

async function withProvider(options: FakeProviderOptions, run: (provider: FakeProvider) => Promise<void>): Promise<void> {
  const provider = await startFakeProvider(options);
  try {
    await run(provider);
  } finally {
    await provider.close();
  }
}

function gatewayFor(wireApi: WireApi, baseURL: string, overrides: Partial<GatewayConfig> = {}): ModelGateway {
  return createGateway({ wireApi, baseURL, apiKey: 'sk-test', retry: FAST_RETRY, ...overrides });
}

function userAsks(text: string): ModelRequest {
  return { model: 'fake-model', messages: [{ role: 'user', content: text }] };
}

async function collect(stream: AsyncIterable<ModelStreamEvent>): Promise<ModelStreamEvent[]> {
  const events: ModelStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** Consume a stream expecting it to fail with `code`; returns the events seen before the failure. */
async function failingStream(stream: AsyncIterable<ModelStreamEvent>, code: ModelErrorCode, pattern: RegExp): Promise<ModelStreamEvent[]> {
  const events: ModelStreamEvent[] = [];
  await assert.rejects(
    async () => {
      for await (const event of stream) events.push(event);
    },
    (error: unknown) => {
      assert.ok(isModelError(error), `expected a ModelError, got ${String(error)}`);
      assert.equal(error.code, code, error.message);
      assert.match(error.message, pattern);
      assert.equal(error.retryable, false);
      return true;
    },
  );
  return events;
}

function textOf(events: ModelStreamEvent[]): string {
  return events.map((event) => (event.type === 'text-delta' ? event.delta : '')).join('');
}

function argumentsOf(events: ModelStreamEvent[]): string {
  return events.map((event) => (event.type === 'tool-call-delta' ? event.delta : '')).join('');
}

/**
 * A huge answer, streamed in 16 KiB frames at most one per millisecond: more than loopback socket
 * buffers hold between them (about 4 MiB here), and more than half a second of writing, so a
 * provider that still got all of it out would mean the client kept reading to the end.
 */
const HUGE = 8 * 1024 * 1024;
const HUGE_STREAM = { chunkSize: 16 * 1024, chunkDelayMs: 1 };

/** The provider saw the client hang up before it had written the whole answer. */
async function assertCutShort(provider: FakeProvider, index: number): Promise<void> {
  const outcome = await provider.exchangeEnded(index);
  assert.equal(outcome.finished, false, 'the client read the whole answer');
  assert.ok(outcome.framesWritten < outcome.framesTotal, JSON.stringify(outcome));
}

for (const wireApi of WIRE_APIS) {
  describe(`stream idle timeout over ${wireApi}`, () => {
    it('cuts a stream that stalls after its answer started with STREAM_INTERRUPTED, without retrying', HANG_GUARD, async () => {
      // Frames up to the second text delta: Chat sends a role chunk first; Responses sends
      // created, in_progress, output_item.added and content_part.added; Anthropic message_start,
      // content_block_start and a ping.
      const afterEvents = wireApi === 'chat' ? 3 : wireApi === 'responses' ? 6 : 5;
      await withProvider(
        { script: [{ text: 'abcdefghijklmnop', chunkSize: 2, fault: { kind: 'stall', afterEvents } }, { text: 'again' }] },
        async (provider) => {
          const gateway = gatewayFor(wireApi, provider.baseURL, { streamIdleTimeoutMs: SHORT_TIMEOUT_MS });
          const events = await failingStream(
            gateway.streamResponse(userAsks('x')),
            'STREAM_INTERRUPTED',
            /went silent for 500 ms.*--stream-idle-timeout/,
          );
          assert.equal(textOf(events), 'abcd', 'what got through was passed on');
          assert.equal(provider.requests.length, 1, 'a started stream is not retried');
          assert.equal((await provider.exchangeEnded(0)).finished, false, 'the stalled connection was closed');
        },
      );
    });

    it('retries a stream that stalls before its first event, then succeeds', HANG_GUARD, async () => {
      await withProvider({ script: [{ text: 'lost', fault: { kind: 'stall', afterEvents: 1 } }, { text: 'again' }] }, async (provider) => {
        const notices: RetryNotice[] = [];
        const gateway = gatewayFor(wireApi, provider.baseURL, { streamStartTimeoutMs: SHORT_TIMEOUT_MS });
        const events = await collect(gateway.streamResponse(userAsks('x'), { onRetry: (notice) => notices.push(notice) }));
        assert.equal(textOf(events), 'again');
        assert.deepEqual(
          notices.map((notice) => notice.error.code),
          ['CONNECTION_FAILED'],
        );
        assert.match(notices[0]!.error.message, /No response from .* within 500 ms.*--stream-idle-timeout/);
        assert.equal(provider.requests.length, 2);
        assert.equal((await provider.exchangeEnded(0)).finished, false, 'the stalled connection was closed');
      });
    });
  });

  describe(`response size limits over ${wireApi}`, () => {
    it('stops reading an answer whose text passes maxTextChars, with RESPONSE_TOO_LARGE', HANG_GUARD, async () => {
      await withProvider({ script: [{ text: 'x'.repeat(HUGE), ...HUGE_STREAM }, { text: 'unused' }] }, async (provider) => {
        const gateway = gatewayFor(wireApi, provider.baseURL, { limits: { maxTextChars: 40_000 } });
        const events = await failingStream(gateway.streamResponse(userAsks('x')), 'RESPONSE_TOO_LARGE', /40000 characters.*maxTextChars/);
        assert.ok(textOf(events).length <= 40_000, 'nothing past the limit was passed on');
        assert.equal(provider.requests.length, 1, 'not retried');
        await assertCutShort(provider, 0);
      });
    });

    it('stops reading a tool call whose arguments pass maxArgumentChars, with RESPONSE_TOO_LARGE', HANG_GUARD, async () => {
      const call = { id: 'call_big', name: 'write_file', arguments: `{"content":"${'y'.repeat(HUGE)}"}` };
      await withProvider({ script: [{ text: 'Writing.', toolCalls: [call], ...HUGE_STREAM }] }, async (provider) => {
        const gateway = gatewayFor(wireApi, provider.baseURL, { limits: { maxArgumentChars: 40_000 } });
        const events = await failingStream(
          gateway.streamResponse(userAsks('x')),
          'RESPONSE_TOO_LARGE',
          /write_file.*40000 characters.*maxArgumentChars/,
        );
        assert.ok(argumentsOf(events).length <= 40_000);
        assert.ok(!events.some((event) => event.type === 'tool-call-end' || event.type === 'completed'));
        await assertCutShort(provider, 0);
      });
    });

    it('stops reading when text and arguments together pass maxResponseChars', HANG_GUARD, async () => {
      const calls = Array.from({ length: 4 }, (_, i) => ({ name: 'write_file', arguments: 'z'.repeat(6_000), id: `c${i}` }));
      await withProvider({ script: [{ text: 'Writing four files.', toolCalls: calls, chunkSize: 1_000 }] }, async (provider) => {
        const gateway = gatewayFor(wireApi, provider.baseURL, { limits: { maxArgumentChars: 10_000, maxResponseChars: 20_000 } });
        await failingStream(gateway.streamResponse(userAsks('x')), 'RESPONSE_TOO_LARGE', /20000 characters.*maxResponseChars/);
      });
    });

    it('refuses a single stream event too large for any answer within the limits', HANG_GUARD, async () => {
      // Frames of 2 Mi characters each, against limits that allow at most 16 Ki of output: the
      // first one is refused before the SDK has buffered (or parsed) it whole.
      await withProvider({ script: [{ text: 'w'.repeat(HUGE), chunkSize: 2 * 1024 * 1024, chunkDelayMs: 1 }] }, async (provider) => {
        const gateway = gatewayFor(wireApi, provider.baseURL, { limits: { maxResponseChars: 16_384 } });
        const events = await failingStream(
          gateway.streamResponse(userAsks('x')),
          'RESPONSE_TOO_LARGE',
          /single stream event.*maxResponseChars/,
        );
        assert.equal(textOf(events), '');
        await assertCutShort(provider, 0);
      });
    });

    it('fails createResponse whose answer passes the limits, with RESPONSE_TOO_LARGE', HANG_GUARD, async () => {
      // Large chunks only spare the fake provider from rendering stream events it will not send.
      const script = [
        { text: 'v'.repeat(50_000), chunkSize: 65_536 },
        { text: 'u'.repeat(2 * 1024 * 1024), chunkSize: 1 << 20 },
      ];
      await withProvider({ script }, async (provider) => {
        const small = gatewayFor(wireApi, provider.baseURL, { limits: { maxTextChars: 40_000 } });
        await assert.rejects(small.createResponse(userAsks('x')), (error: unknown) => {
          assert.ok(isModelError(error) && error.code === 'RESPONSE_TOO_LARGE', String(error));
          assert.match(error.message, /40000 characters.*maxTextChars/);
          return true;
        });
        const tiny = gatewayFor(wireApi, provider.baseURL, { limits: { maxResponseChars: 16_384 } });
        await assert.rejects(tiny.createResponse(userAsks('y')), (error: unknown) => {
          assert.ok(isModelError(error) && error.code === 'RESPONSE_TOO_LARGE', String(error));
          assert.match(error.message, /response body.*maxResponseChars/);
          return true;
        });
        assert.equal(provider.requests.length, 2, 'not retried');
      });
    });

    it('passes answers within the limits through unchanged', async () => {
      const call = { id: 'c1', name: 'write_file', arguments: '{"content":"ok"}' };
      await withProvider({ script: [{ text: 'a'.repeat(1_000), toolCalls: [call], chunkSize: 100 }] }, async (provider) => {
        const gateway = gatewayFor(wireApi, provider.baseURL, {
          limits: { maxTextChars: 1_000, maxArgumentChars: 16, maxResponseChars: 1_016 },
        });
        const completed = (await collect(gateway.streamResponse(userAsks('x')))).at(-1);
        assert.ok(completed?.type === 'completed');
        assert.equal(completed.response.text.length, 1_000);
        assert.deepEqual(completed.response.toolCalls, [call]);
      });
    });
  });
}

describe('gateway limits configuration', () => {
  const base = { wireApi: 'chat', baseURL: 'http://127.0.0.1:1/v1', apiKey: 'k' } as const;

  it('derives the stream timeouts: generous before the first event, shorter after, none past timeoutMs', () => {
    const timeouts = (config: Partial<GatewayConfig>) => {
      const { timeoutMs, streamStartTimeoutMs, streamIdleTimeoutMs } = resolveClientConfig({ ...base, ...config });
      return [timeoutMs, streamStartTimeoutMs, streamIdleTimeoutMs];
    };
    assert.deepEqual(timeouts({}), [600_000, 300_000, 120_000]);
    assert.deepEqual(timeouts({ timeoutMs: 150 }), [150, 150, 150]);
    assert.deepEqual(timeouts({ streamIdleTimeoutMs: 10_000 }), [600_000, 300_000, 10_000]);
    assert.deepEqual(timeouts({ streamIdleTimeoutMs: 900_000 }), [600_000, 900_000, 900_000]);
    assert.deepEqual(timeouts({ streamStartTimeoutMs: 50 }), [600_000, 50, 120_000]);
    assert.deepEqual(resolveClientConfig(base).limits, {
      maxTextChars: 1_048_576,
      maxArgumentChars: 1_048_576,
      maxResponseChars: 4_194_304,
    });
  });

  it('rejects bad stream timeouts and size limits with the setting named', () => {
    assert.throws(() => createGateway({ ...base, streamIdleTimeoutMs: 2 ** 31 }), /streamIdleTimeoutMs/);
    assert.throws(() => createGateway({ ...base, streamIdleTimeoutMs: 0 }), /streamIdleTimeoutMs/);
    assert.throws(() => createGateway({ ...base, streamStartTimeoutMs: 1.5 }), /streamStartTimeoutMs/);
    assert.throws(() => createGateway({ ...base, limits: { maxTextChars: -1 } }), /maxTextChars/);
    assert.throws(() => createGateway({ ...base, limits: { maxArgumentChars: Number.NaN } }), /maxArgumentChars/);
    assert.throws(() => createGateway({ ...base, limits: { maxResponseChars: 0 } }), /maxResponseChars/);
  });
});
