// The one recognition function over the whole corpus of real provider error bodies, and the body
// reader over every shape a provider has used.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  classifyProviderError,
  looksLikeContextOverflow,
  looksLikeServerMisconfiguration,
  MAX_RETRY_AFTER_MS,
  readProviderError,
  retryHintInText,
} from '../../src/model/provider-error.js';
import { fixtureBodyText, loadErrorFixtures } from './provider-error-server.js';

describe('classifyProviderError over the corpus', () => {
  for (const { name, fixture } of loadErrorFixtures()) {
    it(`${name}: ${fixture.status} → ${fixture.expect.code}${fixture.expect.retryable ? ', retryable' : ''}`, () => {
      const headers = new Headers(fixture.headers ?? {});
      // As received on the wire, and as a body the SDK already parsed: the same answer either way.
      for (const body of [fixtureBodyText(fixture), fixture.body]) {
        const result = classifyProviderError({ status: fixture.status, body, headers });
        assert.equal(result.code, fixture.expect.code, result.message);
        assert.equal(result.retryable, fixture.expect.retryable, result.message);
        assert.ok(result.message.includes(fixture.expect.messageIncludes), result.message);
        if (fixture.expect.retryAfterMs !== undefined) assert.equal(result.retryAfterMs, fixture.expect.retryAfterMs);
      }
    });
  }
});

describe('readProviderError', () => {
  it('takes an HTML page by its title, else its first line of text', () => {
    assert.equal(
      readProviderError('<html><head><title>503 Service Temporarily Unavailable</title></head><body>x</body></html>').message,
      '503 Service Temporarily Unavailable',
    );
    assert.equal(
      readProviderError('<!DOCTYPE html>\n<html><body>\n<h1>Gateway Timeout</h1><p>later</p></body></html>').message,
      'Gateway Timeout',
    );
  });

  it('takes the first line of a plain-text body, and keeps a message field whole', () => {
    assert.equal(readProviderError('upstream connect error\nreset reason: overflow').message, 'upstream connect error');
    assert.equal(readProviderError({ error: { message: 'first\nsecond' } }).message, 'first second');
  });

  it('finds the message in a JSON body cut off by the size bound', () => {
    assert.equal(
      readProviderError('{"error":{"message":"The input token count (5) exceeds the maximum","details":[{"x":"aaaa').message,
      'The input token count (5) exceeds the maximum',
    );
  });

  it('reads FastAPI detail strings and lists', () => {
    assert.equal(readProviderError({ detail: 'Not authenticated' }).message, 'Not authenticated');
    assert.equal(
      readProviderError({ detail: [{ loc: ['body', 'messages', 0], msg: 'field required', type: 'missing' }] }).message,
      'body.messages.0: field required',
    );
  });

  it('reads a body whose message is itself a JSON body', () => {
    assert.equal(
      readProviderError({
        error: {
          message: '{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}',
          code: 429,
        },
      }).message,
      'Resource has been exhausted (e.g. check quota).',
    );
  });

  it('collects labels for classification: codes, types, statuses and reasons', () => {
    const details = readProviderError({
      type: 'error',
      error: { type: 'rate_limit_error', message: 'x', details: { error_code: 'enforced_spend_limit_reached' } },
    });
    assert.ok(details.labels.includes('rate_limit_error'));
    assert.ok(details.labels.includes('enforced_spend_limit_reached'));
  });

  it('caps a runaway message and says when there is none', () => {
    assert.ok(readProviderError({ error: { message: 'y'.repeat(50_000) } }).message.length <= 1001);
    assert.equal(readProviderError('').message, '');
    assert.equal(readProviderError({ ok: false }).message, '');
    assert.equal(readProviderError(null).message, '');
  });
});

describe('recognition edge cases', () => {
  it('does not take a rate limit worded in tokens for an overflow', () => {
    const throttled = classifyProviderError({
      status: 429,
      body: { message: 'ThrottlingException: Too many tokens, please wait before trying again.' },
    });
    assert.equal(throttled.code, 'RATE_LIMITED');
    assert.equal(throttled.retryable, true);
    const fits = classifyProviderError({
      status: 429,
      body: { error: { message: 'Request too large for gpt-4o on tokens per min (TPM): Limit 30000, Requested 2000.' } },
    });
    assert.equal(fits.code, 'RATE_LIMITED');
  });

  it('keeps output-limit complaints as bad requests, not overflows', () => {
    assert.equal(looksLikeContextOverflow('max_tokens is too large: 100000. This model supports at most 4096 completion tokens'), false);
    assert.equal(
      classifyProviderError({ status: 400, body: { error: { message: 'max_tokens is too large: 100000.' } } }).code,
      'BAD_REQUEST',
    );
  });

  it('tells a server-flag complaint from other text with dashes', () => {
    assert.equal(looksLikeServerMisconfiguration('tools param requires --jinja flag'), true);
    assert.equal(looksLikeServerMisconfiguration('This server does not support embeddings. Start it with `--embeddings`'), true);
    assert.equal(looksLikeServerMisconfiguration('Invalid value -- expected a string'), false);
    assert.equal(looksLikeServerMisconfiguration('model gpt-4o--mini not found'), false);
  });

  it('reads waits written in messages', () => {
    assert.equal(retryHintInText('Please retry after 9 seconds.'), 9000);
    assert.equal(retryHintInText('Please retry in 17.30897372s.'), 17309);
    assert.equal(retryHintInText('Please try again in 20s. Visit https://platform.openai.com'), 20000);
    assert.equal(retryHintInText('Please try again in 250ms.'), 250);
    assert.equal(retryHintInText('server busy, please try again.'), null);
  });

  it('lets a Retry-After header win over a wait in the text, and stops retrying past the cap', () => {
    const header = classifyProviderError({
      status: 429,
      body: 'Please retry after 9 seconds',
      headers: new Headers({ 'retry-after': '2' }),
    });
    assert.equal(header.retryAfterMs, 2000);
    const tooLong = classifyProviderError({
      status: 503,
      body: 'maintenance',
      headers: new Headers({ 'retry-after': String(MAX_RETRY_AFTER_MS / 1000 + 1) }),
    });
    assert.equal(tooLong.retryable, false);
    assert.equal(tooLong.requestedWaitMs, MAX_RETRY_AFTER_MS + 1000);
    assert.equal(tooLong.retryAfterMs, MAX_RETRY_AFTER_MS);
  });

  it('never retries 400/401/403/404/422 or a permanent cause, even when the provider says to', () => {
    for (const status of [400, 401, 403, 404, 422]) {
      assert.equal(
        classifyProviderError({ status, body: 'x', headers: new Headers({ 'x-should-retry': 'true' }) }).retryable,
        false,
        String(status),
      );
    }
    const quota = classifyProviderError({
      status: 429,
      body: { error: { type: 'insufficient_quota', message: 'x' } },
      headers: new Headers({ 'x-should-retry': 'true' }),
    });
    assert.equal(quota.code, 'QUOTA_EXCEEDED');
    assert.equal(quota.retryable, false);
    assert.equal(classifyProviderError({ status: 503, body: 'x', headers: new Headers({ 'x-should-retry': 'false' }) }).retryable, false);
  });

  it('maps the spend caps OpenAI and Anthropic document to QUOTA_EXCEEDED', () => {
    // https://developers.openai.com/api/docs/guides/spend-limits (429 with these codes);
    // https://platform.claude.com/docs/en/api/errors (429 rate_limit_error with details.error_code).
    for (const code of ['organization_spend_limit_exceeded', 'project_spend_limit_exceeded']) {
      assert.equal(classifyProviderError({ status: 429, body: { error: { message: 'limit', code } } }).code, 'QUOTA_EXCEEDED');
    }
    const anthropic = {
      type: 'error',
      error: { type: 'rate_limit_error', message: 'limit', details: { error_code: 'enforced_spend_limit_reached' } },
    };
    assert.equal(classifyProviderError({ status: 429, body: anthropic }).code, 'QUOTA_EXCEEDED');
  });

  it('reports a 413 as an overflow and a 501 as not retryable', () => {
    assert.equal(classifyProviderError({ status: 413, body: 'Request Entity Too Large' }).code, 'CONTEXT_OVERFLOW');
    const notImplemented = classifyProviderError({ status: 501, body: 'Not Implemented' });
    assert.equal(notImplemented.code, 'SERVER_ERROR');
    assert.equal(notImplemented.retryable, false);
  });
});
