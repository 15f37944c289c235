// Runs dispatched through PostgreSQL (PgRunQueue) on a throwaway cluster of this file's own:
// concurrent workers never claim one run, a NOTIFY wakes a waiting worker, and a worker killed
// with SIGKILL mid-run loses it to another once its lease expires; the old claim cannot finish it.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { type TestContext, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { PgRunQueue, type ClaimedRun } from '../../src/runner/index.js';
import { buildReady } from '../helpers/build-ready.js';
import { startPgCluster } from '../helpers/pg-cluster.js';
import { withPgClient } from '../sessions/pg-test-access.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const queueModule = new URL('../../dist/runner/pg-run-queue.js', import.meta.url).href;

// Claims one run, says which, and works on it until killed.
const WORKER = `
const { PgRunQueue } = await import(process.env.QUEUE_MODULE);
const queue = await PgRunQueue.open(process.env.DB_URL, { leaseMs: Number(process.env.LEASE_MS) });
await queue.listen();
let run = await queue.claim();
while (run === null) { await queue.waitForWork(); run = await queue.claim(); }
process.stdout.write('claimed ' + run.runId + ' ' + run.attempt + '\\n');
setInterval(() => {}, 1000);
`;

test('PgRunQueue', async (t) => {
  const cluster = await startPgCluster(t);
  if (cluster === null) return;

  await t.test('concurrent workers each claim different runs, every run exactly once', async (sub) => {
    const url = await cluster.newDatabase();
    const queues = await Promise.all(Array.from({ length: 4 }, (_, index) => PgRunQueue.open(url, { workerId: `w${index}` })));
    sub.after(() => Promise.all(queues.map((queue) => queue.close())));
    const runIds = [];
    for (let index = 0; index < 12; index += 1) runIds.push(await queues[0]!.enqueue({ prompt: `run ${index}` }));
    const claimed = await Promise.all(
      queues.map(async (queue) => {
        const mine: ClaimedRun[] = [];
        for (let run = await queue.claim(); run !== null; run = await queue.claim()) mine.push(run);
        return mine;
      }),
    );
    const all = claimed.flat();
    assert.deepEqual(all.map((run) => run.runId).sort(), [...runIds].sort());
    for (const run of all) assert.equal(await run.finish('succeeded', { ok: true }), true);
    const listed = await queues[0]!.list();
    assert.ok(listed.every((run) => run.state === 'succeeded' && run.attempts === 1 && run.worker !== null));
  });

  await t.test('a claim skips a run another worker is claiming, without waiting for it', { timeout: 60_000 }, async (sub) => {
    const url = await cluster.newDatabase();
    const queue = await PgRunQueue.open(url);
    sub.after(() => queue.close());
    const first = await queue.enqueue({ prompt: 'first' });
    const second = await queue.enqueue({ prompt: 'second' });
    await withPgClient(url, async (client) => {
      // Another worker in the middle of claiming the oldest run: its row is locked.
      await client.query('BEGIN');
      await client.query('SELECT run_id FROM glassbox_runs WHERE run_id = $1 FOR UPDATE', [first]);
      const run = await queue.claim();
      assert.equal(run?.runId, second);
      await client.query('ROLLBACK');
      await run?.finish('succeeded');
    });
    assert.equal((await queue.claim())?.runId, first);
  });

  await t.test('an enqueue wakes a worker waiting for work', { timeout: 60_000 }, async (sub) => {
    const url = await cluster.newDatabase();
    const [server, worker] = await Promise.all([PgRunQueue.open(url), PgRunQueue.open(url)]);
    sub.after(() => Promise.all([server.close(), worker.close()]));
    await worker.listen();
    assert.equal(await worker.claim(), null);
    // A wait far longer than the test may take: only the NOTIFY can end it in time.
    const waited = worker.waitForWork(10 * 60_000);
    const runId = await server.enqueue({ prompt: 'wake up' });
    await waited;
    const run = await worker.claim();
    assert.equal(run?.runId, runId);
    await run?.finish('succeeded');
  });

  await t.test(
    "an idle worker wakes when a dead worker's lease ends, not a whole lease of its own later",
    { timeout: 60_000 },
    async (sub) => {
      const url = await cluster.newDatabase();
      // The dead one's lease is 1 s; the waiting one's own is 10 minutes, so a wait of "a lease"
      // would outlast this test's timeout: the wait must follow the expiry it can read.
      const [dead, waiting] = await Promise.all([
        PgRunQueue.open(url, { workerId: 'dead', leaseMs: 1000 }),
        PgRunQueue.open(url, { workerId: 'waiting', leaseMs: 10 * 60_000 }),
      ]);
      sub.after(() => Promise.all([dead.close(), waiting.close()]));
      await waiting.listen();
      const runId = await dead.enqueue({ prompt: 'p' });
      const held = await dead.claim();
      assert.equal(held?.runId, runId);
      held?.stopRenewing();
      let run = await waiting.claim();
      while (run === null) {
        await waiting.waitForWork();
        run = await waiting.claim();
      }
      assert.equal(run.runId, runId);
      assert.equal(run.attempt, 2);
      assert.equal(await run.finish('succeeded'), true);
    },
  );

  await t.test('a worker killed mid-run loses it to another after its lease; the stale claim cannot finish it', async (sub) => {
    await buildReady();
    const url = await cluster.newDatabase();
    const leaseMs = 1000;
    const queue = await PgRunQueue.open(url, { leaseMs, workerId: 'survivor' });
    sub.after(() => queue.close());
    const runId = await queue.enqueue({ prompt: 'long job' });
    const child = spawn(process.execPath, ['--input-type=module', '-e', WORKER], {
      cwd: repoRoot,
      env: { ...process.env, QUEUE_MODULE: queueModule, DB_URL: url, LEASE_MS: String(leaseMs) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    sub.after(() => child.kill('SIGKILL'));
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
    const line = await new Promise<string>((resolve, reject) => {
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes('\n')) resolve(stdout.trim());
      });
      void exited.then(() => reject(new Error(`worker exited early: ${stderr}`)));
    });
    assert.equal(line, `claimed ${runId} 1`);
    const [running] = await queue.list();
    assert.equal(running?.state, 'running');
    assert.equal(running?.worker?.pid, child.pid);
    assert.equal(await queue.claim(), null, 'a live worker keeps its run');

    child.kill('SIGKILL');
    await exited;
    let run = await queue.claim();
    while (run === null) {
      await queue.waitForWork(leaseMs / 4);
      run = await queue.claim();
    }
    assert.equal(run.runId, runId);
    assert.equal(run.attempt, 2, 'the second attempt continues an interrupted run');

    // The dead worker's claim, were it only paused, is fenced off: finishing needs the lease.
    const [taken] = await queue.list();
    assert.equal(taken?.worker?.id, 'survivor');
    // Opened first: the survivor renews its lease every third of it, so the claim must follow the
    // planted expiry at once (an open in between, which migrates, could take longer under load).
    const other = await PgRunQueue.open(url, { workerId: 'latecomer' });
    sub.after(() => other.close());
    run.stopRenewing();
    await withPgClient(url, (client) =>
      client.query("UPDATE glassbox_runs SET lease_expires_at = clock_timestamp() - interval '1 second' WHERE run_id = $1", [runId]),
    );
    const retaken = await other.claim();
    assert.equal(retaken?.attempt, 3);
    assert.equal(await run.finish('succeeded'), false, 'a worker that lost its lease cannot finish the run');
    assert.equal(await retaken?.finish('succeeded', { answer: 'done' }), true);
    const [finished] = await queue.list();
    assert.equal(finished?.state, 'succeeded');
    assert.deepEqual(finished?.result, { answer: 'done' });
  });
  await t.test(
    "a claim whose reply comes late is given up by the row's lease end, not a lease after the reply",
    { timeout: 60_000 },
    async (sub) => {
      const leaseMs = 1000;
      const replyMs = 600;
      // The database answers the claim at once, but its reply reaches the worker 600 ms later (a
      // loaded machine, a slow network). The row's lease began before the database answered, so it
      // ends less than a lease after the answer; giving up a lease after the late reply would
      // overlap a taker-over by 600 ms.
      const heldFor = await heldAfterAnswer(sub, await cluster.newDatabase(), leaseMs, { replyMs });
      assert.ok(heldFor < leaseMs + replyMs / 2, `gave the run up ${Math.round(heldFor)} ms after the database answered the claim`);
    },
  );
  await t.test('a claim that waited for a free connection keeps the whole lease the row got', { timeout: 60_000 }, async (sub) => {
    const leaseMs = 1000;
    const connectMs = 600;
    // Every connection is busy for 600 ms first (runs writing their events); then the database
    // answers at once. The row's lease began when the statement ran, after the wait: giving up
    // ~350 ms after the answer would stop a run the worker still held for most of a lease.
    const heldFor = await heldAfterAnswer(sub, await cluster.newDatabase(), leaseMs, { connectMs });
    assert.ok(heldFor > leaseMs - connectMs / 2, `gave the run up ${Math.round(heldFor)} ms after the database answered the claim`);
  });
});

/**
 * Claim one run through a pool that stalls as told (every connection busy for `connectMs` first;
 * the claim's reply `replyMs` late), on which no renewal ever returns (the database unreachable
 * after the claim): the milliseconds from the database's answer to the claim until the queue gave
 * the run up.
 */
async function heldAfterAnswer(
  sub: TestContext,
  url: string,
  leaseMs: number,
  delays: { connectMs?: number; replyMs?: number },
): Promise<number> {
  const setup = await PgRunQueue.open(url, { workerId: 'setup' }); // migrates the schema
  sub.after(() => setup.close());
  const real = new pg.Pool({ connectionString: url, max: 2 });
  sub.after(() => real.end());
  const pause = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms));
  let answeredAt = 0;
  const query = async (text: string, values?: unknown[]) => {
    if (text.includes('SET lease_expires_at = clock_timestamp()') && !text.includes("state = 'running', worker_id"))
      return new Promise(() => undefined);
    const result = await real.query(text, values);
    if (text.includes("SET state = 'running', worker_id")) {
      answeredAt = performance.now();
      await pause(delays.replyMs);
    }
    return result;
  };
  const stalled = {
    query: async (text: string, values?: unknown[]) => {
      await pause(delays.connectMs);
      return query(text, values);
    },
    connect: async () => {
      await pause(delays.connectMs);
      return { query, release: () => undefined, on: () => undefined, off: () => undefined };
    },
  } as unknown as pg.Pool;
  const queue = PgRunQueue.attach(stalled, url, { workerId: 'stalled', leaseMs });
  await setup.enqueue({ prompt: 'p' });
  const run = await queue.claim();
  assert.ok(run !== null);
  await new Promise((resolve) => run.leaseLost.addEventListener('abort', resolve, { once: true }));
  run.stopRenewing();
  return performance.now() - answeredAt;
}
