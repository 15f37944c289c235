// The team server's parts on one connection pool: the run routes' backend and approval desk (any
// server), and the worker that works runs (unless `--no-worker`). `serve --database-url` and
// `glassbox worker` build this; without a database URL none of it loads.

import type { Client, Pool, PoolConfig } from 'pg';
import { PgRunQueue } from '../runner/index.js';
import { pgPoolConfig } from '../sessions/index.js';
import { PgApprovalDesk } from './pg-approval-desk.js';
import { PgRunBus } from './pg-run-bus.js';
import { PgRunManager } from './pg-run-manager.js';
import { PgRunWorker, type WorkerTurnStarter } from './pg-run-worker.js';

export interface TeamSettings {
  /** Already migrated (the session store opened it first). */
  databaseUrl: string;
  /** Work runs in this process (default true); false: API only. */
  worker?: boolean;
  /** A worker's claim lasts this long without renewal (default 5 s); a dead worker's run is taken over after it. */
  leaseMs?: number;
  /** Runs one worker works at once (default 8). */
  maxRuns?: number;
  /** How long a stopping worker lets its runs go on before it hands them over (default 0; PgRunWorkerOptions). */
  stopGraceMs?: number;
  /** `pg`'s Pool class, loaded by the caller (createServer stays synchronous and never imports pg itself). */
  Pool: new (
    config: PoolConfig,
  ) => Pool;
  /** `pg`'s Client class: the pool's connections are made with the connect timeout (sessions/pg-connection.ts). */
  Client: typeof Client;
}

export interface PgTeam {
  readonly runs: PgRunManager;
  readonly approvals: PgApprovalDesk;
  /** null when this process does not work runs. */
  readonly workerId: string | null;
  /** `hurry` (a second signal) cuts the worker's stop grace short. */
  close(reason: string, hurry?: Promise<void>): Promise<void>;
}

export function createPgTeam(
  settings: TeamSettings,
  startTurn: WorkerTurnStarter,
  options: { approvalTimeoutMs?: number; log: (message: string) => void },
): PgTeam {
  const pool = new settings.Pool(pgPoolConfig(settings.Client, settings.databaseUrl, { max: 6, allowExitOnIdle: true }));
  pool.on('error', () => undefined);
  const bus = new PgRunBus(pool, settings.databaseUrl, options.log);
  const api = PgRunQueue.attach(pool, settings.databaseUrl, { leaseMs: settings.leaseMs });
  const runs = new PgRunManager(pool, bus, api);
  const approvals = new PgApprovalDesk(pool, bus, options.approvalTimeoutMs);
  let worker: PgRunWorker | null = null;
  if (settings.worker !== false) {
    const queue = PgRunQueue.attach(pool, settings.databaseUrl, { leaseMs: settings.leaseMs });
    worker = new PgRunWorker(pool, bus, queue, approvals, {
      startTurn,
      maxRuns: settings.maxRuns,
      stopGraceMs: settings.stopGraceMs,
      log: options.log,
    });
    worker.start();
  } else {
    // Connect now: the first stream should not wait for it.
    bus.ready().catch((error: unknown) => options.log(`cannot listen for run events: ${(error as Error).message}`));
  }
  return {
    runs,
    approvals,
    workerId: worker?.workerId ?? null,
    async close(reason, hurry) {
      await worker?.close(reason, hurry);
      await api.close();
      await bus.close();
      await pool.end().catch(() => undefined);
    },
  };
}
