// Issue 29's "50 concurrent runs complete", in process: two servers that are also workers (8 runs
// each at once) on one throwaway cluster, the scripted provider answering by prompt. 50 runs
// queued through both servers at once all succeed, each in a session of its own that holds its
// prompt and its answer once.

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
