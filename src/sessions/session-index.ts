// `sessions/index.jsonl` lets a listing of thousands of sessions read one small file instead of
// every session. It is a cache: each writer appends its session's summary when it syncs or closes,
// the last line for an id wins, and the whole file can be rebuilt from the sessions at any time.

import { appendFile, rename, unlink, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { scanLines } from './line-reader.js';
import { sessionSummarySchema, type SessionSummary } from './session-summary.js';

export const INDEX_FILE_NAME = 'index.jsonl';

export interface IndexSnapshot {
  exists: boolean;
  /** Latest summary per session id. */
  entries: Map<string, SessionSummary>;
  /** Lines read, valid or not: compared with the number of sessions to decide on compaction. */
  lines: number;
}

function indexLine(summary: SessionSummary): string {
  return `${JSON.stringify(summary)}\n`;
}

export class SessionIndex {
  constructor(readonly path: string) {}

  async read(): Promise<IndexSnapshot> {
    const entries = new Map<string, SessionSummary>();
    let lines = 0;
    try {
      await scanLines(this.path, ({ text }) => {
        lines += 1;
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch {
          return; // a corrupt line costs one session a head read, nothing more
        }
        const parsed = sessionSummarySchema.safeParse(value);
        if (parsed.success) entries.set(parsed.data.sessionId, value as SessionSummary);
      });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { exists: false, entries, lines: 0 };
      throw error;
    }
    return { exists: true, entries, lines };
  }

  /** One append call: small writes with O_APPEND land whole even with several writers. */
  async append(summaries: readonly SessionSummary[]): Promise<void> {
    if (summaries.length === 0) return;
    await appendFile(this.path, summaries.map(indexLine).join(''), { flag: 'a', mode: 0o600 });
  }

  /** Write a fresh index with one line per session, swapped in atomically by rename. */
  async replace(summaries: Iterable<SessionSummary>): Promise<void> {
    const lines: string[] = [];
    for (const summary of summaries) lines.push(indexLine(summary));
    const temporary = `${this.path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await writeFile(temporary, lines.join(''), { flag: 'wx', mode: 0o600 });
      await rename(temporary, this.path);
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
  }
}
