// Sessions as append-only JSONL files: `<home>/sessions/<id>.jsonl`, with `<id>.lock` while a
// writer has it open and `index.jsonl` caching one summary per session for listings.

import { link, mkdir, open, readdir, stat, truncate, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { JsonlSessionWriter } from './jsonl-session-writer.js';
import { isLineStart, scanLines, type FileLine, type LineScanResult, type ScanOptions } from './line-reader.js';
import { interpretLine, RecordScanner, type ScanRecordOptions, readByScan } from './record-lines.js';
import { SessionError, SessionNotFoundError } from './session-errors.js';
import { isSessionId, newSessionId } from './session-id.js';
import { type CheckedSession, checkSessionLines, sessionExistsError } from './session-import.js';
import { INDEX_FILE_NAME, SessionIndex } from './session-index.js';
import { pageSummaries, resolveSessionReference, validateLimit } from './session-listing.js';
import { acquireSessionLock } from './session-lock.js';
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

const SESSION_FILE_PATTERN = /^([0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12})\.jsonl$/;
const DEFAULT_HEAD_BYTES = 64 * 1024;
const DEFAULT_PAGE_SIZE = 200;
/** Compact the index once it has this many more lines than twice the number of sessions. */
const INDEX_SLACK_LINES = 100;
const FILE_CONCURRENCY = 16;
// Sessions hold prompts and tool output, which can include secrets: owner-only by default.
const DIRECTORY_MODE = 0o700;
const FILE_MODE = 0o600;

export interface JsonlSessionStoreOptions {
  now?: () => Date;
  newId?: () => string;
  /** Bytes read from the start of a session that is missing from the index (default 64 KiB). */
  headBytes?: number;
}

export interface RebuildResult {
  sessions: number;
  problems: ListProblem[];
}

interface FileSummary {
  summary: SessionSummary;
  /** The whole file was read, so the summary is exact and may go into the index. */
  complete: boolean;
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT';
}

async function mapWithConcurrency<T, R>(items: readonly T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await task(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

function encodePageCursor(line: number, offset: number): string {
  return `${line}:${offset}`;
}

function decodePageCursor(cursor: string): { line: number; offset: number } {
  const match = /^(\d+):(\d+)$/.exec(cursor);
  const line = match ? Number(match[1]) : Number.NaN;
  const offset = match ? Number(match[2]) : Number.NaN;
  if (!Number.isSafeInteger(line) || line < 1 || !Number.isSafeInteger(offset)) {
    throw new SessionError('SESSION_INVALID_ARGUMENT', `invalid record page cursor: ${cursor}`, { exitCode: 2 });
  }
  return { line, offset };
}

export class JsonlSessionStore implements SessionStore {
  readonly directory: string;
  readonly location: string;
  private readonly index: SessionIndex;
  private readonly now: () => Date;
  private readonly newId: () => string;
  private readonly headBytes: number;

  /** `directory` is the sessions folder, normally `<home>/sessions`; it is created on first write. */
  constructor(directory: string, options: JsonlSessionStoreOptions = {}) {
    this.directory = directory;
    this.location = this.directory;
    this.index = new SessionIndex(join(this.directory, INDEX_FILE_NAME));
    this.now = options.now ?? (() => new Date());
    this.newId = options.newId ?? newSessionId;
    this.headBytes = options.headBytes ?? DEFAULT_HEAD_BYTES;
  }

  sessionPath(sessionId: string): string {
    return join(this.directory, `${sessionId}.jsonl`);
  }

  private lockPath(sessionId: string): string {
    return join(this.directory, `${sessionId}.lock`);
  }

  async create(input: NewSessionMeta): Promise<SessionWriter> {
    const meta = buildMetaRecord(input, this.now, this.newId);
    const first = prepareRecord(meta, this.now);
    await mkdir(this.directory, { recursive: true, mode: DIRECTORY_MODE });
    const path = this.sessionPath(meta.sessionId);
    const lock = await acquireSessionLock(this.lockPath(meta.sessionId), meta.sessionId);
    let handle: FileHandle | null = null;
    try {
      try {
        handle = await open(path, 'ax', FILE_MODE);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
          throw new SessionError('SESSION_INVALID_ARGUMENT', `session ${meta.sessionId} already exists in ${this.location}`, {
            exitCode: 2,
          });
        }
        throw error;
      }
      await handle.write(first.line);
      const summary = new SessionSummaryBuilder(meta);
      return new JsonlSessionWriter(meta.sessionId, handle, lock, summary, this.index, this.now, { summaryChanged: true });
    } catch (error) {
      if (handle !== null) {
        await handle.close();
        await unlink(path).catch(() => undefined);
      }
      await lock.release();
      throw error;
    }
  }

  async openForAppend(sessionId: string): Promise<SessionWriter> {
    return (await this.openWithScanner(sessionId, null)).writer;
  }

  async openAndReplay(
    sessionId: string,
    onRecord: (record: SessionRecord, line: number) => void,
    options?: ScanRecordOptions,
  ): Promise<{ writer: SessionWriter; scan: SessionScan }> {
    const scanner = new RecordScanner(sessionId, this.existingPath(sessionId), onRecord, options);
    const { writer, tailBytes, lastLine } = await this.openWithScanner(sessionId, scanner);
    try {
      return { writer, scan: scanner.finish(tailBytes > 0 ? { line: lastLine + 1, bytes: tailBytes } : null) };
    } catch (error) {
      await writer.close();
      throw error;
    }
  }

  /** Lock, then read once: the summary for appending, and every line for `scanner` if given. */
  private async openWithScanner(
    sessionId: string,
    scanner: RecordScanner | null,
  ): Promise<{ writer: SessionWriter; tailBytes: number; lastLine: number }> {
    const path = this.existingPath(sessionId);
    try {
      await stat(path);
    } catch (error) {
      if (isMissing(error)) throw new SessionNotFoundError(sessionId, this.location);
      throw error;
    }
    const lock = await acquireSessionLock(this.lockPath(sessionId), sessionId);
    try {
      // Read under the lock: nobody else can be appending while the summary is rebuilt.
      const { meta, builder, scan } = await this.summarizeFile(sessionId, undefined, scanner);
      if (meta.formatVersion > SESSION_FORMAT_VERSION) {
        throw new SessionError(
          'SESSION_UNSUPPORTED',
          `session ${sessionId} uses session format ${meta.formatVersion}; this glassbox writes format ${SESSION_FORMAT_VERSION} and will not append to it`,
        );
      }
      // A crash mid-write leaves an unterminated line; appending after it would glue the next
      // record onto it and turn one lost record into a corrupt middle line.
      if (scan.tailBytes > 0) await truncate(path, scan.endOffset);
      const handle = await open(path, 'a');
      const writer = new JsonlSessionWriter(sessionId, handle, lock, builder, this.index, this.now, { summaryChanged: false });
      return { writer, tailBytes: scan.tailBytes, lastLine: scan.lastLine };
    } catch (error) {
      await lock.release();
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
    const scanner = new RecordScanner(sessionId, this.existingPath(sessionId), onRecord, options);
    const result = await this.scanSession(sessionId, ({ line, text }) => scanner.add(line, text));
    return scanner.finish(result.tailBytes > 0 ? { line: result.lastLine + 1, bytes: result.tailBytes } : null);
  }

  async readPage(sessionId: string, options: RecordPageOptions = {}): Promise<RecordPage> {
    validateLimit(options.limit, 'page limit');
    const limit = options.limit ?? DEFAULT_PAGE_SIZE;
    const path = this.existingPath(sessionId);
    const start = options.cursor ? decodePageCursor(options.cursor) : { line: 1, offset: 0 };
    let startsLine: boolean;
    try {
      startsLine = await isLineStart(path, start.offset);
    } catch (error) {
      if (isMissing(error)) throw new SessionNotFoundError(sessionId, this.location);
      throw error;
    }
    if (!startsLine) {
      throw new SessionError(
        'SESSION_INVALID_ARGUMENT',
        `record page cursor ${options.cursor} does not point at a line of session ${sessionId}`,
        {
          exitCode: 2,
        },
      );
    }

    const entries: RecordPage['entries'] = [];
    const scanner = new RecordScanner(sessionId, path, (record, line) => entries.push({ line, record }));
    let next: string | null = null;
    const scan = await this.scanSession(
      sessionId,
      ({ line, text, end }) => {
        scanner.add(line, text);
        if (entries.length < limit) return true;
        next = encodePageCursor(line + 1, end);
        return false;
      },
      { startOffset: start.offset, startLine: start.line },
    );
    return { entries, problems: scanner.problems, nextCursor: scan.reachedEnd ? null : next };
  }

  async list(options: ListSessionsOptions = {}): Promise<SessionList> {
    validateLimit(options.limit, 'limit');
    const { summaries, problems } = await this.collectSummaries();
    return { ...pageSummaries(summaries, options), problems };
  }

  async resolveId(reference: string): Promise<string> {
    return resolveSessionReference(
      reference,
      this.location,
      () => this.sessionIds(),
      async () => (await this.list({ limit: 1 })).sessions[0]?.sessionId ?? null,
    );
  }

  async revision(sessionId: string): Promise<string> {
    const path = this.existingPath(sessionId);
    try {
      // Appends grow the file; a cut-off torn line or a file put in its place changes its size,
      // inode or modification time (to the nanosecond where the file system keeps it).
      const info = await stat(path, { bigint: true });
      return `${info.ino}:${info.size}:${info.mtimeNs}`;
    } catch (error) {
      if (isMissing(error)) throw new SessionNotFoundError(sessionId, this.location);
      throw error;
    }
  }

  async delete(sessionId: string): Promise<void> {
    const path = this.existingPath(sessionId);
    const lock = await acquireSessionLock(this.lockPath(sessionId), sessionId);
    try {
      await unlink(path);
    } catch (error) {
      if (isMissing(error)) throw new SessionNotFoundError(sessionId, this.location);
      throw error;
    } finally {
      await lock.release();
    }
    // "Deleted" must mean gone: the index's summary line carries the title (the first prompt), so
    // the index is rewritten without it. An append racing with the rewrite can be lost; listings
    // start from the session files and re-read a session whose summary is missing, so that heals.
    const snapshot = await this.index.read();
    if (snapshot.entries.delete(sessionId)) await this.index.replace(snapshot.entries.values());
  }

  async exportLines(sessionId: string, onLine: (text: string) => void): Promise<void> {
    await this.scanSession(sessionId, ({ text }) => onLine(text));
  }

  async importSession(lines: readonly string[], source: string): Promise<CheckedSession> {
    const checked = checkSessionLines(lines, source);
    const sessionId = checked.meta.sessionId;
    const path = this.sessionPath(sessionId);
    await mkdir(this.directory, { recursive: true, mode: DIRECTORY_MODE });
    // Written whole and made durable under a name no listing reads, then linked into place: link()
    // never replaces a file, so a session that exists (or appears meanwhile) is refused untouched,
    // and a failed write leaves no half session behind.
    const temporary = join(this.directory, `.import-${sessionId}-${process.pid}-${Date.now()}`);
    const handle = await open(temporary, 'wx', FILE_MODE);
    try {
      try {
        await handle.writeFile(checked.lines.map((line) => `${line}\n`).join(''));
        await handle.sync();
      } finally {
        await handle.close();
      }
      await link(temporary, path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw sessionExistsError(sessionId, this.location);
      throw error;
    } finally {
      await unlink(temporary).catch(() => undefined);
    }
    // The session is stored; a listing reads a session the index lacks, so a failed index write
    // must not turn a done import into a reported failure (a retry would then be refused).
    await this.index.append([checked.summary]).catch(() => undefined);
    return checked;
  }

  /** Read every session in full and write a fresh index. */
  async rebuildIndex(): Promise<RebuildResult> {
    const ids = await this.sessionIds();
    const { summaries, problems } = await this.rebuildFrom(ids);
    return { sessions: summaries.length, problems };
  }

  // -------------------------------------------------------------------------------------------

  /** The file path for an id, or not-found for anything that is not a session id (and so no file). */
  private existingPath(sessionId: string): string {
    if (!isSessionId(sessionId)) throw new SessionNotFoundError(sessionId, this.location);
    return this.sessionPath(sessionId);
  }

  private async scanSession(
    sessionId: string,
    // biome-ignore lint/suspicious/noConfusingVoidType: callbacks that return nothing are fine here
    onLine: (line: FileLine) => boolean | void,
    options?: ScanOptions,
  ): Promise<LineScanResult> {
    try {
      return await scanLines(this.existingPath(sessionId), onLine, options);
    } catch (error) {
      if (isMissing(error)) throw new SessionNotFoundError(sessionId, this.location);
      throw error;
    }
  }

  private async sessionIds(): Promise<string[]> {
    let names: string[];
    try {
      names = await readdir(this.directory);
    } catch (error) {
      if (isMissing(error)) return [];
      throw error;
    }
    const ids: string[] = [];
    for (const name of names) {
      const match = SESSION_FILE_PATTERN.exec(name);
      if (match) ids.push(match[1]!);
    }
    return ids;
  }

  private async summarizeFile(
    sessionId: string,
    maxBytes?: number,
    scanner: RecordScanner | null = null,
  ): Promise<{ meta: SessionMetaRecord; builder: SessionSummaryBuilder; scan: LineScanResult }> {
    const path = this.sessionPath(sessionId);
    const state: { meta: SessionMetaRecord | null; builder: SessionSummaryBuilder | null } = { meta: null, builder: null };
    const scan = await this.scanSession(
      sessionId,
      ({ line, text }) => {
        const outcome = interpretLine(line, text, sessionId, path);
        scanner?.accept(line, outcome);
        if (outcome.kind !== 'record') return;
        if (outcome.record.type === 'session_meta') {
          state.meta = outcome.record;
          state.builder = new SessionSummaryBuilder(outcome.record);
        } else {
          state.builder?.add(outcome.record);
        }
      },
      { maxBytes },
    );
    if (state.meta === null || state.builder === null) {
      throw new SessionError('SESSION_CORRUPT', `${path}: the file has no complete first line (session_meta)`);
    }
    return { meta: state.meta, builder: state.builder, scan };
  }

  /** A summary from the first few KB, for a session the index does not know yet. */
  private async summarizeHead(sessionId: string): Promise<FileSummary> {
    const { builder, scan } = await this.summarizeFile(sessionId, this.headBytes);
    const summary = builder.snapshot();
    if (!scan.reachedEnd) {
      const modified = (await stat(this.sessionPath(sessionId))).mtime.toISOString();
      if (modified > summary.updatedAt) summary.updatedAt = modified;
    }
    return { summary, complete: scan.reachedEnd };
  }

  private async collectSummaries(): Promise<{ summaries: SessionSummary[]; problems: ListProblem[] }> {
    const ids = await this.sessionIds();
    if (ids.length === 0) return { summaries: [], problems: [] };
    const snapshot = await this.index.read();
    if (!snapshot.exists) return this.rebuildFrom(ids);

    const problems: ListProblem[] = [];
    const exact: SessionSummary[] = [];
    const fresh: SessionSummary[] = [];
    const approximate: SessionSummary[] = [];
    const unindexed: string[] = [];
    for (const id of ids) {
      const indexed = snapshot.entries.get(id);
      if (indexed === undefined) unindexed.push(id);
      else exact.push(indexed);
    }
    // Sessions missing from the index: a crash before the first turn ended, or a lost index line.
    await mapWithConcurrency(unindexed, FILE_CONCURRENCY, async (id) => {
      try {
        const head = await this.summarizeHead(id);
        (head.complete ? fresh : approximate).push(head.summary);
      } catch (error) {
        if (!isMissing(error) && !(error instanceof SessionNotFoundError)) {
          problems.push({ sessionId: id, message: (error as Error).message });
        }
      }
    });

    try {
      if (snapshot.lines + fresh.length > 2 * ids.length + INDEX_SLACK_LINES) {
        await this.index.replace([...exact, ...fresh]);
      } else {
        await this.index.append(fresh);
      }
    } catch (error) {
      problems.push({ sessionId: null, message: `could not update ${this.index.path}: ${(error as Error).message}` });
    }
    return { summaries: [...exact, ...fresh, ...approximate], problems };
  }

  private async rebuildFrom(ids: readonly string[]): Promise<{ summaries: SessionSummary[]; problems: ListProblem[] }> {
    const problems: ListProblem[] = [];
    const summaries: SessionSummary[] = [];
    await mapWithConcurrency(ids, FILE_CONCURRENCY, async (id) => {
      try {
        const { builder } = await this.summarizeFile(id);
        summaries.push(builder.snapshot());
      } catch (error) {
        if (!(error instanceof SessionNotFoundError)) problems.push({ sessionId: id, message: (error as Error).message });
      }
    });
    await mkdir(this.directory, { recursive: true, mode: DIRECTORY_MODE });
    await this.index.replace(summaries);
    return { summaries, problems };
  }
}
