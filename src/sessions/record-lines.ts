// How one line of a session becomes a record or a problem. Shared by every way of reading a
// session (whole, paged, summarised, from memory) so they all agree on what a file contains.

import { SessionError } from './session-errors.js';
import {
  parseRecordLine,
  SESSION_FORMAT_VERSION,
  type SessionMetaRecord,
  type SessionRecord,
  type SessionRecordType,
} from './session-records.js';
import type { ScanRecordOptions, SessionContents, SessionProblem, SessionScan, SessionStore } from './session-store.js';

export type { ScanRecordOptions } from './session-store.js';

export type LineOutcome = { kind: 'record'; record: SessionRecord } | { kind: 'problem'; problem: SessionProblem } | { kind: 'blank' };

/**
 * Line 1 must be the session's own `session_meta`; without it nothing else can be trusted, so
 * that is the one defect that throws. Every later defect is a problem and reading goes on.
 */
export function interpretLine(line: number, text: string, sessionId: string, source: string): LineOutcome {
  if (line === 1) return { kind: 'record', record: parseMetaLine(text, sessionId, source) };
  if (text.trim() === '') return { kind: 'blank' };
  const parsed = parseRecordLine(text);
  switch (parsed.kind) {
    case 'record':
      if (parsed.record.type === 'session_meta') {
        return { kind: 'problem', problem: { line, message: 'session_meta is only allowed on line 1; skipped' } };
      }
      return parsed;
    case 'unknown':
      return {
        kind: 'problem',
        problem: { line, message: `unknown record type ${JSON.stringify(parsed.type)} skipped (written by a newer glassbox?)` },
      };
    case 'invalid':
      return { kind: 'problem', problem: { line, message: parsed.message } };
  }
}

function parseMetaLine(text: string, sessionId: string, source: string): SessionMetaRecord {
  const parsed = parseRecordLine(text);
  if (parsed.kind !== 'record' || parsed.record.type !== 'session_meta') {
    const why =
      parsed.kind === 'invalid' ? parsed.message : `found a ${parsed.kind === 'record' ? parsed.record.type : parsed.type} record`;
    throw new SessionError('SESSION_CORRUPT', `${source}: line 1 is not a valid session_meta record (${why})`);
  }
  if (parsed.record.sessionId !== sessionId) {
    throw new SessionError('SESSION_CORRUPT', `${source}: line 1 names session ${parsed.record.sessionId}, not ${sessionId}`);
  }
  return parsed.record;
}

/** Problem to report for a meta record written by a newer format version, if any. */
export function formatVersionProblem(meta: SessionMetaRecord): SessionProblem | null {
  if (meta.formatVersion <= SESSION_FORMAT_VERSION) return null;
  return {
    line: 1,
    message: `written in session format ${meta.formatVersion}; this glassbox reads format ${SESSION_FORMAT_VERSION} and skips records it does not know`,
  };
}

/**
 * Interprets a session line by line: keeps the meta record and the problems, and hands every
 * usable record (meta included) to `onRecord` without keeping it, so a caller that only needs a
 * replay or a summary never holds the whole file in memory.
 */

/**
 * What replay never reads: skipping them saves a JSON.parse per line on resume. `turn_failed` is
 * read: a prompt blocked by a hook is dropped from the history by it (replay-session.ts).
 */
export const REPLAY_SKIPPABLE_TYPES: ReadonlySet<SessionRecordType> = new Set(['audit', 'turn_completed', 'turn_cancelled']);

const TYPE_PREFIX = '{"type":"';

function leadingType(text: string): string | null {
  if (!text.startsWith(TYPE_PREFIX)) return null;
  const end = text.indexOf('"', TYPE_PREFIX.length);
  return end === -1 ? null : text.slice(TYPE_PREFIX.length, end);
}

export class RecordScanner {
  private meta: SessionMetaRecord | null = null;
  /** Problems so far; a page read mid-file has no meta, so it takes these instead of `finish`. */
  readonly problems: SessionProblem[] = [];

  constructor(
    private readonly sessionId: string,
    private readonly source: string,
    private readonly onRecord: (record: SessionRecord, line: number) => void,
    private readonly options: ScanRecordOptions = {},
  ) {}

  add(line: number, text: string): void {
    const skip = this.options.skipTypes;
    if (skip !== undefined && line > 1) {
      const type = leadingType(text);
      if (type !== null && skip.has(type as SessionRecordType)) return;
    }
    this.accept(line, interpretLine(line, text, this.sessionId, this.source));
  }

  /** A line another reader already interpreted (a resume rebuilds the summary in the same pass). */
  accept(line: number, outcome: LineOutcome): void {
    if (outcome.kind === 'record' && line > 1 && this.options.skipTypes?.has(outcome.record.type)) return;
    if (outcome.kind === 'record') {
      if (outcome.record.type === 'session_meta') {
        this.meta = outcome.record;
        const problem = formatVersionProblem(outcome.record);
        if (problem !== null) this.problems.push(problem);
      }
      this.onRecord(outcome.record, line);
    } else if (outcome.kind === 'problem') {
      this.problems.push(outcome.problem);
    }
  }

  finish(tornTail: SessionScan['tornTail']): SessionScan {
    if (this.meta === null) {
      throw new SessionError('SESSION_CORRUPT', `${this.source}: the file has no complete first line (session_meta)`);
    }
    return { meta: this.meta, problems: this.problems, tornTail };
  }
}

/** A whole session in memory, through the store's own one-pass scan: how every store reads. */
export async function readByScan(store: Pick<SessionStore, 'scan'>, sessionId: string): Promise<SessionContents> {
  const records: SessionRecord[] = [];
  const scan = await store.scan(sessionId, (record) => records.push(record));
  return { ...scan, records };
}
