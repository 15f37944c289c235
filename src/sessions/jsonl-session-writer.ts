import { writeSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { SessionIndex } from './session-index.js';
import type { HeldLock } from './session-lock.js';
import type { SessionRecord } from './session-records.js';
import type { SessionSummaryBuilder } from './session-summary.js';
import { SerialSessionWriter } from './session-writer.js';

/**
 * Appends to `<id>.jsonl` through a descriptor opened with O_APPEND, one `write` per batch of
 * whole lines, and
 * keeps the session's summary current so `sync` (turn end) and `close` can publish it to the index.
 */
export class JsonlSessionWriter extends SerialSessionWriter {
  private dirty: boolean;

  constructor(
    sessionId: string,
    private readonly handle: FileHandle,
    private readonly lock: HeldLock,
    private readonly summary: SessionSummaryBuilder,
    private readonly index: SessionIndex,
    now: () => Date,
    options: { summaryChanged: boolean },
  ) {
    super(sessionId, now);
    this.dirty = options.summaryChanged;
  }

  protected async writeLines(lines: readonly string[], records: readonly SessionRecord[]): Promise<void> {
    const bytes = Buffer.from(lines.join(''), 'utf8');
    // A regular file takes the whole buffer in one write; the loop only guards the rare short
    // write (e.g. a signal), which still lands contiguously because we hold the lock.
    // Synchronous on purpose: an append is a copy into the page cache (microseconds for a round's
    // records), while the thread-pool round trip of an asynchronous write cost more than the copy,
    // and the loop awaits a round's commit before it goes on anyway (docs/benchmarks.md). The
    // fsync at turn end, which waits for the disk, stays asynchronous.
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(this.handle.fd, bytes, offset);
    for (const record of records) this.summary.add(record);
    this.dirty = true;
  }

  protected async flush(): Promise<void> {
    await this.handle.sync();
    await this.publishSummary();
  }

  protected async finish(healthy: boolean): Promise<void> {
    try {
      if (healthy) await this.publishSummary();
    } finally {
      try {
        await this.handle.close();
      } finally {
        await this.lock.release();
      }
    }
  }

  private async publishSummary(): Promise<void> {
    if (!this.dirty) return;
    await this.index.append([this.summary.snapshot()]);
    this.dirty = false;
  }
}
