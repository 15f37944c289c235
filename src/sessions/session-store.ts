// The storage contract. The loop, the CLI and the web viewer only see this interface, so another
// backend can replace the JSONL files later without touching them.

import type { WireApi } from '../model/index.js';
import type { ListProblem, SessionProblem } from '../protocol/index.js';
import type { NewSessionRecord, SessionMetaRecord, SessionParent, SessionRecord, SessionRecordType } from './session-records.js';
import type { SessionSummary } from './session-summary.js';

export interface NewSessionMeta {
  /** Defaults to a fresh UUIDv7. */
  sessionId?: string;
  /** Defaults to now. */
  createdAt?: string;
  cwd: string;
  model: string;
  wireApi: WireApi;
  parent?: SessionParent | null;
  glassboxVersion: string;
}

export interface ScanRecordOptions {
  /**
   * Record types the caller does not need. Writers put `type` first on every line, so such lines
   * are recognised by their prefix and never parsed — replay skips audit records this way. A line
   * that does not start with `{"type":"` is parsed as usual.
   */
  skipTypes?: ReadonlySet<SessionRecordType>;
}

/** A line that could not be used. Reading goes on past it (protocol/'s: the API serves them). */
export type { SessionProblem } from '../protocol/index.js';

/** What a scan of a session learns besides the records it hands out. */
export interface SessionScan {
  meta: SessionMetaRecord;
  problems: SessionProblem[];
  /** An unterminated last line (a write cut short by a crash): ignored, and cut off by the next writer. */
  tornTail: { line: number; bytes: number } | null;
}

export interface SessionContents extends SessionScan {
  /** Every usable record in file order, the meta record first. */
  records: SessionRecord[];
}

export interface RecordPageOptions {
  /** From a previous page's `nextCursor`; omitted or null for the first page. */
  cursor?: string | null;
  /** Records per page (default 200). */
  limit?: number;
}

export interface RecordPage {
  entries: { line: number; record: SessionRecord }[];
  problems: SessionProblem[];
  /** null once the end of the session was reached. */
  nextCursor: string | null;
}

export interface ListSessionsOptions {
  /** Case-insensitive substring of the id, title, cwd or model. */
  query?: string;
  limit?: number;
  cursor?: string | null;
}

export type { ListProblem } from '../protocol/index.js';

export interface SessionList {
  /** Newest updated first. */
  sessions: SessionSummary[];
  nextCursor: string | null;
  /** Sessions that exist but could not be summarised (e.g. no readable first line). */
  problems: ListProblem[];
}

/**
 * Appends records to one session. Appends are serialised: concurrent calls never interleave and
 * land in call order. The writer holds the session's lock until `close`.
 */
export interface SessionWriter {
  readonly sessionId: string;
  /** Validate, stamp `ts` when missing, and append one record as one whole line. */
  append(record: NewSessionRecord): Promise<SessionRecord>;
  /** Make everything appended so far durable and publish the session's summary; call at turn end. */
  sync(): Promise<void>;
  /** Publish the summary, close the file and release the lock. Idempotent. */
  close(): Promise<void>;
  /**
   * Another process may hold the session now (a team worker lost its run): refuse every append
   * and sync from now on, at once and locally, and publish nothing at `close`. A batch already
   * being written cannot be called back; the store's own fence (a lease) covers that one.
   * Optional for a library's own store.
   */
  revoke?(reason: string): void;
}

/** A whole session that passed every line check (session-import.ts): what `importSession` stores. */
export interface CheckedSession {
  meta: SessionMetaRecord;
  /** The lines without their newlines, exactly as given. */
  lines: readonly string[];
  /** What a listing shows, as the session's writer would have published it. */
  summary: SessionSummary;
}

export interface SessionStore {
  /** Where sessions live, as shown in messages: a directory, or `memory`. */
  readonly location: string;
  create(meta: NewSessionMeta): Promise<SessionWriter>;
  /** Take the lock, cut off a torn last line, and append after the existing records. */
  openForAppend(sessionId: string): Promise<SessionWriter>;
  /**
   * `openForAppend`, handing every usable record to `onRecord` as `scan` would: in one read of the
   * session where the store can (a resume of a 20 MB session otherwise parses it twice).
   */
  openAndReplay(
    sessionId: string,
    onRecord: (record: SessionRecord, line: number) => void,
    options?: ScanRecordOptions,
  ): Promise<{ writer: SessionWriter; scan: SessionScan }>;
  read(sessionId: string): Promise<SessionContents>;
  /**
   * Hand every usable record (meta first) to `onRecord` in file order without keeping them:
   * the way to replay or summarise a long session in one pass and little memory.
   */
  scan(sessionId: string, onRecord: (record: SessionRecord, line: number) => void, options?: ScanRecordOptions): Promise<SessionScan>;
  readPage(sessionId: string, options?: RecordPageOptions): Promise<RecordPage>;
  /**
   * A token that differs whenever the session's records may have changed (an append, a torn line
   * cut off, a delete and re-import), found without reading the records: what a cache of
   * something worked out from them is keyed by.
   */
  revision(sessionId: string): Promise<string>;
  list(options?: ListSessionsOptions): Promise<SessionList>;
  /** `last` (newest updated), a unique id prefix, or a full id → the full id. */
  resolveId(reference: string): Promise<string>;
  /**
   * Remove a session for good. Takes the session's lock first, so a session a writer has open
   * (this process or another) is refused with `SESSION_LOCKED` rather than pulled from under it.
   * Forks of it keep their own copy of the history they share; they only lose the parent link.
   */
  delete(sessionId: string): Promise<void>;
  /**
   * Every complete line of the session exactly as stored, without its newline, in order (problem
   * lines included, a torn last line not): the raw export, byte-for-byte what the file store holds.
   */
  exportLines(sessionId: string, onLine: (text: string) => void): Promise<void>;
  /**
   * Store a whole session from its lines (`checkSessionLines` in session-import.ts runs first),
   * so that `exportLines` gives them back unchanged. A session id the store already holds is
   * refused, and a refused import leaves nothing behind.
   */
  importSession(lines: readonly string[], source: string): Promise<CheckedSession>;
}
