// Sessions in PostgreSQL (issue 29): append throughput of the database store against the JSONL
// file store in the same run, on a throwaway local cluster (unix socket). Two ways of appending:
// one record at a time, each awaited (a round's records as the loop commits them), and 50 at once
// (the writer batches appends made while a write is in flight into one round trip). Each ends with
// `sync`, which makes the records durable in both stores. And the run queue's dispatch latency:
// enqueue on one connection until a worker waiting on another (LISTEN) has claimed the run,
// against the single-process server's dispatch (RunManager, in memory); and the takeover of a dead
// worker's run, against the lease. No PostgreSQL installed: no rows.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApprovalRegistry } from '../../src/agent/index.js';
import { PgRunQueue } from '../../src/runner/index.js';
import { RunManager } from '../../src/server/run-manager.js';
import { JsonlSessionStore, PgSessionStore, type NewSessionRecord, type SessionStore } from '../../src/sessions/index.js';
import { launchPgCluster } from '../../test/helpers/pg-cluster.js';
import { QUEUED_RUN_PARAMETERS, succeededWith } from '../../test/helpers/pg-team-fixtures.js';
import { median, withRatio, type BenchRow } from '../bench-table.js';

const quick = process.env.GLASSBOX_BENCH_QUICK === '1';
const RECORDS = quick ? 500 : 3_000;
const REPEATS = quick ? 1 : 3;
const META = { cwd: '/p', model: 'm', wireApi: 'chat' as const, glassboxVersion: '0.0.0' };

function record(index: number): NewSessionRecord {
  return {
    type: 'response_item',
    turn: 1,
    item: { type: 'message', role: 'assistant', content: `working message ${index} ${'x'.repeat(200)}`, runtimeRole: 'working_message' },
  };
}

async function appendRate(store: SessionStore, batch: number): Promise<number> {
  const writer = await store.create(META);
  const started = performance.now();
  for (let index = 0; index < RECORDS; index += batch) {
    await Promise.all(Array.from({ length: Math.min(batch, RECORDS - index) }, (_, offset) => writer.append(record(index + offset))));
  }
  await writer.sync();
  const seconds = (performance.now() - started) / 1000;
  await writer.close();
  return RECORDS / seconds;
}

/** The single-process server's dispatch: `RunManager.start` until its turn starts, p50. */
async function inProcessDispatch(samples: number): Promise<number> {
  let picked: () => void = () => undefined;
  const runs = new RunManager({
    approvals: new ApprovalRegistry(),
    log: () => undefined,
    startTurn: async (_parameters, hooks) => {
      picked();
      hooks.onEvent({ type: 'run_started', sessionId: 's', runId: hooks.runId, model: 'm', wireApi: 'chat', resumed: false });
      return { terminal: succeededWith('') };
    },
  });
  const times: number[] = [];
  for (let index = 0; index < samples; index += 1) {
    const started = performance.now();
    const turn = new Promise<void>((resolve) => (picked = resolve));
    await runs.start(QUEUED_RUN_PARAMETERS);
    await turn;
    times.push(performance.now() - started);
  }
  await runs.close('bench over');
  return median(times);
}

/**
 * Takeover: a worker holding a run stops renewing its lease (what a `kill -9` leaves behind) and
 * another, idle and listening, claims it; from the last renewal to the claim, against the lease.
 * The single-process server has no takeover (its runs die with it), so the lease is the baseline.
 */
async function takeoverTime(url: string): Promise<BenchRow> {
  const leaseMs = 1000;
  const [dead, waiting] = await Promise.all([PgRunQueue.open(url, { workerId: 'dead', leaseMs }), PgRunQueue.open(url, { leaseMs })]);
  try {
    await waiting.listen();
    const samples: number[] = [];
    for (let index = 0; index < (quick ? 2 : 5); index += 1) {
      await dead.enqueue({ prompt: `run ${index}` });
      const held = await dead.claim();
      const died = performance.now();
      held?.stopRenewing();
      let run = await waiting.claim();
      while (run === null || run.attempt < 2) {
        await run?.finish('succeeded');
        await waiting.waitForWork();
        run = await waiting.claim();
      }
      samples.push(performance.now() - died);
      await run.finish('succeeded');
    }
    return withRatio(
      {
        group: 'sessions in PostgreSQL',
        name: "takeover: a dead worker's last lease renewal until another worker has claimed its run, p50",
        value: Math.round(median(samples)),
        unit: 'ms',
        baseline: { name: 'the lease', value: leaseMs },
      },
      2,
    );
  } finally {
    await Promise.all([dead.close(), waiting.close()]);
  }
}

async function dispatchLatency(url: string): Promise<BenchRow> {
  const [server, worker] = await Promise.all([PgRunQueue.open(url), PgRunQueue.open(url)]);
  try {
    await worker.listen();
    const samples: number[] = [];
    for (let index = 0; index < (quick ? 10 : 40); index += 1) {
      const started = performance.now();
      const woken = worker.waitForWork(60_000);
      await server.enqueue({ prompt: `run ${index}` });
      await woken;
      const run = await worker.claim();
      samples.push(performance.now() - started);
      await run?.finish('succeeded');
    }
    const baseline = await inProcessDispatch(samples.length);
    return withRatio({
      group: 'sessions in PostgreSQL',
      name: 'run dispatch: enqueue until a waiting worker has claimed it (NOTIFY), p50',
      value: Number(median(samples).toFixed(2)),
      unit: 'ms',
      baseline: { name: 'single-process server (JSONL store): start until the turn starts', value: Number(baseline.toFixed(3)) },
      note: 'ratio > 1: the queue is slower',
    });
  } finally {
    await Promise.all([server.close(), worker.close()]);
  }
}

export async function run(): Promise<BenchRow[]> {
  let stop: (() => Promise<void>) | null = null;
  const cluster = await launchPgCluster(undefined, (stopCluster) => {
    stop = stopCluster;
  });
  if (cluster === null) {
    process.stderr.write('bench: session-database skipped (no PostgreSQL: apt-get install postgresql)\n');
    return [];
  }
  const dir = mkdtempSync(join(tmpdir(), 'gb-bench-pg-'));
  try {
    const files = new JsonlSessionStore(join(dir, 'sessions'));
    const database = await PgSessionStore.open(await cluster.newDatabase());
    try {
      const rows: BenchRow[] = [];
      for (const [name, batch] of [
        ['one awaited at a time', 1],
        ['50 at once', 50],
      ] as const) {
        const fileRates: number[] = [];
        const databaseRates: number[] = [];
        for (let repeat = 0; repeat < REPEATS; repeat += 1) {
          fileRates.push(await appendRate(files, batch));
          databaseRates.push(await appendRate(database, batch));
        }
        rows.push(
          withRatio({
            group: 'sessions in PostgreSQL',
            name: `append ${RECORDS} records, ${name}, then sync`,
            value: Math.round(median(databaseRates)),
            unit: 'records/s',
            baseline: { name: 'JSONL file store', value: Math.round(median(fileRates)) },
            note: 'ratio < 1: the database store is slower',
          }),
        );
      }
      rows.push(await dispatchLatency(await cluster.newDatabase()));
      rows.push(await takeoverTime(await cluster.newDatabase()));
      return rows;
    } finally {
      await database.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await (stop as (() => Promise<void>) | null)?.();
  }
}
