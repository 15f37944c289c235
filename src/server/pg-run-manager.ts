// The team server's runs (`serve --database-url`): the run routes' backend over PostgreSQL. A run
// started here is a queued row (runner/'s PgRunQueue); whichever worker claims it writes its events
// to glassbox_run_events and announces them (pg-run-worker.ts), and any server streams them:
// stored events after Last-Event-ID from the table, then live ones through this process's LISTEN
// connection (pg-run-bus.ts). Cancelling is a flag on the row and a NOTIFY to its worker.

import { isTerminalEvent } from '../agent/index.js';
import { emptyUsage } from '../model/index.js';
import type { Pool } from 'pg';
import type { PgRunQueue, QueuedRunState } from '../runner/index.js';
import { HttpError } from './http-error.js';
import { CANCELS_CHANNEL, EVENTS_CHANNEL, type PgRunBus, readRunEvents } from './pg-run-bus.js';
import type { RunBackend, RunEventSource, RunView } from './run-backend.js';
import type { EventSubscriber, NumberedEvent } from './run-event-log.js';
import type { CancelOutcome, RunListOptions, RunListPage, RunParameters, RunStatus } from './run-manager.js';

const UNIQUE_VIOLATION = '23505';

/** What a queued row's payload holds. */
export interface QueuedRunPayload {
  parameters: RunParameters;
}

interface RunRow {
  run_id: string;
  session_id: string | null;
  state: QueuedRunState;
  payload: QueuedRunPayload;
  worker_id: string | null;
  worker_host: string | null;
  worker_pid: number | null;
  attempts: number;
  created_at: Date;
  last_id: number | null;
}

function statusOf(state: QueuedRunState): RunStatus {
  return state === 'queued' ? 'running' : state;
}

/** A run's events read from the database: stored ones first, then what the bus announces. */
class PgRunEvents implements RunEventSource {
  constructor(
    private readonly pool: Pool,
    private readonly bus: PgRunBus,
    private readonly runId: string,
    private readonly storedLastId: number,
    readonly finished: boolean,
  ) {}

  /** Deltas are numbered but not stored, so before the end any id may be one the client saw. */
  get lastId(): number {
    return this.finished ? this.storedLastId : Number.MAX_SAFE_INTEGER;
  }

  subscribe(afterId: number, subscriber: EventSubscriber): () => void {
    let cursor = afterId;
    let ended = false;
    let ready = false;
    const early: NumberedEvent[] = [];
    const deliver = (entry: NumberedEvent): void => {
      if (ended || entry.id <= cursor) return;
      cursor = entry.id;
      subscriber.onEvent(entry);
      if (isTerminalEvent(entry.event)) end();
    };
    const end = (): void => {
      if (ended) return;
      ended = true;
      stop();
      subscriber.onEnd();
    };
    // Watch first, then read the table: whatever commits in between arrives twice and is dropped by id.
    const stop = this.bus.watch(this.runId, afterId, (entry) => (ready ? deliver(entry) : early.push(entry)));
    void this.bus
      .ready()
      .then(() => readRunEvents(this.pool, this.runId, afterId))
      .then((stored) => {
        for (const entry of stored) deliver(entry);
        ready = true;
        for (const entry of early.sort((a, b) => a.id - b.id)) deliver(entry);
      })
      // The client re-attaches with Last-Event-ID and loses nothing.
      .catch(end);
    return () => {
      ended = true;
      stop();
    };
  }
}

const RUN_CURSOR = /^[\x21-\x7e]{1,100}$/;

export class PgRunManager implements RunBackend {
  private readonly busySessions = new Set<string>();

  constructor(
    private readonly pool: Pool,
    private readonly bus: PgRunBus,
    private readonly queue: PgRunQueue,
  ) {}

  async start(parameters: RunParameters): Promise<RunView> {
    const runId = crypto.randomUUID();
    try {
      await this.queue.enqueue({ parameters } satisfies QueuedRunPayload, runId, parameters.sessionId);
    } catch (error) {
      if ((error as { code?: unknown }).code === UNIQUE_VIOLATION) {
        throw new HttpError(409, `session ${parameters.sessionId} already has an active run; wait for it or cancel it`);
      }
      throw error;
    }
    return { runId, sessionId: parameters.sessionId, log: new PgRunEvents(this.pool, this.bus, runId, 0, false) };
  }

  async get(runId: string): Promise<RunView | undefined> {
    const row = (await this.rows('WHERE r.run_id = $1', [runId]))[0];
    if (row === undefined) return undefined;
    const finished = row.state !== 'queued' && row.state !== 'running';
    return { runId, sessionId: row.session_id, log: new PgRunEvents(this.pool, this.bus, runId, row.last_id ?? 0, finished) };
  }

  /**
   * The deployment's runs, newest first, `limit` at a time, each with the worker that holds (or
   * held) it. The cursor is the last listed run's id: the next page is the runs created before it,
   * so runs queued meanwhile never shift a page (they are newer than every cursor).
   */
  async list(options: RunListOptions): Promise<RunListPage> {
    const values: unknown[] = [options.limit + 1];
    let where = '';
    if (options.cursor !== null) {
      // Run ids are printable ASCII: anything else (a NUL, a lone surrogate) would make the query
      // itself fail, a server error for the client's mistake.
      if (!RUN_CURSOR.test(options.cursor)) throw new HttpError(400, 'invalid runs cursor: not a run id');
      const known = await this.pool.query('SELECT 1 FROM glassbox_runs WHERE run_id = $1', [options.cursor]);
      if (known.rowCount !== 1) throw new HttpError(400, `invalid runs cursor: ${options.cursor}`);
      values.push(options.cursor);
      where = 'WHERE (r.created_at, r.run_id) < (SELECT c.created_at, c.run_id FROM glassbox_runs c WHERE c.run_id = $2)';
    }
    const rows = await this.rows(where, values, 'ORDER BY r.created_at DESC, r.run_id DESC LIMIT $1');
    const page = rows.slice(0, options.limit);
    const runs = page.map((row) => ({
      runId: row.run_id,
      sessionId: row.session_id ?? '',
      status: statusOf(row.state),
      startedAt: row.created_at.toISOString(),
      prompt: row.payload.parameters.prompt,
      state: row.state,
      attempts: row.attempts,
      worker: row.worker_id === null ? null : { id: row.worker_id, host: row.worker_host ?? '', pid: row.worker_pid ?? 0 },
    }));
    return { runs, nextCursor: rows.length > page.length ? page.at(-1)!.run_id : null };
  }

  /**
   * A queued run is cancelled here and now (its terminal event stored); a running one is flagged
   * and its worker told, which aborts it as a local cancel would.
   */
  async cancel(runId: string, reason: string): Promise<CancelOutcome> {
    const result = await this.pool.query<{ state: QueuedRunState }>(
      `UPDATE glassbox_runs SET cancel_reason = $2, updated_at = clock_timestamp(),
         state = CASE WHEN state = 'queued' THEN 'cancelled' ELSE state END
       WHERE run_id = $1 AND state IN ('queued', 'running') RETURNING state`,
      [runId, reason],
    );
    const state = result.rows[0]?.state;
    if (state === undefined) return (await this.rows('WHERE r.run_id = $1', [runId])).length === 0 ? 'unknown' : 'finished';
    if (state === 'cancelled') {
      const terminal = { type: 'run_cancelled', reason, usage: { total: emptyUsage(), byStage: {}, calls: 0 }, rounds: 0 };
      await this.pool.query(
        `WITH e AS (INSERT INTO glassbox_run_events (run_id, id, body)
           SELECT $1, coalesce(max(id), 0) + 1, $2 FROM glassbox_run_events WHERE run_id = $1 RETURNING id)
         SELECT pg_notify('${EVENTS_CHANNEL}', $1 || ':' || id) FROM e`,
        [runId, JSON.stringify(terminal)],
      );
    } else {
      await this.pool.query(`SELECT pg_notify('${CANCELS_CHANNEL}', $1)`, [runId]);
    }
    return 'cancelled';
  }

  reserveSession(sessionId: string): (() => void) | null {
    if (this.busySessions.has(sessionId)) return null;
    this.busySessions.add(sessionId);
    return () => this.busySessions.delete(sessionId);
  }

  isSessionBusy(sessionId: string): boolean {
    return this.busySessions.has(sessionId);
  }

  async close(): Promise<void> {}

  private async rows(where: string, values: unknown[], order = 'ORDER BY r.created_at'): Promise<RunRow[]> {
    const result = await this.pool.query<RunRow>(
      `SELECT r.run_id, r.session_id, r.state, r.payload, r.worker_id, r.worker_host, r.worker_pid, r.attempts, r.created_at,
         (SELECT max(id) FROM glassbox_run_events e WHERE e.run_id = r.run_id) AS last_id
       FROM glassbox_runs r ${where} ${order}`,
      values,
    );
    return result.rows;
  }
}
