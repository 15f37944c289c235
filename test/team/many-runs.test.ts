// Issue 29's "50 concurrent runs complete", in process: two servers that are also workers (8 runs
// each at once) on one throwaway cluster, the scripted provider answering by prompt. 50 runs
// queued through both servers at once all succeed, each in a session of its own that holds its
// prompt and its answer once, and GET /api/runs pages through all of them.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { PgSessionStore } from '../../src/sessions/index.js';
import type { CapturedRequest } from '../../src/testing/index.js';
import { startPgCluster } from '../helpers/pg-cluster.js';
import { eventsOf, readFrames, startHarness } from '../server/server-harness.js';

const RUNS = 50;

function promptOf(request: CapturedRequest): string {
  const messages = (request.body.messages ?? []) as Array<{ role: string; content: unknown }>;
  const user = messages.find((message) => message.role === 'user');
  return typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content ?? '');
}

test(`${RUNS} runs queued at once through two servers all complete`, { timeout: 120_000 }, async (t) => {
  const cluster = await startPgCluster(t);
  if (cluster === null) return;
  const url = await cluster.newDatabase();
  const servers: Array<{ name: string; harness: Awaited<ReturnType<typeof startHarness>> }> = [];
  for (const name of ['a', 'b']) {
    // The store migrates the schema; the first one does it before the second opens.
    const store = await PgSessionStore.open(url, { leaseMs: 2000 });
    const harness = await startHarness({
      whenExhausted: (request) => ({ text: `answer to ${promptOf(request)}` }),
      settings: { store, team: { databaseUrl: url, leaseMs: 2000, Pool: pg.Pool, Client: pg.Client } },
    });
    t.after(async () => {
      await harness.close();
      await store.close();
    });
    servers.push({ name, harness });
  }

  const prompts = Array.from({ length: RUNS }, (_, index) => `run number ${index}`);
  const ends = await Promise.all(
    prompts.map(async (prompt, index) => {
      const { harness } = servers[index % 2]!;
      const response = await harness.post('/api/runs', { prompt });
      assert.equal(response.status, 200, await response.clone().text());
      const events = eventsOf(await readFrames(response));
      const started = events.find((entry) => entry.type === 'run_started')!;
      return { prompt, end: events.at(-1)!, sessionId: String(started.event.sessionId) };
    }),
  );
  assert.deepEqual(
    ends.map(({ end }) => end.type),
    prompts.map(() => 'run_succeeded'),
  );
  assert.deepEqual(
    ends.map(({ end }) => end.event.answer),
    prompts.map((prompt) => `answer to ${prompt}`),
  );
  assert.equal(new Set(ends.map(({ sessionId }) => sessionId)).size, RUNS);

  // GET /api/runs pages through every run of the deployment, newest first, each once, from either server.
  type Listed = { runs: Array<{ runId: string; startedAt: string; sessionId: string }>; nextCursor: string | null };
  const listed: Listed['runs'] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const { harness } = servers[pages % 2]!;
    const response = await harness.api(`/api/runs?limit=7${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
    assert.equal(response.status, 200, await response.clone().text());
    const page = (await response.json()) as Listed;
    assert.ok(page.runs.length === 7 || page.nextCursor === null, 'only the last page is short');
    listed.push(...page.runs);
    cursor = page.nextCursor;
    pages += 1;
  } while (cursor !== null);
  assert.equal(pages, Math.ceil(RUNS / 7));
  assert.deepEqual(new Set(listed.map((run) => run.sessionId)), new Set(ends.map(({ sessionId }) => sessionId)));
  assert.equal(new Set(listed.map((run) => run.runId)).size, RUNS);
  const startedAt = listed.map((run) => run.startedAt);
  assert.deepEqual(startedAt, [...startedAt].sort().reverse(), 'newest first');
  const whole = (await (await servers[0]!.harness.api('/api/runs')).json()) as Listed;
  assert.deepEqual([whole.runs.length, whole.nextCursor], [RUNS, null], 'the default page (100) holds them all');
  assert.equal((await servers[1]!.harness.api('/api/runs?limit=1001')).status, 400);
  const unknown = await servers[1]!.harness.api('/api/runs?cursor=00000000-0000-4000-8000-000000000000');
  assert.equal(unknown.status, 400);
  assert.match(await unknown.text(), /invalid runs cursor/);
  // What PostgreSQL cannot even compare with a text column (a NUL, a lone surrogate) is the
  // client's mistake too, not a server error.
  for (const cursor of ['%00', '%ED%A0%80', 'a%00b']) {
    const odd = await servers[1]!.harness.api(`/api/runs?cursor=${cursor}`);
    assert.equal(odd.status, 400, `cursor ${cursor}`);
  }

  const store = await PgSessionStore.open(url);
  t.after(() => store.close());
  for (const { prompt, sessionId } of ends) {
    const { records } = await store.read(sessionId);
    assert.equal(records.filter((record) => record.type === 'turn_started').length, 1, sessionId);
    assert.equal(records.filter((record) => record.type === 'turn_completed').length, 1, sessionId);
    const items = records.filter((record) => record.type === 'response_item').map((record) => JSON.stringify(record.item));
    assert.equal(items.filter((item) => item.includes(`"${prompt}"`)).length, 1, `${sessionId}: ${items.join('\n')}`);
    assert.equal(items.filter((item) => item.includes(`answer to ${prompt}"`)).length, 1, `${sessionId}: ${items.join('\n')}`);
  }
});
