// A store that keeps each session as an array of serialised lines in memory. Records still go
// through the same serialisation, validation and line parsing as on disk, so tests that use it
// exercise the real format, only without files, cross-process locks or an index.

import { hostname } from 'node:os';
import { RecordScanner, type ScanRecordOptions, readByScan } from './record-lines.js';
import { SessionError, SessionLockedError, SessionNotFoundError, type LockOwner } from './session-errors.js';
import { newSessionId } from './session-id.js';
import { type CheckedSession, checkSessionLines, sessionExistsError } from './session-import.js';
import { pageSummaries, resolveSessionReference, validateLimit } from './session-listing.js';
import type { SessionRecord } from './session-records.js';
import type {
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
import { buildMetaRecord, prepareRecord, SerialSessionWriter } from './session-writer.js';

const DEFAULT_PAGE_SIZE = 200;

interface MemorySession {
  /** Serialised records without their newlines. */
  lines: string[];
  lockedBy: LockOwner | null;
  /** Which creation of this id it is: a deleted session made again is another revision. */
  generation: number;
}

class MemorySessionWriter extends SerialSessionWriter {
  constructor(
    sessionId: string,
    private readonly session: MemorySession,
    now: () => Date,
  ) {
    super(sessionId, now);
  }

  protected async writeLines(lines: readonly string[]): Promise<void> {
    for (const line of lines) this.session.lines.push(line.slice(0, -1));
  }

  protected async flush(): Promise<void> {
    // Memory is as durable as this store gets, and summaries are computed when listing.
  }

  protected async finish(): Promise<void> {
    this.session.lockedBy = null;
  }
}

export interface MemorySessionStoreOptions {
  now?: () => Date;
  newId?: () => string;
}

export class MemorySessionStore implements SessionStore {
  readonly location = 'memory';
  private readonly sessions = new Map<string, MemorySession>();
  private readonly now: () => Date;
  private readonly newId: () => string;
  private created = 0;

  constructor(options: MemorySessionStoreOptions = {}) {
    this.now = options.now ?? (() => new Date());
    this.newId = options.newId ?? newSessionId;
  }

  async create(input: NewSessionMeta): Promise<SessionWriter> {
    const meta = buildMetaRecord(input, this.now, this.newId);
    if (this.sessions.has(meta.sessionId)) {
      throw new SessionError('SESSION_INVALID_ARGUMENT', `session ${meta.sessionId} already exists in memory`, { exitCode: 2 });
    }
    const session: MemorySession = { lines: [prepareRecord(meta, this.now).line.slice(0, -1)], lockedBy: null, generation: ++this.created };
    this.sessions.set(meta.sessionId, session);
    return this.lock(meta.sessionId, session);
  }

  async openForAppend(sessionId: string): Promise<SessionWriter> {
    return this.lock(sessionId, this.session(sessionId));
  }

  async openAndReplay(
    sessionId: string,
    onRecord: (record: SessionRecord, line: number) => void,
    options?: ScanRecordOptions,
  ): Promise<{ writer: SessionWriter; scan: SessionScan }> {
    const writer = await this.openForAppend(sessionId);
    try {
      return { writer, scan: await this.scan(sessionId, onRecord, options) };
    } catch (error) {
      await writer.close();
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
    const scanner = new RecordScanner(sessionId, `memory:${sessionId}`, onRecord, options);
    for (const [index, text] of this.session(sessionId).lines.entries()) scanner.add(index + 1, text);
    return scanner.finish(null);
  }

  async readPage(sessionId: string, options: RecordPageOptions = {}): Promise<RecordPage> {
    validateLimit(options.limit, 'page limit');
    const limit = options.limit ?? DEFAULT_PAGE_SIZE;
    const { lines } = this.session(sessionId);
    const startLine = options.cursor ? Number(options.cursor) : 1;
    if (!Number.isSafeInteger(startLine) || startLine < 1 || startLine > lines.length + 1) {
      throw new SessionError('SESSION_INVALID_ARGUMENT', `invalid record page cursor: ${options.cursor}`, { exitCode: 2 });
    }
    const entries: RecordPage['entries'] = [];
    const scanner = new RecordScanner(sessionId, `memory:${sessionId}`, (record, line) => entries.push({ line, record }));
    let line = startLine;
    for (; line <= lines.length && entries.length < limit; line += 1) scanner.add(line, lines[line - 1]!);
    return { entries, problems: scanner.problems, nextCursor: line <= lines.length ? String(line) : null };
  }

  async list(options: ListSessionsOptions = {}): Promise<SessionList> {
    const summaries: SessionSummary[] = [];
    const problems: SessionList['problems'] = [];
    for (const sessionId of this.sessions.keys()) {
      try {
        const state: { builder: SessionSummaryBuilder | null } = { builder: null };
        await this.scan(sessionId, (record) => {
          if (record.type === 'session_meta') state.builder = new SessionSummaryBuilder(record);
          else state.builder?.add(record);
        });
        if (state.builder !== null) summaries.push(state.builder.snapshot());
      } catch (error) {
        problems.push({ sessionId, message: (error as Error).message });
      }
    }
    return { ...pageSummaries(summaries, options), problems };
  }

  async resolveId(reference: string): Promise<string> {
    return resolveSessionReference(
      reference,
      this.location,
      async () => [...this.sessions.keys()],
      async () => (await this.list({ limit: 1 })).sessions[0]?.sessionId ?? null,
    );
  }

  async revision(sessionId: string): Promise<string> {
    const session = this.session(sessionId);
    // Lines are only ever appended here.
    return `${session.generation}:${session.lines.length}`;
  }

  async delete(sessionId: string): Promise<void> {
    const session = this.session(sessionId);
    if (session.lockedBy !== null) throw new SessionLockedError(sessionId, session.lockedBy);
    this.sessions.delete(sessionId);
  }

  async exportLines(sessionId: string, onLine: (text: string) => void): Promise<void> {
    for (const text of this.session(sessionId).lines) onLine(text);
  }

  async importSession(lines: readonly string[], source: string): Promise<CheckedSession> {
    const checked = checkSessionLines(lines, source);
    const sessionId = checked.meta.sessionId;
    if (this.sessions.has(sessionId)) throw sessionExistsError(sessionId, this.location);
    this.sessions.set(sessionId, { lines: [...checked.lines], lockedBy: null, generation: ++this.created });
    return checked;
  }

  private session(sessionId: string): MemorySession {
    const session = this.sessions.get(sessionId);
    if (session === undefined) throw new SessionNotFoundError(sessionId, this.location);
    return session;
  }

  private lock(sessionId: string, session: MemorySession): SessionWriter {
    if (session.lockedBy !== null) throw new SessionLockedError(sessionId, session.lockedBy);
    session.lockedBy = { pid: process.pid, host: hostname(), startedAt: this.now().toISOString() };
    return new MemorySessionWriter(sessionId, session, this.now);
  }
}
