// Approvals as rows (team server): a worker's run that needs a decision inserts a pending row and
// waits; any server lists the pending rows and answers one (an UPDATE fenced on `pending`, with a
// NOTIFY to the worker), and the worker marks the answer used (`closed`) before the call runs. The
// row outlives the worker: a worker that stops hands its runs over with their rows untouched, and
// the one that takes a run over (after a stop or a crash) asks the same call again, which finds the
// same row, still pending or already answered (docs/team-server.md, "Approvals").

import {
  type ApprovalBroker,
  type ApprovalDecisionKind,
  type ApprovalRequest,
  type ApprovalResolution,
  DEFAULT_APPROVAL_TIMEOUT_MS,
  type PendingApproval,
} from '../agent/index.js';
import type { Pool } from 'pg';
import { APPROVALS_CHANNEL, type PgRunBus } from './pg-run-bus.js';
import type { ApprovalDesk } from './run-backend.js';

interface ApprovalRow {
  state: 'pending' | 'resolved' | 'closed';
  resolution: ApprovalResolution | null;
}

export class PgApprovalDesk implements ApprovalDesk {
  private readonly waiters = new Map<string, () => void>();
  /** The INSERT of each pending row in flight, so the event announcing it can wait for it. */
  private readonly inserts = new Map<string, Promise<unknown>>();
  /** Runs handed over (`keepPending`). */
  private readonly kept = new Set<string>();

  constructor(
    private readonly pool: Pool,
    private readonly bus: PgRunBus,
    private readonly timeoutMs: number = DEFAULT_APPROVAL_TIMEOUT_MS,
  ) {
    bus.on(APPROVALS_CHANNEL, (key) => this.waiters.get(key)?.());
    // An answer announced while the LISTEN connection was down was missed: look again.
    bus.onReconnect(() => {
      for (const check of [...this.waiters.values()]) check();
    });
  }

  /** Pending approvals of runs still open, oldest first. */
  async list(runId?: string): Promise<PendingApproval[]> {
    const result = await this.pool.query<{ pending: PendingApproval }>(
      `SELECT a.pending FROM glassbox_approvals a JOIN glassbox_runs r USING (run_id)
       WHERE a.state = 'pending' AND r.state IN ('queued', 'running') AND ($1::text IS NULL OR a.run_id = $1)
       ORDER BY a.created_at`,
      [runId ?? null],
    );
    return result.rows.map((row) => row.pending);
  }

  async resolve(runId: string, callId: string, decision: ApprovalDecisionKind, message: string | null, by: string): Promise<boolean> {
    const result = await this.pool.query(
      `WITH a AS (UPDATE glassbox_approvals SET state = 'resolved', resolution = $3
         WHERE run_id = $1 AND call_id = $2 AND state = 'pending' RETURNING run_id)
       SELECT pg_notify('${APPROVALS_CHANNEL}', $1 || ':' || $2) FROM a`,
      [runId, callId, JSON.stringify({ decision, by, message } satisfies ApprovalResolution)],
    );
    return result.rowCount === 1;
  }

  /**
   * The broker a worker's runs ask. With `workerId`, an answer is used only while that worker still
   * holds the run: one whose run was taken over (its lease ran out before it noticed) leaves the
   * answer to the worker that holds the run now.
   */
  broker(workerId?: string): ApprovalBroker {
    return { request: (request, signal) => this.request(request, signal, workerId ?? null) };
  }

  /**
   * Of these calls of a run, the ones that provably never started: their approval is pending, or
   * answered and not yet used (an answer is marked used before its call runs).
   */
  async unstarted(runId: string, callIds: readonly string[]): Promise<ReadonlySet<string>> {
    const result = await this.pool.query<{ call_id: string }>(
      `SELECT call_id FROM glassbox_approvals WHERE run_id = $1 AND call_id = ANY($2::text[]) AND state IN ('pending', 'resolved')`,
      [runId, [...callIds]],
    );
    return new Set(result.rows.map((row) => row.call_id));
  }

  /**
   * A run this worker hands over (it is stopping): its waits, cut short, leave their rows as they
   * are, pending or answered, for the worker that takes the run over to ask again.
   */
  keepPending(runId: string): void {
    this.kept.add(runId);
  }

  /** Close what a finished run left pending, so no server lists it any more. */
  async closeRun(runId: string): Promise<void> {
    await this.pool.query(`UPDATE glassbox_approvals SET state = 'closed' WHERE run_id = $1 AND state = 'pending'`, [runId]);
  }

  /**
   * Resolves once the pending row of this call is written (or its INSERT failed), immediately
   * when none was asked for. The worker writes `approval_requested` only after it, so the event
   * never announces an approval that no server can list or answer yet.
   */
  async stored(runId: string, callId: string): Promise<void> {
    await this.inserts.get(`${runId}:${callId}`)?.catch(() => undefined);
  }

  private async request(request: ApprovalRequest, signal: AbortSignal, workerId: string | null): Promise<ApprovalResolution> {
    const key = `${request.runId}:${request.callId}`;
    const now = Date.now();
    const pending: PendingApproval = {
      ...request,
      requestedAt: new Date(now).toISOString(),
      expiresAt: new Date(now + this.timeoutMs).toISOString(),
    };
    // Started before any await: the tool runtime emits `approval_requested` and then calls this
    // in the same tick, so the worker's write of that event finds the INSERT here to wait for.
    // A row for this call already there stands, pending or answered: a takeover asks the call the
    // dead or stopped worker asked (resume's `unstartedCalls`), and its deadline stays the first one.
    // Fenced like the use of an answer: a worker whose run was taken over asks nothing of it (a row
    // it left would be listed for a call the run's holder never asks). Without a row the wait ends
    // only when the lease loss stops the turn.
    const insert = this.pool.query(
      `INSERT INTO glassbox_approvals (run_id, call_id, pending, state) SELECT $1, $2, $3, 'pending'
       WHERE $4::text IS NULL OR EXISTS (SELECT 1 FROM glassbox_runs WHERE run_id = $1 AND worker_id = $4 AND state = 'running' FOR SHARE)
       ON CONFLICT (run_id, call_id) DO NOTHING`,
      [request.runId, request.callId, JSON.stringify(pending), workerId],
    );
    this.inserts.set(key, insert);
    try {
      await Promise.all([this.bus.ready(), insert]);
    } finally {
      this.inserts.delete(key);
    }
    return new Promise<ApprovalResolution>((resolve) => {
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const settle = (resolution: ApprovalResolution, close: boolean): void => {
        if (settled) return;
        settled = true;
        this.waiters.delete(key);
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        if (close) void this.close(request).catch(() => undefined);
        resolve(resolution);
      };
      const arm = (ms: number): void => {
        clearTimeout(timer);
        timer = setTimeout(
          () => settle({ decision: 'deny', by: 'timeout', message: `No decision within ${Math.round(this.timeoutMs / 1000)} s.` }, true),
          Math.max(0, ms),
        );
      };
      // One look at a time: two could both see the answer, and the one that lost the race to use it
      // would then see the row closed.
      let looking = false;
      let again = false;
      let armed = false;
      const look = async (): Promise<void> => {
        const result = await this.pool.query<ApprovalRow & { expires_at: string | null }>(
          `SELECT state, resolution, pending->>'expiresAt' AS expires_at FROM glassbox_approvals WHERE run_id = $1 AND call_id = $2`,
          [request.runId, request.callId],
        );
        const row = result.rows[0];
        if (settled || row === undefined) return;
        if (!armed && row.expires_at !== null) {
          armed = true;
          arm(Date.parse(row.expires_at) - Date.now());
        }
        if (row.state === 'closed') {
          settle({ decision: 'deny', by: 'closed', message: 'This approval was closed before it was answered.' }, false);
          return;
        }
        if (row.state !== 'resolved' || row.resolution === null) return;
        // Used once, before the call runs: a takeover that finds the row closed knows the call may
        // have run, and gives it an interrupted output instead of running it again.
        // Fenced like the worker's event writes: FOR SHARE makes a takeover's claim wait for this
        // statement, or this one see the new holder (and leave the answer to it).
        const used = await this.pool.query<{ resolution: ApprovalResolution }>(
          `UPDATE glassbox_approvals SET state = 'closed' WHERE run_id = $1 AND call_id = $2 AND state = 'resolved'
           AND ($3::text IS NULL OR EXISTS (SELECT 1 FROM glassbox_runs WHERE run_id = $1 AND worker_id = $3 AND state = 'running' FOR SHARE))
           RETURNING resolution`,
          [request.runId, request.callId, workerId],
        );
        const answer = used.rows[0]?.resolution;
        if (answer !== undefined) settle(answer, false);
      };
      const check = (): void => {
        if (settled) return;
        if (looking) {
          again = true;
          return;
        }
        looking = true;
        void look()
          .catch(() => {
            // The database is away for a moment: look again soon (a NOTIFY may be lost with it).
            if (!settled) setTimeout(check, 1_000).unref();
          })
          .finally(() => {
            looking = false;
            if (again) {
              again = false;
              check();
            }
          });
      };
      const onAbort = (): void => settle({ decision: 'deny', by: 'cancelled', message: null }, !this.kept.has(request.runId));
      arm(this.timeoutMs);
      this.waiters.set(key, check);
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      // Answered before we listened (or before this worker took the run over).
      check();
    });
  }

  private async close(request: ApprovalRequest): Promise<void> {
    await this.pool.query(`UPDATE glassbox_approvals SET state = 'closed' WHERE run_id = $1 AND call_id = $2 AND state = 'pending'`, [
      request.runId,
      request.callId,
    ]);
  }
}
