// Routes added for the workbench: hashed assets compressed and cached for good, a model call's
// payload on demand (a summary call's prompt rebuilt), the list without payloads and with a
// search, session export, per-session status and price in the list, and the session a pending
// approval belongs to.

import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { readFrames, startHarness, type Harness } from './server-harness.js';

describe('workbench routes', () => {
  let h: Harness;
  let sessionId: string;

  before(async () => {
    h = await startHarness({
      files: { 'README.md': '# Sample\nneedle here\n' },
      script: [
        {
          text: 'Looking.',
          toolCalls: [{ name: 'grep', arguments: { pattern: 'needle' } }],
          usage: { input: 1000, output: 20, cached: 600 },
        },
        { text: 'Found the needle.', usage: { input: 1200, output: 10, cached: 1000 } },
      ],
    });
    const web = join(h.root, '..', 'web', 'assets');
    await mkdir(web, { recursive: true });
    await writeFile(join(web, 'index-AbCd1234.js'), `console.log(${JSON.stringify('x'.repeat(5000))});\n`);
    await writeFile(join(web, 'plain.css'), 'body{}');
    await mkdir(h.home, { recursive: true });
    await writeFile(
      join(h.home, 'config.json'),
      JSON.stringify({ models: { 'test-model': { pricing: { inputPerMillion: 2, cachedInputPerMillion: 0.5, outputPerMillion: 8 } } } }),
    );
    const response = await h.post('/api/runs', { prompt: 'Find the needle' });
    const frames = await readFrames(response);
    sessionId = JSON.parse(frames[0]!.data).sessionId as string;
  });
  after(() => h.close());

  test('hashed assets: gzip when accepted, cached as immutable; others revalidate', async () => {
    const gz = await fetch(`${h.origin}/assets/index-AbCd1234.js`, { headers: { 'accept-encoding': 'gzip' } });
    assert.equal(gz.status, 200);
    assert.equal(gz.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(gz.headers.get('vary'), 'accept-encoding');
    // fetch decodes gzip itself; the header says it was sent compressed.
    assert.equal(gz.headers.get('content-encoding'), 'gzip');
    assert.match(await gz.text(), /^console\.log/);
    const raw = await fetch(`${h.origin}/assets/index-AbCd1234.js`, { headers: { 'accept-encoding': 'identity' } });
    assert.equal(raw.headers.get('content-encoding'), null);
    const refused = await fetch(`${h.origin}/assets/index-AbCd1234.js`, { headers: { 'accept-encoding': 'gzip;q=0' } });
    assert.equal(refused.headers.get('content-encoding'), null);
    const plain = await fetch(`${h.origin}/assets/plain.css`);
    assert.equal(plain.headers.get('cache-control'), 'no-cache');
  });

  test('model calls: priced, without payloads on request, searchable, one call in full', async () => {
    const light = (await (await h.api(`/api/sessions/${sessionId}/model-calls?payloads=none`)).json()) as {
      calls: Array<{
        index: number;
        request: unknown;
        costUsd: number;
        priceKnown: boolean;
        carriedOutputs: Array<{ callId: string }>;
        response: { toolCalls: Array<{ callId: string }> };
      }>;
      total: number;
    };
    assert.equal(light.total, 2);
    assert.ok(light.calls.every((call) => call.request === null && call.priceKnown));
    // 400 fresh + 600 cached input, 20 output: 400×2 + 600×0.5 + 20×8 per million.
    assert.equal(Number(light.calls[0]!.costUsd.toFixed(9)), (400 * 2 + 600 * 0.5 + 20 * 8) / 1e6);
    assert.deepEqual(
      light.calls[1]!.carriedOutputs.map((output) => output.callId),
      light.calls[0]!.response.toolCalls.map((call) => call.callId),
    );

    const search = (await (await h.api(`/api/sessions/${sessionId}/model-calls?payloads=none&query=FOUND%20THE`)).json()) as {
      calls: Array<{ index: number }>;
    };
    assert.deepEqual(
      search.calls.map((call) => call.index),
      [1],
    );

    const detail = (await (await h.api(`/api/sessions/${sessionId}/model-calls/1`)).json()) as {
      call: { request: { messages: unknown[] }; responseItems: Array<{ type: string }> };
    };
    assert.ok(detail.call.request.messages.length >= 4);
    assert.deepEqual(
      detail.call.responseItems.map((item) => item.type),
      ['message'],
    );
    assert.equal((await h.api(`/api/sessions/${sessionId}/model-calls/9`)).status, 404);
    assert.equal((await h.api(`/api/sessions/${sessionId}/model-calls/x`)).status, 400);
  });

  test('export is the session as JSON lines; the list has status, tokens and price', async () => {
    const exported = await h.api(`/api/sessions/${sessionId}/export`);
    assert.equal(exported.status, 200);
    assert.match(exported.headers.get('content-disposition') ?? '', new RegExp(`${sessionId}\\.jsonl`));
    const lines = (await exported.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string });
    assert.equal(lines[0]!.type, 'session_meta');
    assert.ok(lines.some((record) => record.type === 'turn_completed'));

    // The Export HTML button's file: one page, as `sessions export` writes it; md likewise.
    const html = await h.api(`/api/sessions/${sessionId}/export?format=html`);
    assert.equal(html.status, 200);
    assert.match(html.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(html.headers.get('content-disposition') ?? '', new RegExp(`${sessionId}\\.html`));
    const page = await html.text();
    assert.match(page, /^<!doctype html>/);
    assert.match(page, /default-src 'none'/);
    const md = await h.api(`/api/sessions/${sessionId}/export?format=md`);
    assert.match(await md.text(), /^# Session /);
    assert.equal((await h.api(`/api/sessions/${sessionId}/export?format=pdf`)).status, 400);

    const list = (await (await h.api('/api/sessions')).json()) as {
      stats: Record<string, { status: string; inputTokens: number; cachedInputTokens: number; costUsd: number }>;
    };
    const stats = list.stats[sessionId]!;
    assert.equal(stats.status, 'succeeded');
    assert.equal(stats.inputTokens, 2200);
    assert.equal(stats.cachedInputTokens, 1600);
    assert.ok(stats.costUsd > 0);
  });
});
