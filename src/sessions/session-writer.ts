// What every writer shares: records are validated and serialised before they are queued, and the
// queue (a promise chain) makes appends land one whole line at a time, in call order, even when
// the loop fires several without awaiting. After a failed write nothing more is appended, so a
// half-written line is never followed by records that would turn it into a corrupt middle line.

import { SessionError } from './session-errors.js';
import { isSessionId, newSessionId } from './session-id.js';
import {
  parseRecordLine,
  SESSION_FORMAT_VERSION,
  type NewSessionRecord,
  type SessionMetaRecord,
  type SessionRecord,
} from './session-records.js';
import type { NewSessionMeta, SessionWriter } from './session-store.js';

export interface PreparedRecord {
  record: SessionRecord;
  /** The serialised record with its newline. */
  line: string;
}

/**
 * Stamp and check a record exactly as a reader will see it: the serialised line is parsed back,
 * so a record that could not be read (an `undefined` field that JSON drops, a wrong type) is
 * refused here instead of becoming a problem line later.
 */
export function prepareRecord(record: NewSessionRecord | SessionMetaRecord, now: () => Date): PreparedRecord {
  // `type` and `ts` lead every line so a file is easy to scan by eye.
  const { type, ts, ...fields } = record;
  const stamped = { type, ts: ts ?? now().toISOString(), ...fields };
  const text = JSON.stringify(stamped);
  const parsed = parseRecordLine(text);
  if (parsed.kind !== 'record') {
    const why = parsed.kind === 'invalid' ? parsed.message : `unknown record type ${JSON.stringify(parsed.type)}`;
    throw new SessionError('SESSION_INVALID_RECORD', `refusing to write an invalid session record: ${why}`);
  }
  return { record: parsed.record, line: `${text}\n` };
}

export function buildMetaRecord(input: NewSessionMeta, now: () => Date, newId: () => string = newSessionId): SessionMetaRecord {
  const sessionId = input.sessionId ?? newId();
  if (!isSessionId(sessionId)) {
    throw new SessionError('SESSION_INVALID_ARGUMENT', `session ids are lowercase UUIDv7 strings, got ${JSON.stringify(sessionId)}`, {
      exitCode: 2,
    });
  }
  const ts = now().toISOString();
  const meta: SessionMetaRecord = {
    type: 'session_meta',
    ts,
    formatVersion: SESSION_FORMAT_VERSION,
    sessionId,
    createdAt: input.createdAt ?? ts,
    cwd: input.cwd,
    model: input.model,
    wireApi: input.wireApi,
    parent: input.parent ?? null,
    glassboxVersion: input.glassboxVersion,
  };
  const parsed = parseRecordLine(JSON.stringify(meta));
  if (parsed.kind !== 'record') {
    const why = parsed.kind === 'invalid' ? parsed.message : 'unknown record type';
    throw new SessionError('SESSION_INVALID_ARGUMENT', `invalid session metadata: ${why}`, { exitCode: 2 });
  }
  return meta;
}

interface PendingBatch {
  lines: string[];
  records: SessionRecord[];
  written: Promise<void>;
}

export abstract class SerialSessionWriter implements SessionWriter {
  private queue: Promise<unknown> = Promise.resolve();
  /** The batch that new appends join until its write starts. */
  private openBatch: PendingBatch | null = null;
  private failure: unknown = null;
  private revoked: SessionError | null = null;
  private closing: Promise<void> | null = null;

  protected constructor(
    readonly sessionId: string,
    private readonly now: () => Date,
  ) {}

  /** Append prepared whole lines in one write; must write them all or throw. */
  protected abstract writeLines(lines: readonly string[], records: readonly SessionRecord[]): Promise<void>;
  /** Make appended lines durable and publish whatever summary the store keeps. */
  protected abstract flush(): Promise<void>;
  /** Release the file and the lock; called exactly once, by `close`. `healthy` is false after a failed write. */
  protected abstract finish(healthy: boolean): Promise<void>;

  append(record: NewSessionRecord): Promise<SessionRecord> {
    if (this.closing !== null) return Promise.reject(this.closedError());
    if (this.revoked !== null) return Promise.reject(this.revoked);
    let prepared: PreparedRecord;
    try {
      if ((record as { type: string }).type === 'session_meta') {
        throw new SessionError('SESSION_INVALID_RECORD', 'session_meta is written by create(), not appended');
      }
      prepared = prepareRecord(record, this.now);
    } catch (error) {
      return Promise.reject(error);
    }
    // Appends made while an earlier write is in flight join one batch, written with one `write`
    // of whole lines: a round's records cost one syscall instead of one each, order unchanged.
    let batch = this.openBatch;
    if (batch === null) {
      const created: PendingBatch = { lines: [], records: [], written: Promise.resolve() };
      created.written = this.enqueue(async () => {
        if (this.openBatch === created) this.openBatch = null;
        this.assertHealthy();
        try {
          await this.writeLines(created.lines, created.records);
        } catch (error) {
          this.failure = error;
          throw new SessionError('SESSION_WRITE_FAILED', `could not append to session ${this.sessionId}: ${(error as Error).message}`, {
            cause: error,
          });
        }
      });
      this.openBatch = created;
      batch = created;
    }
    batch.lines.push(prepared.line);
    batch.records.push(prepared.record);
    return batch.written.then(() => prepared.record);
  }

  sync(): Promise<void> {
    if (this.closing !== null) return Promise.reject(this.closedError());
    if (this.revoked !== null) return Promise.reject(this.revoked);
    return this.enqueue(async () => {
      this.assertHealthy();
      await this.flush();
    });
  }

  close(): Promise<void> {
    this.closing ??= this.enqueue(() => this.finish(this.failure === null && this.revoked === null));
    return this.closing;
  }

  /**
   * Appends queued behind a batch in flight are refused too (the check runs again when their
   * batch's turn comes), so nothing is written after this call returns but that one batch.
   */
  revoke(reason: string): void {
    this.revoked ??= new SessionError('SESSION_LOCKED', `session ${this.sessionId} is no longer this writer's: ${reason}`);
  }

  private enqueue<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.queue.then(operation);
    this.queue = result.catch(() => undefined);
    return result;
  }

  private assertHealthy(): void {
    if (this.revoked !== null) throw this.revoked;
    if (this.failure !== null) {
      // Name the original failure: this is often the error a person sees (e.g. the turn-end
      // record after a full disk failed the run), and "disk full" is what they need to read.
      const cause = (this.failure as Error)?.message ?? String(this.failure);
      throw new SessionError(
        'SESSION_WRITE_FAILED',
        `session ${this.sessionId} stopped accepting records after a failed write (${cause})`,
        {
          cause: this.failure,
        },
      );
    }
  }

  private closedError(): SessionError {
    return new SessionError('SESSION_CLOSED', `the writer for session ${this.sessionId} is closed`);
  }
}
