import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createGateway, isModelError, type RetryNotice } from '../../src/model/index.js';
import { startFakeProvider } from '../../src/testing/index.js';

const KEY = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789';

for (const wireApi of ['chat', 'responses', 'anthropic'] as const) {
  test(`a provider error that echoes the API key never carries it on (${wireApi})`, async () => {
    const provider = await startFakeProvider({
      script: [
        { fault: { kind: 'status', status: 500, message: `upstream failed for Bearer ${KEY}` } },
        { fault: { kind: 'status', status: 401, message: `Incorrect API key provided: ${KEY}.` } },
      ],
    });
    try {
      const gateway = createGateway({
        wireApi,
        baseURL: provider.baseURL,
        apiKey: KEY,
        retry: { baseDelayMs: 1, maxDelayMs: 2, random: () => 0 },
      });
      const notices: RetryNotice[] = [];
      let caught: unknown;
      try {
        for await (const _event of gateway.streamResponse(
          { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
          { onRetry: (n) => notices.push(n) },
        )) {
          // drain
        }
      } catch (error) {
        caught = error;
      }
      assert.ok(isModelError(caught));
      assert.equal(caught.code, 'AUTH_FAILED');
      assert.doesNotMatch(caught.message, new RegExp(KEY));
      assert.match(caught.message, /\[redacted\]/);
      assert.equal(notices.length, 1);
      assert.doesNotMatch(notices[0]!.error.message, new RegExp(KEY));
    } finally {
      await provider.close();
    }
  });
}
