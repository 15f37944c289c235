import type { Pool } from 'pg';
import { LEASE_LOST_SQLSTATE } from './pg-schema.js';
import { SessionError } from './session-errors.js';
import type { SessionRecord } from './session-records.js';
import type { SessionSummaryBuilder } from './session-summary.js';
import { SerialSessionWriter } from './session-writer.js';

/** A writer's claim on one session: `token` fences its appends; the rest says who holds it. */
export interface PgLease {
  token: string;
  pid: number;
  host: string;
}

/**
 * Appends a batch of lines with one call of `glassbox_append_records` (one round trip, which checks
 * the lease in the same statement), renews the lease on a timer while open, and publishes the
 * summary with a synchronous commit at `sync` and `close`.
 */
export class PgSessionWriter extends SerialSessionWriter {
  private dirty = true;
  /** The lease row was given up by `revoke`. */
  private released = false;
  private readonly heartbeat: NodeJS.Timeout;

  constructor(
    sessionId: string,
    private readonly pool: Pool,
    private readonly lease: PgLease,
    private readonly summary: SessionSummaryBuilder,
    now: () => Date,
    leaseMs: number,
  ) {
    super(sessionId, now);
    // Renewing at a third of the lease leaves two missed renewals (a slow query, a GC pause) before
    // it expires. A failed renewal is not fatal here: if the lease really lapsed and was taken,
    // the next append is refused by the database, which is what keeps the session whole. A lease
    // that lapsed is not renewed (nobody may have taken it yet, but a takeover may be deciding on
    // it), and one gone or lapsed revokes this writer at once, before any append asks the database.
    this.heartbeat = setInterval(
      () => {
        void this.pool
          .query(
            `UPDATE glassbox_session_leases SET expires_at = clock_timestamp() + $3 * interval '1 millisecond'
             WHERE session_id = $1 AND owner = $2 AND expires_at > clock_timestamp()`,
            [sessionId, lease.token, leaseMs],
          )
          .then((result) => {
            if (result.rowCount === 0) this.revoke('its lease lapsed or was taken');
          })
          .catch(() => undefined);
      },
      Math.max(1, Math.floor(leaseMs / 3)),
    );
    this.heartbeat.unref();
  }

  /**
   * A writer that may write nothing more keeps no lease: renewing it would only make whoever holds
   * the session now wait for this turn to end (a worker that lost its run before the turn named
   * the session deleted no lease row). The row goes at once, fenced on this writer's token, which
   * also refuses a batch still on its way to the database.
   */
  override revoke(reason: string): void {
    super.revoke(reason);
    if (this.released) return;
    this.released = true;
    clearInterval(this.heartbeat);
    void this.pool
      .query('DELETE FROM glassbox_session_leases WHERE session_id = $1 AND owner = $2', [this.sessionId, this.lease.token])
      .catch(() => undefined);
  }

  protected async writeLines(lines: readonly string[], records: readonly SessionRecord[]): Promise<void> {
    try {
      await this.pool.query('SELECT glassbox_append_records($1, $2, $3)', [
        this.sessionId,
        this.lease.token,
        lines.map((line) => line.slice(0, -1)),
      ]);
    } catch (error) {
      if ((error as { code?: unknown }).code === LEASE_LOST_SQLSTATE) {
        throw new SessionError('SESSION_LOCKED', `the lease on session ${this.sessionId} expired and another writer took it`);
      }
      throw error;
    }
    for (const record of records) this.summary.add(record);
    this.dirty = true;
  }

  protected async flush(): Promise<void> {
    await this.publishSummary();
  }

  protected async finish(healthy: boolean): Promise<void> {
    clearInterval(this.heartbeat);
    try {
      if (healthy) await this.publishSummary();
    } finally {
      // If this fails (the database went away) the lease simply expires.
      await this.pool
        .query('DELETE FROM glassbox_session_leases WHERE session_id = $1 AND owner = $2', [this.sessionId, this.lease.token])
        .catch(() => undefined);
    }
  }

  /**
   * A synchronous commit: it waits for the WAL flush, which covers every asynchronous append
   * committed before it, so after `sync` the session's records are durable.
   */
  private async publishSummary(): Promise<void> {
    // Not dirty means nothing was appended since the last synchronous commit covered it all.
    if (!this.dirty) return;
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      try {
        await client.query('SET LOCAL synchronous_commit TO on');
        // Fenced like an append: a writer whose lease was taken must not overwrite the new holder's summary.
        await client.query(
          `UPDATE glassbox_sessions SET summary = $3 WHERE session_id = $1
           AND EXISTS (SELECT 1 FROM glassbox_session_leases WHERE session_id = $1 AND owner = $2)`,
          [this.sessionId, this.lease.token, JSON.stringify(this.summary.snapshot())],
        );
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    } finally {
      client.release();
    }
    this.dirty = false;
  }
}
