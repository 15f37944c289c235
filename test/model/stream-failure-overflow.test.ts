// One classification of "the request is too large" for both ways a provider reports it: an HTTP
// 429 before the stream (test/fixtures/providers/errors/openai-tpm-request-too-large.json) and a
// failure inside an open stream. The in-stream wording is OpenAI's, as Codex printed it from a
// failed Responses stream: https://github.com/openai/codex/issues/38366 ("stream disconnected before
// completion: Request too large for gpt-5.6-luna in organization … on tokens per min (TPM): Limit
// 200000, Requested 208334. …"); the code is the one OpenAI puts on that 429 (`rate_limit_exceeded`).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyProviderError, classifyStreamFailure } from '../../src/model/provider-error.js';
import { createGateway, isModelError, WIRE_APIS, type ModelStreamEvent } from '../../src/model/index.js';
import { startFakeProvider } from '../../src/testing/index.js';
import { fixtureBodyText, fixtureNamed } from './provider-error-server.js';

const IN_STREAM =
  'Request too large for gpt-5.6-luna in organization org-b4g4X7AHZEEhfU5LlCT6H4N4 on tokens per min (TPM): Limit 200000, ' +
  'Requested 208334. The input or output tokens must be reduced in order to run successfully. Visit ' +
  'https://platform.openai.com/account/rate-limits to learn more.';

describe('"Request too large" is one classification, before the stream and inside it', () => {
  it('is CONTEXT_OVERFLOW as an HTTP 429 and as a stream failure alike', () => {
    const fixture = fixtureNamed('openai-tpm-request-too-large');
    assert.equal(classifyProviderError({ status: 429, body: fixtureBodyText(fixture) }).code, 'CONTEXT_OVERFLOW');
    assert.equal(classifyStreamFailure(`rate_limit_exceeded ${IN_STREAM}`), 'CONTEXT_OVERFLOW');
    // A request within the per-minute limit is an ordinary failure in both places.
    const fits = IN_STREAM.replace('Requested 208334', 'Requested 1000');
    assert.equal(classifyProviderError({ status: 429, body: { error: { message: fits } } }).code, 'RATE_LIMITED');
    assert.equal(classifyStreamFailure(`rate_limit_exceeded ${fits}`), 'RESPONSE_FAILED');
  });

  for (const wireApi of WIRE_APIS) {
    it(`reaches the caller as CONTEXT_OVERFLOW from a failed ${wireApi} stream`, async () => {
      const provider = await startFakeProvider({
        script: [{ text: 'partial', fault: { kind: 'response_failed', code: 'rate_limit_exceeded', message: IN_STREAM } }],
      });
      try {
        const gateway = createGateway({ wireApi, baseURL: provider.baseURL, apiKey: 'sk-test' });
        const events: ModelStreamEvent[] = [];
        await assert.rejects(
          async () => {
            for await (const event of gateway.streamResponse({ model: 'gpt-5.6-luna', messages: [{ role: 'user', content: 'hi' }] })) {
              events.push(event);
            }
          },
          (error: unknown) => isModelError(error) && error.code === 'CONTEXT_OVERFLOW' && /Requested 208334/.test(error.message),
        );
        assert.equal(provider.requests.length, 1);
      } finally {
        await provider.close();
      }
    });
  }
});
