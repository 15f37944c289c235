// A pending approval outlives a worker that loses its run lease, as it outlives one that hands the
// run over: the worker that lost the run must not close the row, which is the taker-over's now
// (it asks the same call again, and a closed row would tell it the call may have run). Here the
// takeover is the claim's own UPDATE, done by the test (worker_id changes, attempts + 1), which is
// what `PgRunQueue.claim` does once the lease expired.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import type { ApprovalResolution } from '../../src/agent/index.js';
import { createPgTeam } from '../../src/server/pg-team.js';
import { startPgCluster } from '../helpers/pg-cluster.js';
import { migratedPool, QUEUED_RUN_PARAMETERS, succeededWith, waitFor } from '../helpers/pg-team-fixtures.js';

test('a worker that lost its run lease leaves the run’s pending approval pending', { timeout: 60_000 }, async (t) => {
  const cluster = await startPgCluster(t);
  if (cluster === null) return;
  const url = await cluster.newDatabase();
  const pool = await migratedPool(url);
  t.after(() => pool.end());
  let answered: ApprovalResolution | null = null;
  const team = createPgTeam(
    { databaseUrl: url, leaseMs: 3000, Pool: pg.Pool, Client: pg.Client },
    async (_parameters, hooks) => {
      hooks.onEvent({ type: 'approval_requested', callId: 'c1', name: 'shell', summary: 'ls', reason: 'asks', arguments: '{}' });
      answered = await hooks.approvals.request(
        { runId: hooks.runId, callId: 'c1', toolName: 'shell', summary: 'ls', reason: 'asks', arguments: '{}' },
        hooks.signal,
      );
      return { terminal: succeededWith(answered.decision) };
    },
    { log: () => undefined },
  );
  t.after(() => team.close('test over'));

  const run = await team.runs.start({ ...QUEUED_RUN_PARAMETERS, approvalPolicy: 'on-request' });
  const state = async (): Promise<string | undefined> =>
    (await pool.query<{ state: string }>(`SELECT state FROM glassbox_approvals WHERE run_id = $1 AND call_id = 'c1'`, [run.runId])).rows[0]
      ?.state;
  await waitFor('the approval row', async () => (await state()) === 'pending');
  // Another worker claims the run (its lease ran out while this worker was paused).
  await pool.query(`UPDATE glassbox_runs SET worker_id = 'another-worker', attempts = attempts + 1 WHERE run_id = $1`, [run.runId]);
  await waitFor('the stopped turn to give up its wait', () => answered);
  // Whatever the stopped worker still had in flight has landed once nothing of it runs.
  await waitFor('the worker to be quiet', async () => {
    const result = await pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'active'
         AND pid <> pg_backend_pid() AND query NOT LIKE 'LISTEN%'`,
    );
    return result.rows[0]?.n === '0';
  });
  assert.equal(await state(), 'pending', 'the taker-over finds the approval still pending, to ask it again');
  assert.equal((await team.approvals.list(run.runId)).length, 1, 'still listed');
});

test('a worker whose run was taken over does not use the run’s answer', { timeout: 60_000 }, async (t) => {
  const cluster = await startPgCluster(t);
  if (cluster === null) return;
  const url = await cluster.newDatabase();
  const pool = await migratedPool(url);
  t.after(() => pool.end());
  let answered: ApprovalResolution | null = null;
  const team = createPgTeam(
    // Renewed every 1 s: the takeover below lands right after a renewal, long before the next.
    { databaseUrl: url, leaseMs: 3000, Pool: pg.Pool, Client: pg.Client },
    async (_parameters, hooks) => {
      hooks.onEvent({ type: 'approval_requested', callId: 'c1', name: 'shell', summary: 'ls', reason: 'asks', arguments: '{}' });
      answered = await hooks.approvals.request(
        { runId: hooks.runId, callId: 'c1', toolName: 'shell', summary: 'ls', reason: 'asks', arguments: '{}' },
        hooks.signal,
      );
      return { terminal: succeededWith(answered.decision) };
    },
    { log: () => undefined },
  );
  t.after(() => team.close('test over'));

  const run = await team.runs.start({ ...QUEUED_RUN_PARAMETERS, approvalPolicy: 'on-request' });
  const row = async () =>
    (
      await pool.query<{ state: string; expires: string }>(
        `SELECT a.state, r.lease_expires_at::text AS expires FROM glassbox_approvals a JOIN glassbox_runs r USING (run_id)
         WHERE run_id = $1 AND call_id = 'c1'`,
        [run.runId],
      )
    ).rows[0];
  const first = await waitFor('the approval row', async () => ((await row())?.state === 'pending' ? await row() : null));
  await waitFor('a renewal of the run lease', async () => (await row())?.expires !== first.expires, 5);
  // Another worker claims the run (its lease ran out while this worker was paused, and the paused
  // worker has not seen it yet), and a user answers: the answer is the new holder's to use.
  await pool.query(`UPDATE glassbox_runs SET worker_id = 'another-worker', attempts = attempts + 1 WHERE run_id = $1`, [run.runId]);
  assert.equal(await team.approvals.resolve(run.runId, 'c1', 'approve', null, 'tester'), true);
  const answer = await waitFor('the stopped turn to end its wait', () => answered);
  assert.notEqual(answer.decision, 'approve', 'the worker that lost the run does not run the approved call');
  assert.equal((await row())?.state, 'resolved', 'the answer stays unused, for the taker-over');
});

test('a worker whose run was taken over asks no new approval of it', { timeout: 60_000 }, async (t) => {
  const cluster = await startPgCluster(t);
  if (cluster === null) return;
  const url = await cluster.newDatabase();
  const pool = await migratedPool(url);
  t.after(() => pool.end());
  let ask: () => void = () => undefined;
  const asked = new Promise<void>((resolve) => (ask = resolve));
  let answered: ApprovalResolution | null = null;
  const team = createPgTeam(
    { databaseUrl: url, leaseMs: 3000, Pool: pg.Pool, Client: pg.Client },
    async (_parameters, hooks) => {
      await asked;
      hooks.onEvent({ type: 'approval_requested', callId: 'c2', name: 'shell', summary: 'ls', reason: 'asks', arguments: '{}' });
      answered = await hooks.approvals.request(
        { runId: hooks.runId, callId: 'c2', toolName: 'shell', summary: 'ls', reason: 'asks', arguments: '{}' },
        hooks.signal,
      );
      return { terminal: succeededWith(answered.decision) };
    },
    { log: () => undefined },
  );
  t.after(() => team.close('test over'));

  const run = await team.runs.start({ ...QUEUED_RUN_PARAMETERS, approvalPolicy: 'on-request' });
  const expires = async () =>
    (
      await pool.query<{ expires: string | null }>('SELECT lease_expires_at::text AS expires FROM glassbox_runs WHERE run_id = $1', [
        run.runId,
      ])
    ).rows[0]?.expires ?? null;
  const first = await waitFor('the run to be claimed', expires);
  await waitFor('a renewal of the run lease', async () => (await expires()) !== first, 5);
  // Another worker claims the run before this one notices; this one's turn then asks a call.
  await pool.query(`UPDATE glassbox_runs SET worker_id = 'another-worker', attempts = attempts + 1 WHERE run_id = $1`, [run.runId]);
  ask();
  await waitFor('the stopped turn to end its wait', () => answered);
  assert.deepEqual(await team.approvals.list(run.runId), [], 'no approval the run’s holder never asked is listed');
});
