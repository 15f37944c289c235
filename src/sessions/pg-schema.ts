// The PostgreSQL schema of Glassbox (sessions, and runs for runner/'s queue), as numbered migrations. `migratePgSchema` applies the
// missing ones in one transaction under an advisory lock, so several processes that start at once
// against one database migrate it exactly once, and a database migrated by a newer glassbox is
// refused instead of written in a shape this one does not know.

import type { PoolClient } from 'pg';
import { SessionError } from './session-errors.js';

/** Any fixed 64-bit key: it only has to be the same in every glassbox process. */
const MIGRATION_LOCK_KEY = '7426173012945011029';

/** SQLSTATE raised by the append function when the caller does not hold the session's lease. */
export const LEASE_LOST_SQLSTATE = 'GBL01';

const MIGRATIONS: readonly string[] = [
  // 1: sessions, their records (one row per line, the line's exact text), and the writer's lease.
  `
  CREATE TABLE glassbox_sessions (
    session_id text PRIMARY KEY,
    -- Lines so far; the next record is line line_count + 1.
    line_count integer NOT NULL,
    -- The summary a listing shows, published by the writer at sync and close (null until then).
    summary jsonb,
    created_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE TABLE glassbox_session_records (
    session_id text NOT NULL REFERENCES glassbox_sessions (session_id) ON DELETE CASCADE,
    line integer NOT NULL,
    body text NOT NULL,
    PRIMARY KEY (session_id, line)
  );
  CREATE TABLE glassbox_session_leases (
    session_id text PRIMARY KEY REFERENCES glassbox_sessions (session_id) ON DELETE CASCADE,
    -- A random token per writer: the fencing value every append is checked against.
    owner text NOT NULL,
    pid integer NOT NULL,
    host text NOT NULL,
    started_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL
  );
  -- One round trip per batch: checks the lease, numbers the lines after the last one, inserts them.
  CREATE FUNCTION glassbox_append_records(p_session text, p_owner text, p_bodies text[]) RETURNS integer
  LANGUAGE plpgsql AS $$
  DECLARE
    first_line integer;
  BEGIN
    PERFORM 1 FROM glassbox_session_leases
      WHERE session_id = p_session AND owner = p_owner AND expires_at > clock_timestamp();
    IF NOT FOUND THEN
      RAISE EXCEPTION 'this writer no longer holds the lease of session %', p_session USING ERRCODE = '${LEASE_LOST_SQLSTATE}';
    END IF;
    UPDATE glassbox_sessions SET line_count = line_count + cardinality(p_bodies)
      WHERE session_id = p_session RETURNING line_count - cardinality(p_bodies) + 1 INTO first_line;
    INSERT INTO glassbox_session_records (session_id, line, body)
      SELECT p_session, first_line + ordinality - 1, body FROM unnest(p_bodies) WITH ORDINALITY AS t(body, ordinality);
    RETURN first_line;
  END $$;
  `,
  // 2: runs waiting for a worker, and the lease of the worker working one (runner/'s PgRunQueue).
  `
  CREATE TABLE glassbox_runs (
    run_id text PRIMARY KEY,
    payload jsonb NOT NULL,
    state text NOT NULL CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
    worker_id text,
    worker_host text,
    worker_pid integer,
    lease_expires_at timestamptz,
    attempts integer NOT NULL DEFAULT 0,
    result jsonb,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
  );
  CREATE INDEX glassbox_runs_open ON glassbox_runs (created_at) WHERE state IN ('queued', 'running');
  `,
  // 3: what `serve --database-url` shares between servers and workers (server/'s pg-run-*.ts): a
  // run's session and cancellation, its committed events (numbered as its SSE stream numbers them;
  // text deltas are never stored), and the approvals its worker waits for.
  `
  ALTER TABLE glassbox_runs ADD COLUMN session_id text;
  ALTER TABLE glassbox_runs ADD COLUMN cancel_reason text;
  -- One open run per session, across the deployment (the in-process server's busy-session rule).
  CREATE UNIQUE INDEX glassbox_runs_open_session ON glassbox_runs (session_id)
    WHERE session_id IS NOT NULL AND state IN ('queued', 'running');
  CREATE TABLE glassbox_run_events (
    run_id text NOT NULL REFERENCES glassbox_runs (run_id) ON DELETE CASCADE,
    id integer NOT NULL,
    -- The event's JSON exactly as every server sends it (text, not jsonb, which reorders keys).
    body text NOT NULL,
    PRIMARY KEY (run_id, id)
  );
  CREATE TABLE glassbox_approvals (
    run_id text NOT NULL REFERENCES glassbox_runs (run_id) ON DELETE CASCADE,
    call_id text NOT NULL,
    -- The request as GET /api/approvals shows it (agent/'s PendingApproval).
    pending jsonb NOT NULL,
    state text NOT NULL CHECK (state IN ('pending', 'resolved', 'closed')),
    -- {decision, by, message} once answered.
    resolution jsonb,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (run_id, call_id)
  );
  `,
];

/** The schema version this glassbox writes. */
export const PG_SCHEMA_VERSION = MIGRATIONS.length;

export async function migratePgSchema(client: PoolClient): Promise<{ from: number; to: number }> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS glassbox_schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const result = await client.query<{ version: number | null }>('SELECT max(version) AS version FROM glassbox_schema_migrations');
    const from = result.rows[0]?.version ?? 0;
    if (from > PG_SCHEMA_VERSION) {
      throw new SessionError(
        'SESSION_UNSUPPORTED',
        `the database's glassbox schema is version ${from}, newer than this glassbox knows (${PG_SCHEMA_VERSION}); upgrade glassbox`,
        { exitCode: 2 },
      );
    }
    for (let version = from + 1; version <= PG_SCHEMA_VERSION; version += 1) {
      await client.query(MIGRATIONS[version - 1]!);
      await client.query('INSERT INTO glassbox_schema_migrations (version) VALUES ($1)', [version]);
    }
    await client.query('COMMIT');
    return { from, to: Math.max(from, PG_SCHEMA_VERSION) };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
