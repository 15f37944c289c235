import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import {
  looksLikeContextOverflow,
  mapSdkError,
  mapStreamError,
  MAX_RETRY_AFTER_MS,
  parseRetryAfter,
} from '../../src/model/map-sdk-error.js';

const context = { baseURL: 'http://127.0.0.1:9/v1' };

function httpError(status: number, message: string, code: string | null = null, headers: Record<string, string> = {}): APIError {
  return APIError.generate(status, { error: { message, type: 'x', code, param: null } }, undefined, new Headers(headers));
}

describe('parseRetryAfter', () => {
  const now = Date.parse('2030-01-01T00:00:00Z');
  it('reads seconds, HTTP dates and retry-after-ms, preferring the millisecond header', () => {
    assert.equal(parseRetryAfter(new Headers({ 'retry-after': '2' }), now), 2000);
    assert.equal(parseRetryAfter(new Headers({ 'retry-after': '0.5' }), now), 500);
    assert.equal(parseRetryAfter(new Headers({ 'retry-after': 'Tue, 01 Jan 2030 00:00:03 GMT' }), now), 3000);
    assert.equal(parseRetryAfter(new Headers({ 'retry-after': '5', 'retry-after-ms': '150' }), now), 150);
  });

  it('caps long waits, clamps past dates to zero and ignores garbage', () => {
    assert.equal(parseRetryAfter(new Headers({ 'retry-after': '3600' }), now), MAX_RETRY_AFTER_MS);
    assert.equal(parseRetryAfter(new Headers({ 'retry-after': 'Mon, 31 Dec 2029 23:00:00 GMT' }), now), 0);
    assert.equal(parseRetryAfter(new Headers({ 'retry-after': 'soon' }), now), null);
    assert.equal(parseRetryAfter(new Headers({ 'retry-after': '-1' }), now), null);
    assert.equal(parseRetryAfter(new Headers(), now), null);
    assert.equal(parseRetryAfter(undefined, now), null);
  });
});

describe('mapSdkError', () => {
  const cases: Array<[APIError, string, boolean]> = [
    [httpError(401, 'Incorrect API key provided.'), 'AUTH_FAILED', false],
    [httpError(403, 'Forbidden'), 'AUTH_FAILED', false],
    [httpError(404, 'The model does not exist'), 'NOT_FOUND', false],
    [httpError(400, 'Invalid value for tools'), 'BAD_REQUEST', false],
    [httpError(422, 'Unprocessable'), 'BAD_REQUEST', false],
    [httpError(400, 'too long', 'context_length_exceeded'), 'CONTEXT_OVERFLOW', false],
    [httpError(400, "This model's maximum context length is 8192 tokens."), 'CONTEXT_OVERFLOW', false],
    [httpError(400, 'prompt is too long: 210000 tokens > 200000 maximum'), 'CONTEXT_OVERFLOW', false],
    [httpError(400, 'Your input exceeds the context window of this model.'), 'CONTEXT_OVERFLOW', false],
    [httpError(429, 'Slow down'), 'RATE_LIMITED', true],
    [httpError(500, 'boom'), 'SERVER_ERROR', true],
    [httpError(503, 'overloaded'), 'SERVER_ERROR', true],
    [httpError(408, 'timeout'), 'CONNECTION_FAILED', true],
    [httpError(409, 'lock'), 'SERVER_ERROR', true],
  ];
  for (const [error, code, retryable] of cases) {
    it(`maps ${error.status} "${error.message}" to ${code}`, () => {
      const mapped = mapSdkError(error, context);
      assert.equal(mapped.code, code);
      assert.equal(mapped.retryable, retryable);
      assert.equal(mapped.status, error.status);
      assert.equal(mapped.cause, error);
    });
  }

  it('names the fix in auth and not-found messages', () => {
    assert.match(mapSdkError(httpError(401, 'bad key'), context).message, /bad key.*OPENAI_API_KEY/);
    assert.match(mapSdkError(httpError(404, 'nope'), context).message, /--base-url/);
  });

  it('carries Retry-After and obeys x-should-retry, except that no header makes a permanent error retryable', () => {
    const limited = mapSdkError(httpError(429, 'wait', null, { 'retry-after': '3' }), context);
    assert.equal(limited.retryAfterMs, 3000);
    assert.equal(mapSdkError(httpError(500, 'x', null, { 'x-should-retry': 'false' }), context).retryable, false);
    assert.equal(mapSdkError(httpError(501, 'x'), context).retryable, false);
    assert.equal(mapSdkError(httpError(501, 'x', null, { 'x-should-retry': 'true' }), context).retryable, true);
    for (const status of [400, 401, 403, 404, 422]) {
      assert.equal(mapSdkError(httpError(status, 'x', null, { 'x-should-retry': 'true' }), context).retryable, false, String(status));
    }
  });

  it('does not retry when the provider asks to wait longer than a retry ever waits', () => {
    const mapped = mapSdkError(httpError(429, 'come back tomorrow', null, { 'retry-after': '86400' }), context);
    assert.equal(mapped.code, 'RATE_LIMITED');
    assert.equal(mapped.retryable, false);
    assert.match(mapped.message, /come back tomorrow.*asked to wait 86400 s/);
  });

  it('maps a 500 that names a server flag to PROVIDER_MISCONFIGURED, not retried', () => {
    const mapped = mapSdkError(httpError(500, 'tools param requires --jinja flag'), context);
    assert.equal(mapped.code, 'PROVIDER_MISCONFIGURED');
    assert.equal(mapped.retryable, false);
    assert.match(mapped.message, /--jinja.*configuration/);
  });

  it('maps an overflow reported inside a stream, and a misconfiguration there, to their own codes', () => {
    const overflow = new APIError(
      undefined,
      { message: 'the request exceeds the available context size, try increasing it', code: 400 },
      undefined,
      undefined,
    );
    assert.equal(mapSdkError(overflow, context).code, 'CONTEXT_OVERFLOW');
    const jinja = new APIError(
      undefined,
      { code: 500, message: 'tools param requires --jinja flag', type: 'server_error' },
      undefined,
      undefined,
    );
    assert.equal(mapSdkError(jinja, context).code, 'PROVIDER_MISCONFIGURED');
    const openRouter = new APIError(
      undefined,
      {
        message: 'Provider returned error',
        code: 400,
        metadata: { raw: '{"error":{"message":"This model\'s maximum context length is 8192 tokens."}}', provider_name: 'X' },
      },
      undefined,
      undefined,
    );
    const mapped = mapSdkError(openRouter, context);
    assert.equal(mapped.code, 'CONTEXT_OVERFLOW');
    assert.match(mapped.message, /Provider returned error \(X\): This model's maximum context length is 8192 tokens/);
  });

  it('maps connection problems, timeouts and aborts', () => {
    const refused = mapSdkError(
      new APIConnectionError({ cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) }),
      context,
    );
    assert.equal(refused.code, 'CONNECTION_FAILED');
    assert.equal(refused.retryable, true);
    assert.match(refused.message, /ECONNREFUSED.*--base-url/);
    assert.equal(mapSdkError(new APIConnectionTimeoutError(), context).code, 'CONNECTION_FAILED');
    assert.equal(mapSdkError(new APIUserAbortError(), context).code, 'ABORTED');
    const controller = new AbortController();
    controller.abort();
    // Whatever the SDK threw, a cancelled caller hears ABORTED.
    assert.equal(mapSdkError(httpError(500, 'x'), { ...context, signal: controller.signal }).code, 'ABORTED');
  });

  it('maps an error object inside a stream to RESPONSE_FAILED with the provider message', () => {
    const inStream = new APIError(undefined, { message: 'The server had an error', code: 'server_error' }, undefined, undefined);
    const mapped = mapSdkError(inStream, context);
    assert.equal(mapped.code, 'RESPONSE_FAILED');
    assert.match(mapped.message, /The server had an error/);
  });
});

describe('mapStreamError', () => {
  it('distinguishes a broken stream before and after the first yielded event', () => {
    const cut = new TypeError('terminated', { cause: new Error('other side closed') });
    const early = mapStreamError(cut, context, false);
    const late = mapStreamError(cut, context, true);
    assert.equal(early.code, 'STREAM_INTERRUPTED');
    assert.equal(early.retryable, true);
    assert.equal(late.code, 'STREAM_INTERRUPTED');
    assert.equal(late.retryable, false);
    assert.equal(late.cause, cut);
    assert.match(late.message, /other side closed/);
  });

  it('reports invalid JSON as MALFORMED_STREAM', () => {
    let syntaxError: unknown;
    try {
      JSON.parse('{"this is not": json');
    } catch (error) {
      syntaxError = error;
    }
    assert.equal(mapStreamError(syntaxError, context, true).code, 'MALFORMED_STREAM');
  });
});

describe('looksLikeContextOverflow', () => {
  it('does not flag ordinary bad requests', () => {
    assert.equal(looksLikeContextOverflow("Invalid type for 'messages[0].content'"), false);
    assert.equal(looksLikeContextOverflow('max_tokens is too large: 100000. This model supports at most 4096 completion tokens'), false);
    assert.equal(looksLikeContextOverflow('Requested too many tokens for this model'), true);
  });
});
