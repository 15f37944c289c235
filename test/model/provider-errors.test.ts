// Every real provider error body in the corpus, replayed over loopback through the real OpenAI SDK,
// the client's fetch and the retrying gateway from createGateway: the code and retry decision the
// caller gets, how many HTTP attempts were made, and that the provider's own words reach the
// message whatever shape the body had.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createGateway, isModelError, type ModelError, type ModelRequest, type RetryNotice, type WireApi } from '../../src/model/index.js';
import { startFakeProvider, type FakeProvider } from '../../src/testing/index.js';
import { loadErrorFixtures, originOf, startErrorProxy, type ErrorFixture, type ErrorProxy } from './provider-error-server.js';

const WIRES: WireApi[] = ['chat', 'responses'];
const KEY = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789';
const request: ModelRequest = { model: 'test-model', messages: [{ role: 'user', content: 'hi' }] };
/** Waits the provider asks for longer than this are observed, not slept through. */
const LONGEST_TEST_WAIT_MS = 200;

interface Outcome {
  error: ModelError | null;
  text: string | null;
  notices: RetryNotice[];
  attempts: number;
}

async function call(wireApi: WireApi, baseURL: string, proxy: ErrorProxy): Promise<Outcome> {
  const gateway = createGateway({
    wireApi,
    baseURL,
    apiKey: KEY,
    retry: { maxAttempts: 4, baseDelayMs: 1, maxDelayMs: 2, random: () => 0 },
  });
  const controller = new AbortController();
  const notices: RetryNotice[] = [];
  const onRetry = (notice: RetryNotice): void => {
    notices.push(notice);
    if (notice.delayMs > LONGEST_TEST_WAIT_MS) controller.abort();
  };
  const before = proxy.requests.length;
  try {
    let text: string;
    if (wireApi === 'chat') {
      text = '';
      for await (const event of gateway.streamResponse(request, { onRetry, signal: controller.signal })) {
        if (event.type === 'text-delta') text += event.delta;
      }
    } else {
      text = (await gateway.createResponse(request, { onRetry, signal: controller.signal })).text;
    }
    return { error: null, text, notices, attempts: proxy.requests.length - before };
  } catch (error) {
    assert.ok(isModelError(error), `expected a ModelError, got ${String(error)}`);
    return { error, text: null, notices, attempts: proxy.requests.length - before };
  }
}

describe('real provider error bodies through the gateway', () => {
  let provider: FakeProvider;
  let proxy: ErrorProxy;
  let current: ErrorFixture | null = null;
  /** How many of the coming requests get the current fixture. */
  let failures = 0;

  before(async () => {
    provider = await startFakeProvider({ whenExhausted: { text: 'recovered' } });
    proxy = await startErrorProxy(() => {
      if (current === null || failures === 0) return null;
      failures--;
      return current;
    }, originOf(provider.baseURL));
  });
  after(async () => {
    await proxy.close();
    await provider.close();
  });

  const fixtures = loadErrorFixtures();
  it('holds at least 20 bodies, each naming its source', () => {
    assert.ok(fixtures.length >= 20, `only ${fixtures.length} fixtures`);
    for (const { name, fixture } of fixtures) {
      assert.ok(fixture.source.length > 10, `${name} names no source`);
      assert.ok(fixture.expect.messageIncludes.length > 0, `${name} expects no message`);
    }
  });

  for (const { name, fixture } of fixtures) {
    for (const wireApi of WIRES) {
      it(`${name} (${wireApi}): ${fixture.expect.code}, ${fixture.expect.retryable ? 'retried' : 'not retried'}`, async () => {
        current = fixture;
        failures = fixture.expect.retryable ? 1 : 100;
        const outcome = await call(wireApi, proxy.baseURL, proxy);
        current = null;
        failures = 0;

        if (!fixture.expect.retryable) {
          assert.ok(outcome.error, 'a permanent error must fail the call');
          assert.equal(outcome.error.code, fixture.expect.code, outcome.error.message);
          assert.equal(outcome.error.retryable, false, outcome.error.message);
          assert.equal(outcome.error.status, fixture.status);
          assert.equal(outcome.attempts, 1, `a permanent error was sent ${outcome.attempts} times`);
          assert.deepEqual(outcome.notices, []);
          assert.ok(
            outcome.error.message.includes(fixture.expect.messageIncludes),
            `the provider's words are missing from: ${outcome.error.message}`,
          );
          assert.doesNotMatch(outcome.error.message, /status code \(no body\)/);
          return;
        }

        // Retryable: the first answer is the fixture, and the retry notice carries what the caller is told.
        assert.ok(outcome.notices.length >= 1, `not retried: ${outcome.error?.message ?? outcome.text}`);
        const notice = outcome.notices[0]!;
        assert.equal(notice.error.code, fixture.expect.code, notice.error.message);
        assert.equal(notice.error.status, fixture.status);
        assert.ok(
          notice.error.message.includes(fixture.expect.messageIncludes),
          `the provider's words are missing from: ${notice.error.message}`,
        );
        if (fixture.expect.retryAfterMs !== undefined) assert.equal(notice.delayMs, fixture.expect.retryAfterMs);
        if (notice.delayMs > LONGEST_TEST_WAIT_MS) {
          // Cancelled during the provider-requested wait: one attempt, then ABORTED.
          assert.equal(outcome.error?.code, 'ABORTED');
          assert.equal(outcome.attempts, 1);
        } else {
          assert.equal(outcome.error, null, outcome.error?.message);
          assert.equal(outcome.text, 'recovered');
          assert.equal(outcome.attempts, 2);
        }
      });
    }
  }
});

describe('error bodies the SDK does not understand', () => {
  async function oneShot(fixture: ErrorFixture, wireApi: WireApi = 'chat'): Promise<Outcome> {
    const proxy = await startErrorProxy(() => fixture);
    try {
      return await call(wireApi, proxy.baseURL, proxy);
    } finally {
      await proxy.close();
    }
  }

  it('reads only the first 64 KiB of a huge error body and still reports its first line', async () => {
    const body = `upstream exploded\n${'x'.repeat(5 * 1024 * 1024)}`;
    const outcome = await oneShot({
      source: 'synthetic',
      status: 500,
      body,
      expect: { code: 'SERVER_ERROR', retryable: true, messageIncludes: '' },
    });
    assert.equal(outcome.notices[0]?.error.code, 'SERVER_ERROR');
    assert.match(outcome.notices[0].error.message, /upstream exploded/);
    assert.ok(outcome.notices[0].error.message.length < 2000, `message of ${outcome.notices[0].error.message.length} characters`);
  });

  it('never carries the API key on, whatever shape echoed it', async () => {
    for (const body of [`invalid key ${KEY}`, { detail: `invalid key ${KEY}` }, [{ error: { message: `invalid key ${KEY}` } }]]) {
      const outcome = await oneShot({
        source: 'synthetic',
        status: 401,
        body,
        expect: { code: 'AUTH_FAILED', retryable: false, messageIncludes: '' },
      });
      assert.equal(outcome.error?.code, 'AUTH_FAILED');
      assert.doesNotMatch(outcome.error.message, new RegExp(KEY));
      assert.match(outcome.error.message, /invalid key \[redacted\]/);
    }
  });

  it('reports an empty error body by its status, not as a blank', async () => {
    const outcome = await oneShot({
      source: 'synthetic',
      status: 400,
      body: '',
      expect: { code: 'BAD_REQUEST', retryable: false, messageIncludes: '' },
    });
    assert.equal(outcome.error?.code, 'BAD_REQUEST');
    assert.match(outcome.error.message, /400/);
  });
});
