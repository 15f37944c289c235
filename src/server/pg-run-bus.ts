// One LISTEN connection per team-server process, and the fan-out of a run's events to this
// process's subscribers. A worker announces each commit of stored events with one NOTIFY
// (`glassbox_events`, "<run>:<last id>"), sends text deltas as NOTIFYs only (`glassbox_deltas`,
// never stored), cancellations (`glassbox_cancels`) and answered approvals (`glassbox_approvals`).
// PostgreSQL delivers one connection's notifications in commit order, and each run's are handled
// one after another here, fetching exactly the ids a notification announced, so every server
// hands its subscribers the same events in the same order. A dropped LISTEN connection (the backend
// terminated, PostgreSQL restarted) is reconnected with backoff; notifications sent meanwhile are
// lost, so each watched run then re-reads the table from its cursor and the reconnect handlers
// (cancels, approvals) re-check what they wait for.

import type { Client, Pool } from 'pg';
import type { RunEvent } from '../agent/index.js';
import { pgClientConfig } from '../sessions/index.js';
import type { NumberedEvent } from './run-event-log.js';

export const EVENTS_CHANNEL = 'glassbox_events';
export const DELTAS_CHANNEL = 'glassbox_deltas';
export const CANCELS_CHANNEL = 'glassbox_cancels';
export const APPROVALS_CHANNEL = 'glassbox_approvals';

const RECONNECT_FIRST_MS = 100;
const RECONNECT_MAX_MS = 5_000;

interface Watched {
  listeners: Set<(entry: NumberedEvent) => void>;
  /** Highest id handed out here; a notification fetches only what lies beyond it. */
  cursor: number;
  chain: Promise<void>;
}

export class PgRunBus {
  private client: Client | null = null;
  private connecting: Promise<Client> | null = null;
  private readonly runs = new Map<string, Watched>();
  private readonly topics = new Map<string, Set<(payload: string) => void>>();
  private readonly reconnected = new Set<() => void>();
  private closed = false;
  private retryTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly pool: Pool,
    private readonly databaseUrl: string,
    private readonly log: (message: string) => void,
  ) {}

  /** Connect and LISTEN (idempotent); every subscription awaits it before reading the table. */
  ready(): Promise<Client> {
    if (this.client !== null) return Promise.resolve(this.client);
    this.connecting ??= this.connect().catch((error: unknown) => {
      this.connecting = null;
      throw error;
    });
    return this.connecting;
  }

  /** Called after the LISTEN connection was lost and is back: whatever was announced meanwhile was missed. */
  onReconnect(handler: () => void): () => void {
    this.reconnected.add(handler);
    return () => this.reconnected.delete(handler);
  }

  private async connect(): Promise<Client> {
    const { default: pg } = await import('pg');
    const client = new pg.Client(pgClientConfig(this.databaseUrl));
    let lost = false;
    const onLost = (why: string): void => {
      if (lost) return;
      lost = true;
      if (this.client === client) this.client = null;
      void client.end().catch(() => undefined);
      if (this.closed) return;
      this.log(`the notification connection was lost (${why}); reconnecting`);
      this.reconnect(RECONNECT_FIRST_MS);
    };
    client.on('error', (error) => onLost(error.message));
    client.on('end', () => onLost('closed by the server'));
    client.on('notification', (message) => this.dispatch(message.channel, message.payload ?? ''));
    try {
      await client.connect();
      for (const channel of [EVENTS_CHANNEL, DELTAS_CHANNEL, CANCELS_CHANNEL, APPROVALS_CHANNEL]) await client.query(`LISTEN ${channel}`);
    } catch (error) {
      lost = true;
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      throw new Error('the run bus is closed');
    }
    this.client = client;
    this.connecting = null;
    return client;
  }

  /** Retry with doubling delays until LISTEN is back, then catch every watched run up from the table. */
  private reconnect(delayMs: number): void {
    if (this.closed || this.retryTimer !== null) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.ready().then(
        () => {
          this.log('the notification connection is back');
          for (const [runId] of this.runs) this.serially(runId, (watched) => this.fetch(runId, watched, null));
          for (const handler of [...this.reconnected]) handler();
        },
        (error: unknown) => {
          this.log(`cannot reconnect the notification connection yet: ${(error as Error).message}`);
          this.reconnect(Math.min(delayMs * 2, RECONNECT_MAX_MS));
        },
      );
    }, delayMs);
  }

  /** Payloads of one channel (cancels, approvals); returns an unsubscribe. */
  on(channel: string, handler: (payload: string) => void): () => void {
    const handlers = this.topics.get(channel) ?? new Set<(payload: string) => void>();
    this.topics.set(channel, handlers);
    handlers.add(handler);
    return () => handlers.delete(handler);
  }

  /** A run's events as this process receives them, from `afterId` on. */
  watch(runId: string, afterId: number, listener: (entry: NumberedEvent) => void): () => void {
    let watched = this.runs.get(runId);
    if (watched === undefined) {
      watched = { listeners: new Set(), cursor: afterId, chain: Promise.resolve() };
      this.runs.set(runId, watched);
    }
    watched.listeners.add(listener);
    const entry = watched;
    return () => {
      entry.listeners.delete(listener);
      if (entry.listeners.size === 0 && this.runs.get(runId) === entry) this.runs.delete(runId);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.runs.clear();
    const client = this.client ?? (await this.connecting?.catch(() => null)) ?? null;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private dispatch(channel: string, payload: string): void {
    if (this.closed) return;
    for (const handler of this.topics.get(channel) ?? []) handler(payload);
    if (channel === EVENTS_CHANNEL) {
      const split = payload.lastIndexOf(':');
      const runId = payload.slice(0, split);
      const upTo = Number(payload.slice(split + 1));
      this.serially(runId, (watched) => this.fetch(runId, watched, upTo));
    } else if (channel === DELTAS_CHANNEL) {
      let delta: { r: string; i: number; n: number; d: string };
      try {
        delta = JSON.parse(payload) as typeof delta;
      } catch {
        return;
      }
      this.serially(delta.r, async (watched) => {
        if (delta.i <= watched.cursor) return;
        watched.cursor = delta.i;
        this.deliver(watched, { id: delta.i, event: { type: 'assistant_delta', round: delta.n, delta: delta.d } });
      });
    }
  }

  private serially(runId: string, task: (watched: Watched) => Promise<void>): void {
    const watched = this.runs.get(runId);
    if (watched === undefined) return;
    watched.chain = watched.chain
      .then(() => task(watched))
      .catch((error: unknown) => this.log(`run ${runId}: ${(error as Error).message}`));
  }

  /** The stored events after the cursor up to `upTo` (null: all of them, after a reconnect). */
  private async fetch(runId: string, watched: Watched, upTo: number | null): Promise<void> {
    if (upTo !== null && upTo <= watched.cursor) return;
    const rows = await readRunEvents(this.pool, runId, watched.cursor, upTo ?? undefined);
    for (const entry of rows) {
      watched.cursor = Math.max(watched.cursor, entry.id);
      this.deliver(watched, entry);
    }
    if (upTo !== null) watched.cursor = Math.max(watched.cursor, upTo);
  }

  private deliver(watched: Watched, entry: NumberedEvent): void {
    for (const listener of [...watched.listeners]) listener(entry);
  }
}

/** Stored events of a run with afterId < id <= upTo, in order. */
export async function readRunEvents(pool: Pool, runId: string, afterId: number, upTo = 2 ** 31 - 1): Promise<NumberedEvent[]> {
  const result = await pool.query<{ id: number; body: string }>(
    'SELECT id, body FROM glassbox_run_events WHERE run_id = $1 AND id > $2 AND id <= $3 ORDER BY id',
    [runId, afterId, upTo],
  );
  return result.rows.map((row) => ({ id: row.id, event: JSON.parse(row.body) as RunEvent }));
}
