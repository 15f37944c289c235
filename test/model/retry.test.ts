import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  backoffDelay,
  DEFAULT_RETRY_POLICY,
  isModelError,
  ModelError,
  resolveRetryPolicy,
  sleepAbortable,
  streamWithRetries,
  withRetries,
  type RetryNotice,
  type RetryPolicy,
} from '../../src/model/index.js';

const half: RetryPolicy = { ...DEFAULT_RETRY_POLICY, random: () => 0.5 };

function recordingSleep(): { delays: number[]; sleep: (ms: number) => Promise<void> } {
  const delays: number[] = [];
  return { delays, sleep: async (ms: number) => void delays.push(ms) };
}

const rateLimited = (retryAfterMs: number | null = null) =>
  new ModelError('RATE_LIMITED', 'Rate limited (429)', { status: 429, retryable: true, retryAfterMs });
const serverError = () => new ModelError('SERVER_ERROR', 'Provider server error (500)', { status: 500, retryable: true });

describe('backoffDelay', () => {
  it('is full jitter over an exponential ceiling capped at maxDelayMs', () => {
    assert.equal(backoffDelay(1, half), 250);
    assert.equal(backoffDelay(2, half), 500);
    assert.equal(backoffDelay(3, half), 1000);
    assert.equal(backoffDelay(5, half), 4000);
    assert.equal(backoffDelay(12, half), 4000);
    assert.equal(backoffDelay(3, { ...half, random: () => 0 }), 0);
    assert.equal(backoffDelay(3, { ...half, random: () => 0.999 }), 1998);
  });
});

describe('resolveRetryPolicy', () => {
  it('fills defaults and rejects nonsense with the field named', () => {
    assert.equal(resolveRetryPolicy({ maxAttempts: 2 }).baseDelayMs, 500);
    assert.throws(() => resolveRetryPolicy({ maxAttempts: 0 }), /maxAttempts/);
    assert.throws(() => resolveRetryPolicy({ baseDelayMs: -1 }), /baseDelayMs/);
  });
});

describe('withRetries', () => {
  it('retries a 429 after the provider-given delay and reports it through onRetry', async () => {
    const { delays, sleep } = recordingSleep();
    const notices: RetryNotice[] = [];
    let calls = 0;
    const result = await withRetries(
      async (attempt) => {
        calls++;
        if (attempt === 1) throw rateLimited(1234);
        return 'ok';
      },
      { policy: half, sleep, onRetry: (notice) => notices.push(notice) },
    );
    assert.equal(result, 'ok');
    assert.equal(calls, 2);
    assert.deepEqual(delays, [1234]);
    assert.deepEqual(notices, [{ attempt: 1, delayMs: 1234, error: { code: 'RATE_LIMITED', message: 'Rate limited (429)', status: 429 } }]);
  });

  it('uses jittered backoff without Retry-After and gives up after maxAttempts with the last error', async () => {
    const { delays, sleep } = recordingSleep();
    let calls = 0;
    await assert.rejects(
      withRetries(
        async () => {
          calls++;
          throw serverError();
        },
        { policy: half, sleep },
      ),
      (error: unknown) =>
        isModelError(error) && error.code === 'SERVER_ERROR' && error.status === 500 && /gave up after 4 attempts/.test(error.message),
    );
    assert.equal(calls, 4);
    assert.deepEqual(delays, [250, 500, 1000]);
  });

  for (const [code, status] of [
    ['BAD_REQUEST', 400],
    ['AUTH_FAILED', 401],
    ['AUTH_FAILED', 403],
    ['NOT_FOUND', 404],
    ['CONTEXT_OVERFLOW', 400],
    ['QUOTA_EXCEEDED', 402],
    ['PROVIDER_MISCONFIGURED', 500],
  ] as const) {
    it(`never retries ${code} (${status})`, async () => {
      const { delays, sleep } = recordingSleep();
      let calls = 0;
      const failure = new ModelError(code, 'nope', { status });
      await assert.rejects(
        withRetries(
          async () => {
            calls++;
            throw failure;
          },
          { policy: half, sleep },
        ),
        (error: unknown) => error === failure,
      );
      assert.equal(calls, 1);
      assert.deepEqual(delays, []);
    });
  }

  for (const [code, status] of [
    ['BAD_REQUEST', 422],
    ['AUTH_FAILED', 401],
    ['QUOTA_EXCEEDED', 429],
    ['PROVIDER_MISCONFIGURED', 500],
    ['SERVER_ERROR', 400],
  ] as const) {
    it(`never retries ${code} (${status}) even if it were marked retryable`, async () => {
      let calls = 0;
      const failure = new ModelError(code, 'nope', { status, retryable: true });
      await assert.rejects(
        withRetries(
          async () => {
            calls++;
            throw failure;
          },
          { policy: half, sleep: async () => {} },
        ),
        (error: unknown) => error === failure,
      );
      assert.equal(calls, 1);
    });
  }

  it('never retries ABORTED even if it were marked retryable', async () => {
    let calls = 0;
    await assert.rejects(
      withRetries(
        async () => {
          calls++;
          throw new ModelError('ABORTED', 'cancelled', { retryable: true });
        },
        { policy: half, sleep: async () => {} },
      ),
      (error: unknown) => isModelError(error) && error.code === 'ABORTED',
    );
    assert.equal(calls, 1);
  });

  it('rethrows errors that are not ModelErrors untouched (programming errors are not transient)', async () => {
    const bug = new TypeError('bug');
    await assert.rejects(
      withRetries(async () => Promise.reject(bug), { policy: half, sleep: async () => {} }),
      (error) => error === bug,
    );
  });

  it('aborting during the backoff sleep rejects with ABORTED without another attempt', async () => {
    const controller = new AbortController();
    let calls = 0;
    const pending = withRetries(
      async () => {
        calls++;
        throw rateLimited(30_000);
      },
      { policy: half, signal: controller.signal, onRetry: () => setImmediate(() => controller.abort()) },
    );
    await assert.rejects(pending, (error: unknown) => isModelError(error) && error.code === 'ABORTED');
    assert.equal(calls, 1);
  });

  it('does not start when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    let calls = 0;
    await assert.rejects(
      withRetries(async () => ++calls, { signal: controller.signal }),
      (error: unknown) => isModelError(error) && error.code === 'ABORTED',
    );
    assert.equal(calls, 0);
  });
});

describe('sleepAbortable', () => {
  it('resolves after the delay', async () => {
    await sleepAbortable(1);
  });

  it('rejects with ABORTED at once for an aborted signal and on abort mid-sleep', async () => {
    const done = new AbortController();
    done.abort();
    await assert.rejects(sleepAbortable(60_000, done.signal), (error: unknown) => isModelError(error) && error.code === 'ABORTED');
    const later = new AbortController();
    const sleeping = sleepAbortable(60_000, later.signal);
    setImmediate(() => later.abort());
    await assert.rejects(sleeping, (error: unknown) => isModelError(error) && error.code === 'ABORTED');
  });
});

describe('streamWithRetries', () => {
  it('retries while nothing was yielded', async () => {
    const { delays, sleep } = recordingSleep();
    let starts = 0;
    const events: string[] = [];
    const stream = streamWithRetries(
      async function* (attempt) {
        starts++;
        if (attempt < 3) throw serverError();
        yield 'a';
        yield 'b';
      },
      { policy: half, sleep },
    );
    for await (const event of stream) events.push(event);
    assert.deepEqual(events, ['a', 'b']);
    assert.equal(starts, 3);
    assert.deepEqual(delays, [250, 500]);
  });

  it('never retries once an event was yielded, even for a retryable error', async () => {
    let starts = 0;
    const events: string[] = [];
    const stream = streamWithRetries(
      async function* () {
        starts++;
        yield 'partial';
        throw new ModelError('STREAM_INTERRUPTED', 'cut', { retryable: true });
      },
      { policy: half, sleep: async () => {} },
    );
    await assert.rejects(
      (async () => {
        for await (const event of stream) events.push(event);
      })(),
      (error: unknown) => isModelError(error) && error.code === 'STREAM_INTERRUPTED',
    );
    assert.equal(starts, 1);
    assert.deepEqual(events, ['partial']);
  });
});
