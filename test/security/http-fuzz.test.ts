// Property-based attacks on every endpoint of `glassbox serve`: random methods, paths, ids (path
// traversal included), bodies (malformed, wrong types, huge), content types, tokens (missing,
// forged, in the wrong place), Host and Origin headers. The server must never answer 5xx or log
// an internal error, must refuse every request that lacks the token or comes from a foreign Host
// or Origin, and a rejected request must not change anything in the Glassbox home.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { createGateway } from '../../src/model/index.js';
import { startFakeProvider } from '../../src/testing/index.js';
import { assertProperty, makeFixture, snapshotChanges, snapshotTree } from './security-harness.js';

const serverExists = existsSync(new URL('../../src/server/index.ts', import.meta.url));
const TOKEN = 'fuzz-token-0123456789abcdefABCDEF';
const API_KEY = 'sk-http-fuzz-key-5a7c9e';
const OUTSIDE_MARKER = 'OUTSIDE-SESSION-MARKER';
const MAX_BODY = 1024 * 1024;

interface RawResponse {
  status: number;
  body: string;
}

/** node:http, because fetch refuses to send a foreign Host header. */
function rawRequest(port: number, method: string, path: string, headers: Record<string, string>, body?: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const sized = body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
    const request = httpRequest({ host: '127.0.0.1', port, method, path, headers: sized, agent: false, setHost: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    // A server may answer 413 and close before the whole body is sent; the answer is what counts.
    request.on('error', (error) => reject(error));
    if (body !== undefined) request.write(body);
    request.end();
  });
}

describe('HTTP API fuzzing', { skip: serverExists ? false : 'src/server/index.ts does not exist yet' }, () => {
  test('random requests: no 5xx, no internal error, every unauthenticated or cross-site call refused, rejected calls write nothing', async () => {
    const { createServer } = await import('../../src/server/index.js');
    const fixture = await makeFixture({ 'README.md': '# fuzz\n' });
    await mkdir(join(fixture.outside, 'sessions'), { recursive: true });
    await writeFile(join(fixture.outside, 'evil.jsonl'), `{"type":"session_created","marker":"${OUTSIDE_MARKER}"}\n`);
    await writeFile(join(fixture.outside, 'sessions', 'evil.jsonl'), `{"marker":"${OUTSIDE_MARKER}"}\n`);
    const provider = await startFakeProvider({ whenExhausted: { text: 'Fuzzed answer.' } });
    const logs: string[] = [];
    const server = createServer({
      root: fixture.root,
      home: fixture.home,
      model: 'fuzz-model',
      wireApi: 'chat',
      gatewayFor: (wireApi) => createGateway({ wireApi, baseURL: provider.baseURL, apiKey: API_KEY, retry: { maxAttempts: 1 } }),
      demo: false,
      caps: { sandbox: 'workspace-write', approvalPolicy: 'on-request' },
      defaults: { sandbox: 'read-only', approvalPolicy: 'on-request' },
      network: false,
      port: 0,
      token: TOKEN,
      webRoot: join(fixture.base, 'web'),
      log: (message) => logs.push(message),
    });
    try {
      const { port } = await server.listen();
      const goodHost = `127.0.0.1:${port}`;
      const auth = { authorization: `Bearer ${TOKEN}`, host: goodHost };
      const seed = await rawRequest(
        port,
        'POST',
        '/api/runs',
        { ...auth, 'content-type': 'application/json' },
        JSON.stringify({ prompt: 'seed' }),
      );
      assert.equal(seed.status, 200, seed.body);
      const sessionId = /"sessionId":"([^"]+)"/.exec(seed.body)?.[1] ?? '';
      const runId = /"runId":"([^"]+)"/.exec(seed.body)?.[1] ?? '';
      assert.ok(sessionId !== '' && runId !== '', 'the seed run reported its ids');

      const id = fc.oneof(
        fc.constantFrom(
          sessionId,
          runId,
          sessionId.slice(0, 8),
          'last',
          '..',
          '.',
          '%2e%2e',
          '..%2F..%2Foutside%2Fevil',
          '..%2F..%2F..%2Foutside%2Fsessions%2Fevil',
          `${'%2e%2e%2f'.repeat(6)}etc%2fpasswd`,
          '%00',
          'evil.jsonl',
          encodeURIComponent(join(fixture.outside, 'evil')),
          'a'.repeat(3_000),
          '%ZZ',
          '%C0%AE%C0%AE',
          encodeURIComponent('\u00e9t\u00e9'),
        ),
        fc.string({ maxLength: 20 }).map(encodeURIComponent),
      );
      const path = fc.oneof(
        fc
          .tuple(
            fc.constantFrom(
              '/api/health',
              '/api/models',
              '/api/runs',
              '/api/runs/{a}/events',
              '/api/runs/{a}/cancel',
              '/api/approvals',
              '/api/approvals/{a}/{b}',
              '/api/sessions',
              '/api/sessions/{a}',
              '/api/sessions/{a}/model-calls',
              '/api/sessions/{a}/context',
              '/api/sessions/{a}/fork',
              '/api/sessions/{a}/compact',
              '/',
              '/assets/{a}',
              '/{a}',
              '/api/{a}',
              '/api',
            ),
            id,
            id,
            fc.option(
              fc.dictionary(
                fc.constantFrom('limit', 'cursor', 'query', 'runId', 'token', 'x'),
                fc.oneof(id, fc.constantFrom('-1', '1e9', '0', TOKEN)),
                { maxKeys: 2 },
              ),
            ),
          )
          .map(([template, a, b, query]) => {
            const search = query === null ? '' : new URLSearchParams(query).toString();
            return `${template.replace('{a}', a).replace('{b}', b)}${search === '' ? '' : `?${search}`}`;
          }),
        fc.constantFrom(
          '//api/health',
          '/api/../api/health',
          '/API/health',
          '/api/health/',
          '/api//sessions',
          '/api/sessions/..%2f..%2f..%2fetc%2fpasswd/context',
        ),
      );
      // Weighted towards well-formed requests, so that many get past the guards and reach the handlers.
      const credentials = fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom('bearer' as const, 'cookie' as const) },
        {
          weight: 4,
          arbitrary: fc.constantFrom(
            'none' as const,
            'wrong-bearer' as const,
            'wrong-cookie' as const,
            'basic' as const,
            'query' as const,
            'bearer-plus-wrong-cookie' as const,
            'prefix' as const,
          ),
        },
      );
      const host = fc.oneof(
        { weight: 7, arbitrary: fc.constantFrom(goodHost, `localhost:${port}`) },
        {
          weight: 2,
          arbitrary: fc.constantFrom(
            'evil.example',
            `evil.example:${port}`,
            `127.0.0.1:${port + 1}`,
            '127.0.0.1',
            '',
            `127.0.0.1:${port}.evil.example`,
          ),
        },
      );
      const origin = fc.oneof(
        { weight: 7, arbitrary: fc.constant<string | null>(null) },
        { weight: 1, arbitrary: fc.constant(`http://${goodHost}`) },
        { weight: 2, arbitrary: fc.constantFrom('http://evil.example', 'null', `https://${goodHost}`, `http://localhost:${port}`) },
      );
      const contentType = fc.oneof(
        { weight: 6, arbitrary: fc.constant<string | null>('application/json') },
        {
          weight: 3,
          arbitrary: fc.constantFrom<string | null>(
            'application/json; charset=utf-8',
            'text/plain',
            null,
            'multipart/form-data; boundary=x',
            'application/x-www-form-urlencoded',
          ),
        },
      );
      const keys = [
        'prompt',
        'sessionId',
        'model',
        'wireApi',
        'sandbox',
        'approvalPolicy',
        'compactAt',
        'decision',
        'message',
        'atTurn',
        'instructions',
        '__proto__',
        'constructor',
      ];
      const value = fc.oneof(
        fc.jsonValue({ maxDepth: 2 }),
        id,
        fc.constantFrom(
          'read-only',
          'workspace-write',
          'danger-full-access',
          'untrusted',
          'on-request',
          'never',
          'chat',
          'responses',
          'approve',
          'deny',
          'approve_session',
          '50%',
          sessionId,
          'last',
        ),
      );
      const body = fc.oneof(
        fc
          .array(fc.tuple(fc.constantFrom(...keys), value), { maxLength: 4 })
          .map((entries) => `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${JSON.stringify(item) ?? 'null'}`).join(',')}}`),
        fc.string({ maxLength: 40 }),
        fc.constantFrom(
          '',
          '{',
          'null',
          '[]',
          '{"prompt":',
          '\u0000',
          '{"a":1}{"b":2}',
          `{"prompt":"${'y'.repeat(MAX_BODY + 10)}"}`,
          JSON.stringify({ prompt: 'hi', sessionId: '../../outside/evil' }),
        ),
      );
      const method = fc.oneof(
        { weight: 8, arbitrary: fc.constantFrom('GET', 'POST') },
        { weight: 2, arbitrary: fc.constantFrom('PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD') },
      );

      const request = fc.record({ method, path, credentials, host, origin, contentType, body: fc.option(body, { freq: 3 }) });

      const statuses = new Map<number, number>();
      await assertProperty(
        fc.asyncProperty(request, async (r) => {
          const headers: Record<string, string> = {};
          if (r.host !== '') headers.host = r.host;
          if (r.origin !== null) headers.origin = r.origin;
          if (r.contentType !== null && r.body !== null) headers['content-type'] = r.contentType;
          let target = r.path;
          switch (r.credentials) {
            case 'bearer':
              headers.authorization = `Bearer ${TOKEN}`;
              break;
            case 'cookie':
              headers.cookie = `glassbox_token=${TOKEN}`;
              break;
            case 'wrong-bearer':
              headers.authorization = `Bearer ${TOKEN}x`;
              break;
            case 'wrong-cookie':
              headers.cookie = `glassbox_token=${TOKEN.toUpperCase()}`;
              break;
            case 'basic':
              headers.authorization = `Basic ${Buffer.from(`user:${TOKEN}`).toString('base64')}`;
              break;
            case 'query':
              target += `${target.includes('?') ? '&' : '?'}token=${TOKEN}`;
              break;
            case 'bearer-plus-wrong-cookie':
              headers.authorization = `Bearer ${TOKEN}`;
              headers.cookie = 'glassbox_token=nope';
              break;
            case 'prefix':
              headers.authorization = `Bearer ${TOKEN.slice(0, -1)}`;
              break;
            case 'none':
              break;
          }
          const homeBefore = await snapshotTree(fixture.home);
          const response = await rawRequest(port, r.method, target, headers, r.body ?? undefined);
          const where = `${r.method} ${target.slice(0, 200)} ${JSON.stringify({ ...headers, body: r.body?.slice(0, 100) })}`;
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);

          assert.ok(response.status >= 200 && response.status < 500, `${where} -> ${response.status} ${response.body.slice(0, 300)}`);
          assert.ok(!response.body.includes(OUTSIDE_MARKER), `${where} read a file outside the home`);
          assert.ok(!response.body.includes(API_KEY), `${where} returned the API key`);
          // The token only ever travels in a Set-Cookie header, never in a body.
          assert.ok(!response.body.includes(TOKEN), `${where} echoed the token`);

          const validHost = r.host === goodHost || r.host === `localhost:${port}`;
          const validOrigin = r.origin === null || r.origin === `http://${r.host}`;
          const validToken = r.credentials === 'bearer' || r.credentials === 'cookie' || r.credentials === 'bearer-plus-wrong-cookie';
          const api = r.path.startsWith('/api/') || r.path === '/api' || r.path.startsWith('//api');
          // 400 when Node's parser already refuses the header (an empty or malformed Host), else 403.
          if (!validHost || !validOrigin)
            assert.ok(
              [400, 403].includes(response.status),
              `${where}: a foreign Host or Origin must be refused, got ${response.status} ${response.body.slice(0, 200)}`,
            );
          else if (api && r.path.startsWith('/api') && !validToken)
            assert.equal(response.status, 401, `${where}: no valid token, got ${response.status} ${response.body.slice(0, 200)}`);
          if (response.status >= 400) {
            assert.deepEqual(
              snapshotChanges(homeBefore, await snapshotTree(fixture.home)),
              [],
              `${where} was rejected but changed the home`,
            );
          }
        }),
        { seed: 4_242, numRuns: 200, endOnFailure: true },
      );

      // Worth something only if many requests got past the guards to the handlers, and some succeeded.
      const handled = [...statuses].filter(([status]) => status !== 401 && status !== 403).reduce((sum, [, count]) => sum + count, 0);
      assert.ok(handled >= 40, `only ${handled} requests reached a handler: ${JSON.stringify([...statuses])}`);
      assert.ok((statuses.get(200) ?? 0) >= 5, `few successes: ${JSON.stringify([...statuses])}`);

      const health = await rawRequest(port, 'GET', '/api/health', auth);
      assert.equal(health.status, 200, 'the server is still healthy');
      assert.deepEqual(
        logs.filter((line) => /internal error/.test(line)),
        [],
        'no internal error was logged',
      );
    } finally {
      await server.close();
      await provider.close();
      await fixture.cleanup();
    }
  });
});
