// What a team worker writes, and when, on a throwaway cluster: an approval's row is in the table
// before the event that announces it (a client answering at once must find it), and a batch of
// events whose INSERT fails during a short loss of the database is written again, not dropped.
// Table locks taken by the test hold the worker's statements where the order matters; the oracle
// is what the tables hold, read while nothing of the worker's is still running.

import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import pg from 'pg';
import type { RunEvent } from '../../src/agent/index.js';
import { createPgTeam } from '../../src/server/pg-team.js';
import type { RunParameters } from '../../src/server/run-manager.js';
import { startPgCluster } from '../helpers/pg-cluster.js';
import { migratedPool, QUEUED_RUN_PARAMETERS, succeededWith, waitFor } from '../helpers/pg-team-fixtures.js';

const PARAMETERS: RunParameters = { ...QUEUED_RUN_PARAMETERS, approvalPolicy: 'on-request' };
const poll = <T>(what: string, probe: () => Promise<T | undefined | null | false>) => waitFor(what, probe, 20);

/** The worker's statement waiting on a lock, once it waits. */
async function blockedStatement(pool: pg.Pool, like: string): Promise<number> {
  return poll(`a statement like ${like} waiting on a lock`, async () => {
    const result = await pool.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE $1`,
      [`%${like}%`],
    );
    return result.rows[0]?.pid;
  });
}

/** Until no statement but `except`'s (and the test's own) runs in the database. */
async function quiet(pool: pg.Pool, except: number[]): Promise<void> {
  await poll('the worker to have no statement running', async () => {
    const result = await pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'active'
         AND pid <> pg_backend_pid() AND NOT (pid = ANY($1::int[])) AND query NOT LIKE 'LISTEN%'`,
      [except],
    );
    return result.rows[0]?.n === '0';
  });
}

/** A table lock held in an open transaction until `unlock` (or the test's end, if it failed first). */
async function lockTable(t: TestContext, pool: pg.Pool, statement: string): Promise<{ pid: number; unlock: () => Promise<void> }> {
  const locker = await pool.connect();
  await locker.query('BEGIN');
  await locker.query(statement);
  const pid = (await locker.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  let held = true;
  const unlock = async (): Promise<void> => {
    if (!held) return;
    held = false;
    await locker.query('COMMIT').catch(() => undefined);
    locker.release();
  };
  t.after(unlock);
  return { pid, unlock };
}

async function storedTypes(pool: pg.Pool, runId: string): Promise<string[]> {
  const result = await pool.query<{ body: string }>('SELECT body FROM glassbox_run_events WHERE run_id = $1 ORDER BY id', [runId]);
  return result.rows.map((row) => (JSON.parse(row.body) as { type: string }).type);
}

test('what a team worker writes', { timeout: 120_000 }, async (t) => {
  const cluster = await startPgCluster(t);
  if (cluster === null) return;

  await t.test('an approval row is stored before the event that announces it', async (t) => {
    const url = await cluster.newDatabase();
    const pool = await migratedPool(url);
    t.after(() => pool.end());
    const team = createPgTeam(
      { databaseUrl: url, leaseMs: 5000, Pool: pg.Pool, Client: pg.Client },
      async (_parameters, hooks) => {
        // As the tool runtime does it: the event, then the question, in one tick.
        hooks.onEvent({ type: 'approval_requested', callId: 'c1', name: 'shell', summary: 'ls', reason: 'asks', arguments: '{}' });
        const resolution = await hooks.approvals.request(
          { runId: hooks.runId, callId: 'c1', toolName: 'shell', summary: 'ls', reason: 'asks', arguments: '{}' },
          hooks.signal,
        );
        return { terminal: succeededWith(resolution.decision) };
      },
      { log: () => undefined },
    );
    t.after(() => team.close('test over'));

    const lock = await lockTable(t, pool, 'LOCK TABLE glassbox_approvals IN ACCESS EXCLUSIVE MODE');
    const run = await team.runs.start(PARAMETERS);
    const insert = await blockedStatement(pool, 'INSERT INTO glassbox_approvals');
    await quiet(pool, [insert, lock.pid]);
    assert.deepEqual(await storedTypes(pool, run.runId), [], 'no approval_requested while its row is not written');
    await lock.unlock();

    await poll('approval_requested', async () => (await storedTypes(pool, run.runId)).includes('approval_requested'));
    // Answered the moment the event is seen, with no listing first.
    assert.equal(await team.approvals.resolve(run.runId, 'c1', 'approve', null, 'tester'), true);
    await poll('the run to end', async () => (await storedTypes(pool, run.runId)).includes('run_succeeded'));
    const end = await pool.query<{ body: string }>(
      `SELECT body FROM glassbox_run_events WHERE run_id = $1 AND body LIKE '{"type":"run_succeeded"%'`,
      [run.runId],
    );
    assert.equal((JSON.parse(end.rows[0]!.body) as { answer: string }).answer, 'approve');
  });

  await t.test('events whose INSERT failed are written again once the database answers', async (t) => {
    const url = await cluster.newDatabase();
    const pool = await migratedPool(url);
    t.after(() => pool.end());
    let finish: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const logs: string[] = [];
    const team = createPgTeam(
      { databaseUrl: url, leaseMs: 5000, Pool: pg.Pool, Client: pg.Client },
      async (_parameters, hooks) => {
        const warning = (message: string): RunEvent => ({ type: 'warning', code: 'TEST', message });
        hooks.onEvent(warning('during the outage'));
        await finished;
        hooks.onEvent(warning('after it'));
        return { terminal: succeededWith('done') };
      },
      { log: (message) => logs.push(message) },
    );
    t.after(() => team.close('test over'));

    // EXCLUSIVE: the worker may still read the table (the claim's first query), not write it.
    const lock = await lockTable(t, pool, 'LOCK TABLE glassbox_run_events IN EXCLUSIVE MODE');
    const run = await team.runs.start(PARAMETERS);
    // The INSERT fails: its connection is cut, as a database restart or a network blip would.
    const insert = await blockedStatement(pool, 'INSERT INTO glassbox_run_events');
    await pool.query('SELECT pg_terminate_backend($1)', [insert]);
    await poll('the worker to log the failed write', async () => logs.some((line) => line.includes('retrying')));
    await lock.unlock();
    finish();
    await poll('the run to end', async () => (await storedTypes(pool, run.runId)).includes('run_succeeded'));
    const bodies = await pool.query<{ body: string }>('SELECT body FROM glassbox_run_events WHERE run_id = $1 ORDER BY id', [run.runId]);
    assert.deepEqual(
      bodies.rows.map((row) => (JSON.parse(row.body) as { message?: string; type: string }).message ?? row.body.slice(9, 22)),
      ['during the outage', 'after it', 'run_succeeded'],
    );
  });
});
