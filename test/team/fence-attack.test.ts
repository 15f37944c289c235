// A worker whose run lease is taken over must write nothing more of the run's session (the
// hand-over's fence, for a lease lost instead of handed over). A turn stopped by the lost lease still
// appends its end (runTurn writes the turn_end record of the cancelled turn), and the run's session
// lease is renewed on its own timer, so it may well outlive the run lease: without a fence that
// record lands after another worker claimed the run, and the takeover replays a turn ended as
// cancelled and then continues it. Here the takeover is the claim's own UPDATE, done by the test
// (worker_id changes, attempts + 1), which is what `PgRunQueue.claim` does once the lease expired.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { emptyUsage } from '../../src/model/index.js';
import { PgRunQueue } from '../../src/runner/index.js';
import { createPgTeam } from '../../src/server/pg-team.js';
import { PgSessionStore } from '../../src/sessions/index.js';
import { startPgCluster } from '../helpers/pg-cluster.js';
import { migratedPool, QUEUED_RUN_PARAMETERS, waitFor } from '../helpers/pg-team-fixtures.js';

test('a worker whose run was taken over appends nothing more to its session', { timeout: 60_000 }, async (t) => {
  const cluster = await startPgCluster(t);
  if (cluster === null) return;
  const url = await cluster.newDatabase();
  const pool = await migratedPool(url);
  t.after(() => pool.end());
  // The same lease for both, as `serve --database-url` has it (TEAM_LEASE_MS).
  const store = await PgSessionStore.open(url, { leaseMs: 3000 });
  t.after(() => store.close());
  let appendAfterLoss: 'written' | 'refused' | null = null;
  const team = createPgTeam(
    { databaseUrl: url, leaseMs: 3000, Pool: pg.Pool, Client: pg.Client },
    async (_parameters, hooks) => {
      const writer = await store.create({ cwd: '/tmp', model: 'm', wireApi: 'chat', glassboxVersion: '0.0.0' });
      // As runTurn does with its `fence` (create-server passes the worker's leaseLost).
      hooks.leaseLost?.addEventListener('abort', () => writer.revoke?.('taken over'), { once: true });
      hooks.onEvent({ type: 'run_started', runId: hooks.runId, sessionId: writer.sessionId } as never);
      const turnStarted = {
        type: 'turn_started',
        turn: 1,
        runId: hooks.runId,
        prompt: 'p',
        policy: { approvalPolicy: 'never', sandbox: 'read-only' },
        model: 'm',
        wireApi: 'chat',
      } as const;
      await writer.append(turnStarted);
      // The turn runs until it is stopped, then records its end, as runTurn does.
      await new Promise<void>((resolve) => hooks.signal.addEventListener('abort', () => resolve(), { once: true }));
      try {
        await writer.append({ ...turnStarted, turn: 2, prompt: 'written by the worker that lost the run' });
        appendAfterLoss = 'written';
      } catch {
        appendAfterLoss = 'refused';
      }
      await writer.close().catch(() => undefined);
      return {
        terminal: { type: 'run_cancelled', reason: 'stopped', usage: { total: emptyUsage(), byStage: {}, calls: 0 }, rounds: 0 } as never,
      };
    },
    { log: () => undefined },
  );
  t.after(() => team.close('test over'));

  const run = await team.runs.start(QUEUED_RUN_PARAMETERS);
  const sessionId = await waitFor('the run to name its session', async () => {
    const row = await pool.query<{ session_id: string | null; n: string }>(
      `SELECT r.session_id, (SELECT count(*) FROM glassbox_session_records s WHERE s.session_id = r.session_id) AS n
       FROM glassbox_runs r WHERE run_id = $1`,
      [run.runId],
    );
    return row.rows[0]?.n === '2' ? row.rows[0].session_id : null;
  });
  // Another worker claims the run (its lease ran out while this worker was paused).
  await pool.query(`UPDATE glassbox_runs SET worker_id = 'another-worker', attempts = attempts + 1 WHERE run_id = $1`, [run.runId]);
  await waitFor('the stopped turn to try its last append', () => appendAfterLoss);
  const lines = await pool.query<{ body: string }>('SELECT body FROM glassbox_session_records WHERE session_id = $1 ORDER BY line', [
    sessionId,
  ]);
  assert.equal(appendAfterLoss, 'refused', 'the session is fenced once the run is taken over');
  assert.equal(lines.rows.length, 2, 'nothing of the stopped turn lands after the takeover');
});

test('a session lease that lapsed is not renewed: its writer is revoked instead', { timeout: 60_000 }, async (t) => {
  const cluster = await startPgCluster(t);
  if (cluster === null) return;
  const url = await cluster.newDatabase();
  const pool = await migratedPool(url);
  t.after(() => pool.end());
  // Renewed every 200 ms.
  const store = await PgSessionStore.open(url, { leaseMs: 600 });
  t.after(() => store.close());
  const writer = await store.create({ cwd: '/tmp', model: 'm', wireApi: 'chat', glassboxVersion: '0.0.0' });
  t.after(() => writer.close());
  // The lease lapsed (the writer's process stalled past it); nobody has taken it yet, but a
  // takeover may be opening the session on the strength of it right now.
  await pool.query("UPDATE glassbox_session_leases SET expires_at = clock_timestamp() - interval '1 second' WHERE session_id = $1", [
    writer.sessionId,
  ]);
  const outcome = await waitFor('the next renewal', async () => {
    const row = await pool.query<{ live: boolean }>(
      'SELECT expires_at > clock_timestamp() AS live FROM glassbox_session_leases WHERE session_id = $1',
      [writer.sessionId],
    );
    if (row.rows[0]?.live === true) return 'renewed';
    return writer.sync().then(
      () => null,
      (error: { code?: unknown }) => (error.code === 'SESSION_LOCKED' ? 'revoked' : null),
    );
  });
  assert.equal(outcome, 'revoked');
  await assert.rejects(
    writer.append({
      type: 'turn_started',
      turn: 1,
      runId: 'r',
      prompt: 'p',
      policy: { approvalPolicy: 'never', sandbox: 'read-only' },
      model: 'm',
      wireApi: 'chat',
    }),
    /no longer this writer's/,
  );
});

test('a revoked writer lets its session lease go at once: the taker-over need not wait for its turn to end', {
  timeout: 60_000,
}, async (t) => {
  const cluster = await startPgCluster(t);
  if (cluster === null) return;
  const url = await cluster.newDatabase();
  // Renewed every 200 ms while the writer holds it.
  const store = await PgSessionStore.open(url, { leaseMs: 600 });
  t.after(() => store.close());
  const other = await PgSessionStore.open(url, { leaseMs: 600 });
  t.after(() => other.close());
  const writer = await store.create({ cwd: '/tmp', model: 'm', wireApi: 'chat', glassboxVersion: '0.0.0' });
  t.after(() => writer.close());
  // The worker lost the run before its turn named the session (no run_started yet, so the worker
  // deleted no lease row), and the stopped turn takes its time to end (a tool slow to stop).
  writer.revoke?.('taken over');
  // Well past the lease: a writer that may write nothing has no lease to keep alive.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const taken = await other.openForAppend(writer.sessionId).then(
    (opened) => opened,
    (error: { code?: unknown }) => error.code,
  );
  assert.notEqual(taken, 'SESSION_LOCKED', 'the revoked writer renewed its lease all along');
  if (typeof taken === 'object' && taken !== null) await (taken as { close(): Promise<void> }).close();
});

test('a run lease lost to the database gives up no later than the row lets another worker claim it', { timeout: 60_000 }, async (t) => {
  const cluster = await startPgCluster(t);
  if (cluster === null) return;
  const url = await cluster.newDatabase();
  const pool = await migratedPool(url);
  // A connection whose renewal never returns is never released by the queue: the test lets it go.
  const hung: pg.PoolClient[] = [];
  t.after(async () => {
    for (const client of hung) client.release(true);
    await pool.end();
  });
  // The worker's renewals stop getting through (a connection that hangs): after the first, none returns.
  let renewals = 0;
  // On the pool and on the connections it hands out (the queue runs its lease statements on one).
  const hangRenewals = <T extends object>(target: T & { query: (text: string, values?: unknown[]) => unknown }): T =>
    new Proxy(target, {
      get(inner, key, receiver) {
        if (key === 'connect' && 'connect' in inner) {
          return async () => hangRenewals(await (inner as unknown as pg.Pool).connect());
        }
        if (key !== 'query') return Reflect.get(inner, key, receiver);
        return (text: unknown, values?: unknown) => {
          if (typeof text === 'string' && text.includes('SET lease_expires_at = clock_timestamp() +')) {
            renewals += 1;
            if (renewals > 1) {
              if ('release' in inner) hung.push(inner as unknown as pg.PoolClient);
              return new Promise(() => undefined);
            }
          }
          return inner.query(text as string, values as unknown[]);
        };
      },
    });
  const hanging = hangRenewals(pool);
  // 5 s is the default run lease: renewed every 1666 ms, three of which are 4998 ms.
  const queue = PgRunQueue.attach(hanging as unknown as pg.Pool, url, { leaseMs: 5000, workerId: 'old-worker' });
  const runId = await queue.enqueue({});
  const claim = await queue.claim();
  assert.ok(claim !== null);
  t.after(() => claim.stopRenewing());
  await waitFor('the first renewal', async () => (renewals >= 1 ? true : null));
  // The moment the row's lease has run out another worker may claim the run; the old one must know by then.
  const expired = await waitFor(
    'the row lease to run out',
    async () => {
      const row = await pool.query<{ expired: boolean }>(
        'SELECT lease_expires_at <= clock_timestamp() AS expired FROM glassbox_runs WHERE run_id = $1',
        [runId],
      );
      return row.rows[0]?.expired === true ? { lost: claim.leaseLost.aborted } : null;
    },
    5,
  );
  const taken = await pool.query(
    `UPDATE glassbox_runs SET worker_id = 'another-worker', attempts = attempts + 1
     WHERE run_id = $1 AND lease_expires_at <= clock_timestamp()`,
    [runId],
  );
  assert.equal(taken.rowCount, 1);
  assert.equal(expired.lost, true, 'another worker claimed the run while the old one still thought it held it');
});
