// Sessions in PostgreSQL (issue 29): append throughput of the database store against the JSONL
// file store in the same run, on a throwaway local cluster (unix socket). Two ways of appending:
// one record at a time, each awaited (a round's records as the loop commits them), and 50 at once
// (the writer batches appends made while a write is in flight into one round trip). Each ends with
// `sync`, which makes the records durable in both stores. And the run queue's dispatch latency:
// enqueue on one connection until a worker waiting on another (LISTEN) has claimed the run; no
// in-run baseline exists for that, so it is reported as is. No PostgreSQL installed: no rows.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PgRunQueue } from '../../src/runner/index.js';
import { JsonlSessionStore, PgSessionStore, type NewSessionRecord, type SessionStore } from '../../src/sessions/index.js';
import { launchPgCluster } from '../../test/helpers/pg-cluster.js';
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
    return withRatio({
      group: 'sessions in PostgreSQL',
      name: 'run dispatch: enqueue until a waiting worker has claimed it (NOTIFY), p50',
      value: Number(median(samples).toFixed(2)),
      unit: 'ms',
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
      return rows;
    } finally {
      await database.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await (stop as (() => Promise<void>) | null)?.();
  }
}
