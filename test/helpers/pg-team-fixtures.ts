// What the team tests (and the team bench) build their worker runs from: a migrated pool on a
// throwaway database, the parameters of a queued run, a run's successful end, and a poll.

import pg from 'pg';
import type { TerminalRunEvent } from '../../src/agent/index.js';
import { emptyUsage } from '../../src/model/index.js';
import type { RunParameters } from '../../src/server/run-manager.js';
import { migratePgSchema } from '../../src/sessions/index.js';

/** A queued run's parameters; the fake turns these tests give the worker read none of them. */
export const QUEUED_RUN_PARAMETERS: RunParameters = {
  prompt: 'p',
  sessionId: null,
  model: 'm',
  wireApi: 'chat',
  sandbox: 'read-only',
  approvalPolicy: 'never',
  compactAt: null,
};

export const succeededWith = (answer: string): TerminalRunEvent => ({
  type: 'run_succeeded',
  answer,
  usage: { total: emptyUsage(), byStage: {}, calls: 0 },
  rounds: 1,
});

/** A pool on `url` with Glassbox's schema in place. */
export async function migratedPool(url: string): Promise<pg.Pool> {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on('error', () => undefined);
  const client = await pool.connect();
  try {
    await migratePgSchema(client);
  } finally {
    client.release();
  }
  return pool;
}

/** Polls `probe` until it gives a value (30 s at most). */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  everyMs = 25,
): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
