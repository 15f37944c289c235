// Shared set-up for the fake provider tests: a provider plus a real SDK client pointed at it.
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startFakeProvider, type FakeProvider, type FakeProviderOptions } from '../../src/testing/index.js';

export async function withProvider(
  options: FakeProviderOptions,
  fn: (provider: FakeProvider, client: OpenAI) => Promise<void>,
): Promise<void> {
  const provider = await startFakeProvider(options);
  const client = new OpenAI({ baseURL: provider.baseURL, apiKey: 'test-key', maxRetries: 0, logLevel: 'off' });
  try {
    await fn(provider, client);
  } finally {
    await provider.close();
  }
}

export const chatMessages: OpenAI.Chat.ChatCompletionMessageParam[] = [
  { role: 'system', content: 'You are terse.' },
  { role: 'user', content: 'Read a.txt and b.txt, please.' },
];

export async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.ok(condition(), 'condition never became true');
}

export async function rejectsWith(promise: Promise<unknown>, check: (error: unknown) => boolean): Promise<unknown> {
  let caught: unknown = null;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  assert.ok(caught !== null, 'expected a rejection');
  assert.ok(check(caught), `unexpected error: ${String(caught)}`);
  return caught;
}
