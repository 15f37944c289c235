// Runs dispatched to worker processes through PostgreSQL: the plain lease-table pattern. Enqueue
// inserts a row and NOTIFYs; a worker claims the oldest claimable row with `FOR UPDATE SKIP LOCKED`
// (two workers never claim one run, and neither waits on the other), holds it under a lease it
// renews, and finishes it. A worker that dies stops renewing, and once its lease expires the run
// is claimable again — by any worker, which then continues it through the normal resume path.
// Finishing is fenced by the worker id: a worker whose lease was taken over cannot finish the run.

import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Client, Pool, QueryResult, QueryResultRow } from 'pg';
import { migratePgSchema, pgClientConfig, pgPoolConfig } from '../sessions/index.js';

const CHANNEL = 'glassbox_runs';
const DEFAULT_LEASE_MS = 5_000;

export type QueuedRunState = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

/** A row of the queue as `list` shows it: its state and which worker holds it. */
export interface QueuedRun {
  runId: string;
  payload: unknown;
  state: QueuedRunState;
  worker: { id: string; host: string; pid: number } | null;
  attempts: number;
  result: unknown;
}

export interface PgRunQueueOptions {
  /** How long a claim lasts without renewal (default 5 s); renewed every third of it. */
  leaseMs?: number;
  /** Defaults to `<host>:<pid>:<random>`. */
  workerId?: string;
}

/** A run this worker holds. Its lease is renewed until `finish` or `abandon`. */
export interface ClaimedRun {
  readonly runId: string;
  readonly payload: unknown;
  /** 1 on the first claim; more after a takeover (the run was interrupted and is continued). */
  readonly attempt: number;
  /** The run's session once it named one (a takeover resumes it), or the one it was queued for. */
  readonly sessionId: string | null;
  /**
   * Aborted once this worker no longer holds the run: a renewal found it taken over, or no renewal
   * got through for a whole lease (the database is unreachable), after which another worker may
   * claim it. The holder must stop working and writing the run.
   */
  readonly leaseLost: AbortSignal;
  /** Stop renewing the lease (the caller settles the row itself, e.g. with its terminal event). */
  stopRenewing(): void;
  /** Settles the run; false when this worker no longer held it (its lease was taken over). */
  finish(state: 'succeeded' | 'failed' | 'cancelled', result?: unknown): Promise<boolean>;
  /** Stop renewing and give the run back at once (e.g. this worker is shutting down). */
  abandon(): Promise<void>;
  /**
   * Stop renewing and let the lease end now, the run still running: the next claim takes it over
   * (attempt + 1) and continues it, as after a crash but without waiting out the lease. A stopping
   * worker hands its runs over so.
   */
  handOver(): Promise<void>;
}

interface RunRow {
  run_id: string;
  payload: unknown;
  state: QueuedRunState;
  worker_id: string | null;
  worker_host: string | null;
  worker_pid: number | null;
  attempts: number;
  result: unknown;
  session_id?: string | null;
}

export class PgRunQueue {
  readonly workerId: string;
  private readonly leaseMs: number;
  private listener: Client | null = null;
  private wake: (() => void) | null = null;
  /** A notification that came while nobody waited: the next wait returns at once. */
  private notified = false;

  private constructor(
    private readonly pool: Pool,
    private readonly databaseUrl: string,
    options: PgRunQueueOptions,
    private readonly ownsPool = true,
  ) {
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.workerId = options.workerId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  }

  static async open(databaseUrl: string, options: PgRunQueueOptions = {}): Promise<PgRunQueue> {
    const { default: pg } = await import('pg');
    const pool = new pg.Pool(pgPoolConfig(pg.Client, databaseUrl, { max: 4, allowExitOnIdle: true }));
    pool.on('error', () => undefined);
    try {
      const client = await pool.connect();
      try {
        await migratePgSchema(client);
      } finally {
        client.release();
      }
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw error;
    }
    return new PgRunQueue(pool, databaseUrl, options);
  }

  /** A queue on a pool its caller owns (and has migrated): `close` ends the listener only. */
  static attach(pool: Pool, databaseUrl: string, options: PgRunQueueOptions = {}): PgRunQueue {
    return new PgRunQueue(pool, databaseUrl, options, false);
  }

  async close(): Promise<void> {
    this.wake?.();
    await this.listener?.end().catch(() => undefined);
    this.listener = null;
    if (this.ownsPool) await this.pool.end();
  }

  /** Queue a run and wake the waiting workers, in one statement. */
  async enqueue(payload: unknown, runId: string = randomUUID(), sessionId: string | null = null): Promise<string> {
    // A second open run on one session violates glassbox_runs_open_session (SQLSTATE 23505).
    await this.pool.query(
      `WITH r AS (INSERT INTO glassbox_runs (run_id, payload, state, session_id) VALUES ($1, $2, 'queued', $3) RETURNING run_id)
       SELECT pg_notify('${CHANNEL}', run_id) FROM r`,
      [runId, JSON.stringify(payload), sessionId],
    );
    return runId;
  }

  /** The oldest queued run, or a running one whose worker's lease expired; null when there is none. */
  async claim(): Promise<ClaimedRun | null> {
    const { result, sentAt } = await this.timedQuery<RunRow>(
      `UPDATE glassbox_runs SET state = 'running', worker_id = $1, worker_host = $2, worker_pid = $3,
         lease_expires_at = clock_timestamp() + $4 * interval '1 millisecond', attempts = attempts + 1, updated_at = clock_timestamp()
       WHERE run_id = (
         SELECT run_id FROM glassbox_runs
         WHERE state = 'queued' OR (state = 'running' AND lease_expires_at <= clock_timestamp())
         ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED
       )
       RETURNING run_id, payload, state, worker_id, worker_host, worker_pid, attempts, result, session_id`,
      [this.workerId, hostname(), process.pid, this.leaseMs],
    );
    const row = result.rows[0];
    return row === undefined ? null : this.held(row, sentAt);
  }

  /**
   * A statement run on a connection of its own, with the time just before it was sent: the lease
   * it sets starts later than that, so a local deadline counted from it ends first. Not from
   * before `pool.query`, which also waits for a free connection (eight runs writing their events
   * keep a pool busy): counting that wait would make a loaded worker give up leases it still holds.
   */
  private async timedQuery<R extends QueryResultRow>(text: string, values: unknown[]): Promise<{ result: QueryResult<R>; sentAt: number }> {
    const client = await this.pool.connect();
    // While it is checked out a connection's loss is emitted on it (the pool listens only to idle
    // ones); unheard, that would end the process. The query itself rejects with the same error.
    const ignore = (): void => undefined;
    client.on('error', ignore);
    const sentAt = performance.now();
    try {
      const result = await client.query<R>(text, values);
      client.off('error', ignore);
      client.release();
      return { result, sentAt };
    } catch (error) {
      client.off('error', ignore);
      client.release(error as Error);
      throw error;
    }
  }

  /**
   * Start listening for new runs. A worker calls it before its first `claim`: a run queued between
   * an empty claim and the LISTEN would otherwise wait for the timeout of `waitForWork`.
   */
  async listen(): Promise<void> {
    await this.ensureListener();
  }

  /**
   * Resolves on a NOTIFY of a new run, or after `timeoutMs`, when a crashed worker's run may have
   * become claimable (an expiry sends no notification). By default that is when the soonest lease
   * of a running run ends (at most a lease from now): a dead worker's run is taken over a moment
   * after its lease runs out, not up to a whole lease later.
   */
  async waitForWork(timeoutMs?: number): Promise<void> {
    // Without a listener (the database is away) the wait is the timeout, and the next claim tells.
    await this.ensureListener().catch(() => undefined);
    if (this.notified) {
      this.notified = false;
      return;
    }
    timeoutMs ??= await this.untilSoonestExpiry().catch(() => this.leaseMs);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
    this.wake = null;
  }

  /** Milliseconds until the soonest running lease ends (plus a margin for clock reads), capped at a lease. */
  private async untilSoonestExpiry(): Promise<number> {
    const result = await this.pool.query<{ ms: number | null }>(
      `SELECT (extract(epoch FROM min(lease_expires_at) - clock_timestamp()) * 1000)::float8 AS ms FROM glassbox_runs WHERE state = 'running'`,
    );
    const ms = result.rows[0]?.ms;
    if (ms === null || ms === undefined) return this.leaseMs;
    return Math.min(this.leaseMs, Math.max(10, Math.ceil(ms) + 20));
  }

  /** Every run of the deployment, oldest first. */
  async list(): Promise<QueuedRun[]> {
    const result = await this.pool.query<RunRow>(
      'SELECT run_id, payload, state, worker_id, worker_host, worker_pid, attempts, result FROM glassbox_runs ORDER BY created_at',
    );
    return result.rows.map((row) => ({
      runId: row.run_id,
      payload: row.payload,
      state: row.state,
      worker: row.worker_id === null ? null : { id: row.worker_id, host: row.worker_host ?? '', pid: row.worker_pid ?? 0 },
      attempts: row.attempts,
      result: row.result,
    }));
  }

  private async ensureListener(): Promise<Client> {
    if (this.listener !== null) return this.listener;
    const { default: pg } = await import('pg');
    const client = new pg.Client(pgClientConfig(this.databaseUrl));
    // A lost listener is dropped and the next wait opens another; meanwhile waits time out and claim.
    const lost = (): void => {
      if (this.listener === client) this.listener = null;
      void client.end().catch(() => undefined);
    };
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', () => {
      if (this.wake === null) this.notified = true;
      else this.wake();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    this.listener = client;
    return client;
  }

  private held(row: RunRow, claimedAt: number): ClaimedRun {
    const { pool, workerId, leaseMs } = this;
    const lost = new AbortController();
    // Measured from before the claim's statement was sent (the row's lease starts later, while it
    // runs), so this side gives up no later than the row's lease ends however slow the reply was.
    let renewedAt = claimedAt;
    let renewing = false;
    // The heartbeat's ticks alone would notice the lapse up to a tick late (three ticks of
    // floor(leaseMs / 3) fall just short of a lease), while another worker may claim the run the
    // moment the row's lease ends: a timer of its own fires at the lease's end, a little before it.
    let deadline: NodeJS.Timeout | undefined;
    const stop = (): void => {
      clearInterval(heartbeat);
      clearTimeout(deadline);
    };
    const lapse = (): void => {
      stop();
      if (!lost.signal.aborted) lost.abort(new Error('the run lease lapsed: the database was unreachable for a whole lease'));
    };
    const margin = Math.min(250, Math.floor(leaseMs / 20));
    const arm = (): void => {
      clearTimeout(deadline);
      deadline = setTimeout(lapse, Math.max(0, renewedAt + leaseMs - margin - performance.now()));
      deadline.unref();
    };
    const heartbeat = setInterval(
      () => {
        if (performance.now() - renewedAt >= leaseMs - margin) {
          lapse();
          return;
        }
        if (renewing) return;
        renewing = true;
        void this.timedQuery(
          `UPDATE glassbox_runs SET lease_expires_at = clock_timestamp() + $3 * interval '1 millisecond'
           WHERE run_id = $1 AND worker_id = $2 AND state = 'running'`,
          [row.run_id, workerId, leaseMs],
        )
          .then(({ result, sentAt }) => {
            if (lost.signal.aborted) return;
            if (result.rowCount === 1) {
              renewedAt = sentAt;
              arm();
            } else {
              stop();
              lost.abort(new Error('the run was taken over by another worker'));
            }
          })
          .catch(() => undefined)
          .finally(() => (renewing = false));
      },
      Math.max(1, Math.floor(leaseMs / 3)),
    );
    heartbeat.unref();
    arm();
    return {
      runId: row.run_id,
      payload: row.payload,
      attempt: row.attempts,
      sessionId: row.session_id ?? null,
      leaseLost: lost.signal,
      stopRenewing: stop,
      async finish(state, result) {
        stop();
        const updated = await pool.query(
          `UPDATE glassbox_runs SET state = $3, result = $4, lease_expires_at = NULL, updated_at = clock_timestamp()
           WHERE run_id = $1 AND worker_id = $2 AND state = 'running'`,
          [row.run_id, workerId, state, result === undefined ? null : JSON.stringify(result)],
        );
        return updated.rowCount === 1;
      },
      async abandon() {
        stop();
        await pool.query(
          `UPDATE glassbox_runs SET state = 'queued', lease_expires_at = NULL, updated_at = clock_timestamp()
           WHERE run_id = $1 AND worker_id = $2 AND state = 'running'`,
          [row.run_id, workerId],
        );
        await pool.query(`SELECT pg_notify('${CHANNEL}', $1)`, [row.run_id]);
      },
      async handOver() {
        stop();
        await pool.query(
          `WITH r AS (UPDATE glassbox_runs SET lease_expires_at = clock_timestamp()
             WHERE run_id = $1 AND worker_id = $2 AND state = 'running' RETURNING run_id)
           SELECT pg_notify('${CHANNEL}', run_id) FROM r`,
          [row.run_id, workerId],
        );
      },
    };
  }
}
