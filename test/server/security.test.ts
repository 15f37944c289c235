import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { hostAllowed } from '../../src/server/index.js';
import { rawRequest, startHarness, TEST_TOKEN, type Harness } from './server-harness.js';

describe('server security', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h.close();
  });

  test('API calls without a token get 401 JSON; a wrong Bearer too', async () => {
    const none = await fetch(`${h.origin}/api/health`);
    assert.equal(none.status, 401);
    const body = (await none.json()) as { error: string };
    assert.match(body.error, /token/);
    const wrong = await fetch(`${h.origin}/api/health`, { headers: { authorization: 'Bearer not-the-token-at-all' } });
    assert.equal(wrong.status, 401);
    const wrongCookie = await fetch(`${h.origin}/api/sessions`, { headers: { cookie: 'glassbox_token=nope' } });
    assert.equal(wrongCookie.status, 401);
  });

  test('Bearer token works', async () => {
    const response = await fetch(`${h.origin}/api/health`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
    assert.equal(response.status, 200);
    const body = (await response.json()) as Record<string, unknown>;
    assert.equal(body.ok, true);
    assert.equal(body.model, 'test-model');
    assert.equal(body.wireApi, 'chat');
    assert.equal(body.demo, false);
    assert.equal(body.root, h.root);
  });

  test('/?token= sets an HttpOnly SameSite=Strict cookie and redirects to /; the cookie then works', async () => {
    assert.equal(h.url, `${h.origin}/?token=${TEST_TOKEN}`);
    const response = await fetch(h.url, { redirect: 'manual' });
    assert.equal(response.status, 302);
    assert.equal(response.headers.get('location'), '/');
    const cookie = response.headers.get('set-cookie') ?? '';
    assert.match(cookie, /^glassbox_token=/);
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Strict/);
    assert.match(cookie, /Path=\//);
    const pair = cookie.split(';')[0]!;
    const withCookie = await fetch(`${h.origin}/api/health`, { headers: { cookie: pair } });
    assert.equal(withCookie.status, 200);
    // A wrong token in the URL sets nothing.
    const wrong = await fetch(`${h.origin}/?token=wrong-token-value-123456`, { redirect: 'manual' });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.headers.get('set-cookie'), null);
  });

  test('a foreign Host header is refused with 403, even with the token', async () => {
    const evil = await rawRequest(h.port, {
      path: '/api/health',
      headers: { host: `evil.example:${h.port}`, authorization: `Bearer ${TEST_TOKEN}` },
    });
    assert.equal(evil.status, 403);
    assert.match(JSON.parse(evil.body).error, /Host/);
    const wrongPort = await rawRequest(h.port, {
      path: '/api/health',
      headers: { host: `127.0.0.1:${h.port + 1}`, authorization: `Bearer ${TEST_TOKEN}` },
    });
    assert.equal(wrongPort.status, 403);
    const page = await rawRequest(h.port, { path: '/', headers: { host: 'rebound.example' } });
    assert.equal(page.status, 403);
    const localhost = await rawRequest(h.port, {
      path: '/api/health',
      headers: { host: `localhost:${h.port}`, authorization: `Bearer ${TEST_TOKEN}` },
    });
    assert.equal(localhost.status, 200);
  });

  test('a foreign Origin is refused with 403; the server’s own origin is fine', async () => {
    const foreign = await h.post('/api/runs', { prompt: 'hi' }, { origin: 'http://evil.example' });
    assert.equal(foreign.status, 403);
    const nullOrigin = await h.api('/api/health', { headers: { origin: 'null' } });
    assert.equal(nullOrigin.status, 403);
    const own = await h.api('/api/health', { headers: { origin: h.origin } });
    assert.equal(own.status, 200);
  });

  test('non-JSON bodies get 415', async () => {
    const text = await h.api('/api/runs', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"prompt":"hi"}' });
    assert.equal(text.status, 415);
    const form = await h.api('/api/sessions/01a2293c-35a7-7273-a315-931e21774c91/fork', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'atTurn=1',
    });
    assert.equal(form.status, 415);
    const missing = await h.api('/api/runs/00000000-0000-4000-8000-000000000000/cancel', { method: 'POST' });
    assert.equal(missing.status, 415);
  });

  test('bodies over 1 MiB get 413, with or without Content-Length', async () => {
    const big = JSON.stringify({ prompt: 'x'.repeat(1024 * 1024 + 10) });
    const declared = await rawRequest(h.port, {
      method: 'POST',
      path: '/api/runs',
      headers: {
        host: `127.0.0.1:${h.port}`,
        authorization: `Bearer ${TEST_TOKEN}`,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(big)),
      },
      body: big,
    });
    assert.equal(declared.status, 413);
    const chunked = await rawRequest(h.port, {
      method: 'POST',
      path: '/api/runs',
      headers: { host: `127.0.0.1:${h.port}`, authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json' },
      body: big,
      chunked: true,
    });
    assert.equal(chunked.status, 413);
    assert.equal(h.provider.requests.length, 0);
  });

  test('validation errors are 400 with fieldErrors', async () => {
    const response = await h.post('/api/runs', { prompt: 42, sandbox: 'everything', extra: true });
    assert.equal(response.status, 400);
    const body = (await response.json()) as { error: string; fieldErrors: Record<string, string[]> };
    assert.ok(body.fieldErrors.prompt?.length, JSON.stringify(body));
    assert.ok(body.fieldErrors.sandbox?.length, JSON.stringify(body));
    assert.deepEqual(body.fieldErrors.extra, ['unknown field']);
    const empty = await h.post('/api/runs', { prompt: '   ' });
    assert.equal(empty.status, 400);
    const badJson = await h.api('/api/runs', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"prompt":' });
    assert.equal(badJson.status, 400);
    assert.match(((await badJson.json()) as { error: string }).error, /not valid JSON/);
    const badSession = await h.post('/api/runs', { prompt: 'hi', sessionId: '../../etc/passwd' });
    assert.equal(badSession.status, 400);
    const badLimit = await h.api('/api/sessions?limit=0');
    assert.equal(badLimit.status, 400);
    assert.ok(((await badLimit.json()) as { fieldErrors: Record<string, string[]> }).fieldErrors.limit);
    const compactAt = await h.post('/api/runs', { prompt: 'hi', compactAt: '150%' });
    assert.equal(compactAt.status, 400);
    assert.ok(((await compactAt.json()) as { fieldErrors: Record<string, string[]> }).fieldErrors.compactAt);
  });

  test('asking for more than the caps is 403; the caps and defaults are published', async () => {
    const sandbox = await h.post('/api/runs', { prompt: 'hi', sandbox: 'danger-full-access' });
    assert.equal(sandbox.status, 403);
    assert.match(((await sandbox.json()) as { error: string }).error, /at most workspace-write/);
    const policy = await h.post('/api/runs', { prompt: 'hi', approvalPolicy: 'never' });
    assert.equal(policy.status, 403);
    assert.equal(h.provider.requests.length, 0);
    const models = (await (await h.api('/api/models')).json()) as Record<string, unknown>;
    assert.deepEqual(models.caps, { sandbox: 'workspace-write', approvalPolicy: 'on-request' });
    assert.deepEqual(models.defaults, { model: 'test-model', wireApi: 'chat', sandbox: 'read-only', approvalPolicy: 'on-request' });
    assert.deepEqual(models.models, [{ id: 'test-model', contextWindow: 128000, maxOutputTokens: 16384 }]);
  });

  test('unknown API routes are 404 JSON', async () => {
    const response = await h.api('/api/nothing-here');
    assert.equal(response.status, 404);
    assert.ok(((await response.json()) as { error: string }).error);
  });
});

describe('workbench files', () => {
  test('without a build, / explains how to build; with one, index.html and assets are served with their types', async () => {
    const h = await startHarness();
    try {
      const missing = await fetch(`${h.origin}/`);
      assert.equal(missing.status, 200);
      assert.match(missing.headers.get('content-type') ?? '', /text\/html/);
      assert.match(await missing.text(), /workbench not built: run <code>npm run build/i);
      assert.equal(missing.headers.get('x-frame-options'), 'DENY');

      const web = join(h.root, '..', 'web');
      await mkdir(join(web, 'assets', 'nested'), { recursive: true });
      await writeFile(join(web, 'index.html'), '<!doctype html><title>Workbench</title><script src="/assets/app.js"></script>');
      await writeFile(join(web, 'assets', 'app.js'), 'console.log(1);');
      await writeFile(join(web, 'assets', 'style.css'), 'body{}');
      await writeFile(join(web, 'assets', 'nested', 'logo.svg'), '<svg/>');
      await writeFile(join(h.root, '..', 'secret.txt'), 'top secret');

      const index = await fetch(`${h.origin}/`);
      assert.equal(await index.text(), '<!doctype html><title>Workbench</title><script src="/assets/app.js"></script>');
      assert.match(index.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
      const clientRoute = await fetch(`${h.origin}/sessions/abc`);
      assert.match(await clientRoute.text(), /<title>Workbench/);
      const js = await fetch(`${h.origin}/assets/app.js`);
      assert.equal(js.status, 200);
      assert.match(js.headers.get('content-type') ?? '', /^text\/javascript/);
      assert.equal(await js.text(), 'console.log(1);');
      assert.match((await fetch(`${h.origin}/assets/style.css`)).headers.get('content-type') ?? '', /^text\/css/);
      assert.equal((await fetch(`${h.origin}/assets/nested/logo.svg`)).headers.get('content-type'), 'image/svg+xml');
      assert.equal((await fetch(`${h.origin}/assets/missing.js`)).status, 404);
      for (const path of [
        '/assets/..%2f..%2fsecret.txt',
        '/assets/%2e%2e/%2e%2e/secret.txt',
        '/assets/..%5c..%5csecret.txt',
        '/assets/%00',
        '/assets/%zz',
      ]) {
        const response = await rawRequest(h.port, { path, headers: { host: `127.0.0.1:${h.port}` } });
        assert.equal(response.status, 404, path);
        assert.doesNotMatch(response.body, /top secret/);
      }
    } finally {
      await h.close();
    }
  });
});

describe('hostAllowed', () => {
  test('loopback, wildcard and named bindings', () => {
    assert.equal(hostAllowed('127.0.0.1:4100', { bindHost: '127.0.0.1' }, 4100), true);
    assert.equal(hostAllowed('localhost:4100', { bindHost: '127.0.0.1' }, 4100), true);
    assert.equal(hostAllowed('[::1]:4100', { bindHost: '127.0.0.1' }, 4100), true);
    assert.equal(hostAllowed('evil.example:4100', { bindHost: '127.0.0.1' }, 4100), false);
    assert.equal(hostAllowed('127.0.0.1:4101', { bindHost: '127.0.0.1' }, 4100), false);
    assert.equal(hostAllowed(undefined, { bindHost: '127.0.0.1' }, 4100), false);
    assert.equal(hostAllowed('127.0.0.1', { bindHost: '127.0.0.1' }, 80), true);
    assert.equal(hostAllowed('192.168.1.9:4100', { bindHost: '0.0.0.0' }, 4100), true);
    assert.equal(hostAllowed('rebind.example:4100', { bindHost: '0.0.0.0' }, 4100), false);
    assert.equal(hostAllowed('box.lan:4100', { bindHost: 'box.lan' }, 4100), true);
    assert.equal(hostAllowed('other.lan:4100', { bindHost: 'box.lan' }, 4100), false);
    assert.equal(hostAllowed('127.0.0.1:4100', { bindHost: '127.0.0.1' }, null), false);
  });
});
