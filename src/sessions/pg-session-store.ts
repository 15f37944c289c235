// Sessions in PostgreSQL, for a team's server where several processes share one database. One row
// per record holding the record's exact line, so reading goes through the same line checks as a
// file and an export is byte-for-byte what the JSONL store writes. Instead of a lock file, a writer
// holds a lease row (owner token, pid, host, expiry) that it renews while open: a crashed holder
// stops renewing and its lease is taken over once it expires, and every append checks the token in
// the same statement, so a writer whose lease was taken can never append after the new holder.

import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Pool, PoolClient } from 'pg';
import { sessionSummarySchema } from '../protocol/index.js';
import { pgPoolConfig } from './pg-connection.js';
import { migratePgSchema } from './pg-schema.js';
import { PgSessionWriter, type PgLease } from './pg-session-writer.js';
import { interpretLine, RecordScanner, type ScanRecordOptions, readByScan } from './record-lines.js';
import { SessionError, SessionLockedError, SessionNotFoundError } from './session-errors.js';
import { type CheckedSession, checkSessionLines, sessionExistsError } from './session-import.js';
import { isSessionId, newSessionId } from './session-id.js';
import { pageSummaries, resolveSessionReference, validateLimit } from './session-listing.js';
import { SESSION_FORMAT_VERSION, type SessionMetaRecord, type SessionRecord } from './session-records.js';
import type {
  ListProblem,
  ListSessionsOptions,
  NewSessionMeta,
  RecordPage,
  RecordPageOptions,
  SessionContents,
  SessionList,
  SessionScan,
  SessionStore,
  SessionWriter,
} from './session-store.js';
import { SessionSummaryBuilder, type SessionSummary } from './session-summary.js';
import { buildMetaRecord, prepareRecord } from './session-writer.js';

const DEFAULT_PAGE_SIZE = 200;
/** Rows fetched per query while scanning: bounded memory for a long session, few round trips. */
const SCAN_CHUNK = 1000;
const DEFAULT_LEASE_MS = 15_000;
const FOREIGN_KEY_VIOLATION = '23503';

export interface PgSessionStoreOptions {
  now?: () => Date;
  newId?: () => string;
  /** How long a writer's lease lasts without renewal (default 15 s); it is renewed every third of it. */
  leaseMs?: number;
  /** Connections in the pool (default 4). */
  maxConnections?: number;
}

/**
 * Where the database is, for messages: scheme, host, port and database name only. The URL itself
 * is a secret (it may carry a password, in the user part or as a query parameter).
 */
export function describeDatabaseUrl(url: string): string {
  const match = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)([^?#]*)/i.exec(url.trim());
  // An `@` past the authority means a password with a raw `/` in it: show nothing of it.
  if (match === null || url.slice(match[0].length).includes('@') || match[3]!.includes('@')) return 'postgres database';
  const authority = match[2]!;
  // Everything up to the last `@` of the authority is user and password.
  const host = authority.slice(authority.lastIndexOf('@') + 1);
  return `${match[1]!.toLowerCase()}://${host}${match[3]!}`;
}

function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

export class PgSessionStore implements SessionStore {
  readonly location: string;
  private readonly now: () => Date;
  private readonly newId: () => string;
  private readonly leaseMs: number;

  private constructor(
    private readonly pool: Pool,
    location: string,
    options: PgSessionStoreOptions,
  ) {
    this.location = location;
    this.now = options.now ?? (() => new Date());
    this.newId = options.newId ?? newSessionId;
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  }

  /** Connect, create or migrate the schema, and return the store. `pg` loads only here. */
  static async open(databaseUrl: string, options: PgSessionStoreOptions = {}): Promise<PgSessionStore> {
    const { default: pg } = await import('pg');
    const pool = new pg.Pool(
      pgPoolConfig(pg.Client, databaseUrl, {
        max: options.maxConnections ?? 4,
        // Appends commit without waiting for the WAL flush (one record costs a round trip, not a
        // disk flush); `sync` commits synchronously, which flushes everything before it too — the
        // file store's write-then-fsync-at-turn-end, in database terms.
        options: '-c synchronous_commit=off',
        // Idle connections must not keep a finished CLI process alive.
        allowExitOnIdle: true,
      }),
    );
    // A dropped idle connection is replaced by the pool; without a listener it would crash the process.
    pool.on('error', () => undefined);
    const store = new PgSessionStore(pool, describeDatabaseUrl(databaseUrl), options);
    try {
      await store.withClient((client) => migratePgSchema(client));
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw error;
    }
    return store;
  }

  /** Close the pool. Writers still open stop renewing their leases, which then expire. */
  async close(): Promise<void> {
    await this.pool.end();
  }

  async create(input: NewSessionMeta): Promise<SessionWriter> {
    const meta = buildMetaRecord(input, this.now, this.newId);
    const first = prepareRecord(meta, this.now);
    const owner = this.newOwner();
    // One statement: the session, its lease and line 1 appear together or not at all.
    const result = await this.pool.query<{ created: string }>(
      `WITH s AS (
         INSERT INTO glassbox_sessions (session_id, line_count) VALUES ($1, 1) ON CONFLICT DO NOTHING RETURNING session_id
       ), l AS (
         INSERT INTO glassbox_session_leases (session_id, owner, pid, host, started_at, expires_at)
         SELECT session_id, $2, $3, $4, clock_timestamp(), clock_timestamp() + $5 * interval '1 millisecond' FROM s
       ), r AS (
         INSERT INTO glassbox_session_records (session_id, line, body) SELECT session_id, 1, $6 FROM s
       )
       SELECT count(*) AS created FROM s`,
      [meta.sessionId, owner.token, owner.pid, owner.host, this.leaseMs, first.line.slice(0, -1)],
    );
    if (Number(result.rows[0]?.created) !== 1) {
      throw new SessionError('SESSION_INVALID_ARGUMENT', `session ${meta.sessionId} already exists in ${this.location}`, { exitCode: 2 });
    }
    return new PgSessionWriter(meta.sessionId, this.pool, owner, new SessionSummaryBuilder(meta), this.now, this.leaseMs);
  }

  async openForAppend(sessionId: string): Promise<SessionWriter> {
    return (await this.openWithScanner(sessionId, null)).writer;
  }

  async openAndReplay(
    sessionId: string,
    onRecord: (record: SessionRecord, line: number) => void,
    options?: ScanRecordOptions,
  ): Promise<{ writer: SessionWriter; scan: SessionScan }> {
    return this.openWithScanner(sessionId, new RecordScanner(sessionId, this.source(sessionId), onRecord, options));
  }

  /** Take the lease, then read once: the summary for appending, and every line for `scanner` if given. */
  private async openWithScanner(sessionId: string, scanner: RecordScanner | null): Promise<{ writer: SessionWriter; scan: SessionScan }> {
    this.checkId(sessionId);
    const lease = await this.acquireLease(sessionId);
    try {
      const source = this.source(sessionId);
      const state: { meta: SessionMetaRecord | null; builder: SessionSummaryBuilder | null } = { meta: null, builder: null };
      // Each line is interpreted once and shared: the summary and the caller's replay agree, at one parse.
      await this.readLines(sessionId, 0, (line, text) => {
        const outcome = interpretLine(line, text, sessionId, source);
        scanner?.accept(line, outcome);
        if (outcome.kind !== 'record') return;
        if (outcome.record.type === 'session_meta') {
          state.meta = outcome.record;
          state.builder = new SessionSummaryBuilder(outcome.record);
        } else {
          state.builder?.add(outcome.record);
        }
      });
      if (state.meta === null || state.builder === null) {
        await this.lineCount(sessionId);
        throw new SessionError('SESSION_CORRUPT', `${source}: the session has no first line (session_meta)`);
      }
      const builder = state.builder;
      const scan: SessionScan = scanner === null ? { meta: state.meta, problems: [], tornTail: null } : scanner.finish(null);
      if (scan.meta.formatVersion > SESSION_FORMAT_VERSION) {
        throw new SessionError(
          'SESSION_UNSUPPORTED',
          `session ${sessionId} uses session format ${scan.meta.formatVersion}; this glassbox writes format ${SESSION_FORMAT_VERSION} and will not append to it`,
        );
      }
      const writer = new PgSessionWriter(sessionId, this.pool, lease, builder, this.now, this.leaseMs);
      return { writer, scan };
    } catch (error) {
      await this.releaseLease(sessionId, lease);
      throw error;
    }
  }

  read(sessionId: string): Promise<SessionContents> {
    return readByScan(this, sessionId);
  }

  async scan(
    sessionId: string,
    onRecord: (record: SessionRecord, line: number) => void,
    options?: ScanRecordOptions,
  ): Promise<SessionScan> {
    this.checkId(sessionId);
    const scanner = new RecordScanner(sessionId, this.source(sessionId), onRecord, options);
    const seen = await this.readLines(sessionId, 0, (line, text) => scanner.add(line, text));
    if (seen === 0) await this.lineCount(sessionId);
    return scanner.finish(null);
  }

  async readPage(sessionId: string, options: RecordPageOptions = {}): Promise<RecordPage> {
    validateLimit(options.limit, 'page limit');
    const limit = options.limit ?? DEFAULT_PAGE_SIZE;
    this.checkId(sessionId);
    const startLine = options.cursor ? Number(options.cursor) : 1;
    const lineCount = await this.lineCount(sessionId);
    if (!/^\d+$/.test(options.cursor || '1') || !Number.isSafeInteger(startLine) || startLine < 1 || startLine > lineCount + 1) {
      throw new SessionError('SESSION_INVALID_ARGUMENT', `invalid record page cursor: ${options.cursor}`, { exitCode: 2 });
    }
    const entries: RecordPage['entries'] = [];
    const scanner = new RecordScanner(sessionId, this.source(sessionId), (record, line) => entries.push({ line, record }));
    let next = startLine;
    let more: boolean;
    // Problem lines take no room on a page, so a page may need more rows than it holds records.
    for (;;) {
      const need = limit - entries.length;
      const rows = await this.fetchLines(sessionId, next - 1, need + 1);
      for (const row of rows.slice(0, need)) {
        scanner.add(row.line, row.body);
        next = row.line + 1;
      }
      if (rows.length <= need) {
        more = false;
        break;
      }
      if (entries.length >= limit) {
        more = true;
        break;
      }
    }
    return { entries, problems: scanner.problems, nextCursor: more ? String(next) : null };
  }

  async list(options: ListSessionsOptions = {}): Promise<SessionList> {
    validateLimit(options.limit, 'limit');
    const result = await this.pool.query<{ session_id: string; summary: unknown }>('SELECT session_id, summary FROM glassbox_sessions');
    const summaries: SessionSummary[] = [];
    const problems: ListProblem[] = [];
    for (const row of result.rows) {
      const published = sessionSummarySchema.safeParse(row.summary);
      if (published.success) {
        summaries.push(published.data);
        continue;
      }
      // Not published yet (its writer has not reached a turn end, or crashed before it): read it.
      try {
        summaries.push(await this.summarize(row.session_id));
      } catch (error) {
        if (!(error instanceof SessionNotFoundError)) problems.push({ sessionId: row.session_id, message: (error as Error).message });
      }
    }
    return { ...pageSummaries(summaries, options), problems };
  }

  async resolveId(reference: string): Promise<string> {
    const wanted = reference.trim().toLowerCase();
    return resolveSessionReference(
      reference,
      this.location,
      async () => {
        // Only hex digits and dashes get here, so the prefix holds no LIKE wildcard.
        const result = await this.pool.query<{ session_id: string }>(
          "SELECT session_id FROM glassbox_sessions WHERE session_id LIKE $1 || '%'",
          [wanted],
        );
        return result.rows.map((row) => row.session_id);
      },
      async () => (await this.list({ limit: 1 })).sessions[0]?.sessionId ?? null,
    );
  }

  async revision(sessionId: string): Promise<string> {
    this.checkId(sessionId);
    // Every append updates the session's row (its line count), which gives the row a new xmin; a
    // session deleted and imported again is a new row. Summary updates change it too, harmlessly.
    const result = await this.pool.query<{ line_count: number; xmin: string }>(
      'SELECT line_count, xmin::text AS xmin FROM glassbox_sessions WHERE session_id = $1',
      [sessionId],
    );
    const row = result.rows[0];
    if (row === undefined) throw new SessionNotFoundError(sessionId, this.location);
    return `${row.xmin}:${row.line_count}`;
  }

  async delete(sessionId: string): Promise<void> {
    this.checkId(sessionId);
    const lease = await this.acquireLease(sessionId);
    try {
      await this.withClient(async (client) => {
        await client.query('BEGIN');
        try {
          await client.query('SET LOCAL synchronous_commit TO on');
          // The records and the lease go with the session row (ON DELETE CASCADE).
          await client.query('DELETE FROM glassbox_sessions WHERE session_id = $1', [sessionId]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw error;
        }
      });
    } catch (error) {
      await this.releaseLease(sessionId, lease);
      throw error;
    }
  }

  async exportLines(sessionId: string, onLine: (text: string) => void): Promise<void> {
    this.checkId(sessionId);
    if ((await this.readLines(sessionId, 0, (_line, text) => onLine(text))) === 0) await this.lineCount(sessionId);
  }

  async importSession(lines: readonly string[], source: string): Promise<CheckedSession> {
    const checked = checkSessionLines(lines, source);
    const sessionId = checked.meta.sessionId;
    // One statement in a synchronous commit: the session, its summary and every line appear
    // together and durably, or (the id is taken) nothing does.
    const created = await this.withClient(async (client) => {
      await client.query('BEGIN');
      try {
        await client.query('SET LOCAL synchronous_commit TO on');
        const result = await client.query<{ created: string }>(
          `WITH s AS (
             INSERT INTO glassbox_sessions (session_id, line_count, summary) VALUES ($1, $2, $3)
             ON CONFLICT DO NOTHING RETURNING session_id
           ), r AS (
             INSERT INTO glassbox_session_records (session_id, line, body)
             SELECT s.session_id, t.line, t.body FROM s, unnest($4::text[]) WITH ORDINALITY AS t(body, line)
           )
           SELECT count(*) AS created FROM s`,
          [sessionId, checked.lines.length, JSON.stringify(checked.summary), checked.lines],
        );
        await client.query('COMMIT');
        return Number(result.rows[0]?.created) === 1;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
    if (!created) throw sessionExistsError(sessionId, this.location);
    return checked;
  }

  // -------------------------------------------------------------------------------------------

  private newOwner(): PgLease {
    return { token: randomUUID(), pid: process.pid, host: hostname() };
  }

  private source(sessionId: string): string {
    return `${this.location} session ${sessionId}`;
  }

  private checkId(sessionId: string): void {
    if (!isSessionId(sessionId)) throw new SessionNotFoundError(sessionId, this.location);
  }

  private async withClient<T>(task: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      return await task(client);
    } finally {
      client.release();
    }
  }

  /** A free lease, or an expired one (its holder crashed or hung), becomes ours; a live one refuses. */
  private async acquireLease(sessionId: string): Promise<PgLease> {
    const owner = this.newOwner();
    let taken: number;
    try {
      const result = await this.pool.query(
        `INSERT INTO glassbox_session_leases AS l (session_id, owner, pid, host, started_at, expires_at)
         VALUES ($1, $2, $3, $4, clock_timestamp(), clock_timestamp() + $5 * interval '1 millisecond')
         ON CONFLICT (session_id) DO UPDATE SET owner = EXCLUDED.owner, pid = EXCLUDED.pid, host = EXCLUDED.host,
           started_at = EXCLUDED.started_at, expires_at = EXCLUDED.expires_at
         WHERE l.expires_at <= clock_timestamp()
         RETURNING owner`,
        [sessionId, owner.token, owner.pid, owner.host, this.leaseMs],
      );
      taken = result.rowCount ?? 0;
    } catch (error) {
      if (sqlState(error) === FOREIGN_KEY_VIOLATION) throw new SessionNotFoundError(sessionId, this.location);
      throw error;
    }
    if (taken === 1) return owner;
    const holder = await this.pool.query<{ pid: number; host: string; started_at: Date }>(
      'SELECT pid, host, started_at FROM glassbox_session_leases WHERE session_id = $1',
      [sessionId],
    );
    const row = holder.rows[0];
    throw new SessionLockedError(sessionId, row ? { pid: row.pid, host: row.host, startedAt: row.started_at.toISOString() } : null);
  }

  private async releaseLease(sessionId: string, lease: PgLease): Promise<void> {
    await this.pool
      .query('DELETE FROM glassbox_session_leases WHERE session_id = $1 AND owner = $2', [sessionId, lease.token])
      .catch(() => undefined);
  }

  private async lineCount(sessionId: string): Promise<number> {
    const result = await this.pool.query<{ line_count: number }>('SELECT line_count FROM glassbox_sessions WHERE session_id = $1', [
      sessionId,
    ]);
    const row = result.rows[0];
    if (row === undefined) throw new SessionNotFoundError(sessionId, this.location);
    return row.line_count;
  }

  private async fetchLines(sessionId: string, afterLine: number, limit: number): Promise<{ line: number; body: string }[]> {
    const result = await this.pool.query<{ line: number; body: string }>(
      'SELECT line, body FROM glassbox_session_records WHERE session_id = $1 AND line > $2 ORDER BY line LIMIT $3',
      [sessionId, afterLine, limit],
    );
    return result.rows;
  }

  /** Hand every line after `afterLine` to `onLine`, a chunk at a time; returns how many there were. */
  private async readLines(sessionId: string, afterLine: number, onLine: (line: number, text: string) => void): Promise<number> {
    let after = afterLine;
    let seen = 0;
    for (;;) {
      const rows = await this.fetchLines(sessionId, after, SCAN_CHUNK);
      for (const row of rows) onLine(row.line, row.body);
      seen += rows.length;
      if (rows.length < SCAN_CHUNK) return seen;
      after = rows[rows.length - 1]!.line;
    }
  }

  private async summarize(sessionId: string): Promise<SessionSummary> {
    const state: { builder: SessionSummaryBuilder | null } = { builder: null };
    await this.scan(sessionId, (record) => {
      if (record.type === 'session_meta') state.builder = new SessionSummaryBuilder(record);
      else state.builder?.add(record);
    });
    return state.builder!.snapshot();
  }
}
