// A team worker: claims queued runs (runner/'s PgRunQueue), runs each turn as `serve` would, and
// writes what it emits for every server to stream: each commit of events is one INSERT and one
// NOTIFY; text deltas only a NOTIFY. The terminal event is stored in the statement that settles the
// row, fenced by this worker's id, so a run ends exactly once. A run claimed again after its worker
// died (attempt > 1) continues its session's interrupted turn (`continueRun`): the round that was
// cut off is redone, what was committed stays as it is. Cut off from the database, a worker stops
// each run whose lease lapsed (another worker may hold it now) and writes nothing more of it, claims
// nothing while claims fail, and takes work again once one gets through (docs/deploy.md). A worker
// that stops hands its runs over instead of cancelling them: it fences each run's session in the
// database (its writer's lease row goes, so nothing more of the stopped turn lands), leaves the
// run's approval rows as they are, and ends the run lease at once; the next worker continues the
// run and asks its pending approvals again (docs/team-server.md, "Stopping a worker").

import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { isTerminalEvent, type RunEvent, type TerminalRunEvent } from '../agent/index.js';
import { emptyUsage } from '../model/index.js';
import type { Pool } from 'pg';
import type { ClaimedRun, PgRunQueue } from '../runner/index.js';
import type { PgApprovalDesk } from './pg-approval-desk.js';
import { CANCELS_CHANNEL, DELTAS_CHANNEL, EVENTS_CHANNEL, type PgRunBus } from './pg-run-bus.js';
import type { QueuedRunPayload } from './pg-run-manager.js';
import type { RunParameters, TurnHooks } from './run-manager.js';

/** How long a takeover waits for the dead worker's session lease (a few leases of the default 5 s). */
const SESSION_LEASE_WAIT_MS = 20_000;

/** Below PostgreSQL's 8000-byte NOTIFY payload limit with room for the envelope. */
const MAX_DELTA_NOTIFY_CHARS = 2000;
const DEFAULT_MAX_RUNS = 8;
/** Backoff of claims while the database is unreachable. */
const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 5_000;
/** Event ids an attempt may use before the next attempt's begin (ids fit PostgreSQL's integer up to attempt 214). */
const IDS_PER_ATTEMPT = 10_000_000;

export type WorkerTurnStarter = (
  parameters: RunParameters,
  hooks: TurnHooks & {
    continueRun: boolean;
    /** Aborted once this worker no longer holds the run (its lease was lost, or it handed the run over). */
    leaseLost?: AbortSignal;
    unstartedCalls?: (callIds: readonly string[]) => Promise<ReadonlySet<string>>;
  },
) => Promise<{ terminal: TerminalRunEvent }>;

/** A run this worker works: how to cancel it, and how to hand it to another worker. */
interface ActiveRun {
  controller: AbortController;
  handOver(reason: string): Promise<void>;
  /** Approvals asked and not answered yet: a run waiting on a person is handed over at once. */
  pendingApprovals: Set<string>;
}

export interface PgRunWorkerOptions {
  startTurn: WorkerTurnStarter;
  maxRuns?: number;
  log: (message: string) => void;
  /**
   * How long a stopping worker lets its runs go on before it hands them over (default 0: at once).
   * A run finishing inside it ends here, its tools not interrupted; one waiting for an approval is
   * handed over as soon as it waits, since a person may take longer than any grace.
   */
  stopGraceMs?: number;
}

/** `callId` marks an `approval_requested` event, written only once its approval row is. */
type Op = { kind: 'event'; id: number; body: string; callId?: string } | { kind: 'delta'; payload: string };

function stateOf(terminal: TerminalRunEvent): 'succeeded' | 'failed' | 'cancelled' {
  if (terminal.type === 'run_succeeded') return 'succeeded';
  if (terminal.type === 'run_cancelled') return 'cancelled';
  return 'failed';
}

export class PgRunWorker {
  private readonly active = new Map<string, ActiveRun>();
  private readonly done = new Set<Promise<void>>();
  private stopping = false;
  /** Set once the runs still here are being handed over: writes are then tried once. */
  private handingOver = false;
  private stopReason = '';
  private loop: Promise<void> | null = null;
  private freed: (() => void) | null = null;

  constructor(
    private readonly pool: Pool,
    private readonly bus: PgRunBus,
    private readonly queue: PgRunQueue,
    private readonly approvals: PgApprovalDesk,
    private readonly options: PgRunWorkerOptions,
  ) {
    bus.on(CANCELS_CHANNEL, (runId) => void this.checkCancel(runId).catch(() => undefined));
    // A cancel announced while the LISTEN connection was down was missed: look again.
    bus.onReconnect(() => {
      for (const runId of this.active.keys()) void this.checkCancel(runId).catch(() => undefined);
    });
  }

  get workerId(): string {
    return this.queue.workerId;
  }

  start(): void {
    this.loop ??= this.work().catch((error: unknown) => this.options.log(`the worker stopped: ${(error as Error).message}`));
  }

  /**
   * Stop claiming; let the runs here go on for the stop grace (`hurry` cuts it short: a second
   * signal), handing over at once each one that waits for an approval; then hand the rest over to
   * the other workers (each run goes on there, its pending approvals still pending) and wait for
   * them to stop here.
   */
  async close(reason: string, hurry?: Promise<void>): Promise<void> {
    this.stopping = true;
    this.stopReason = reason;
    this.freed?.();
    const graceMs = this.options.stopGraceMs ?? 0;
    if (graceMs > 0 && this.active.size > 0) {
      for (const [runId, run] of this.active) if (run.pendingApprovals.size > 0) this.handOverRun(runId, run, reason);
      if (this.done.size > 0) {
        this.options.log(`letting ${this.done.size} run(s) finish for up to ${Math.round(graceMs / 100) / 10} s before handing them over`);
        const timer = new AbortController();
        await Promise.race([
          Promise.allSettled([...this.done]),
          sleep(graceMs, undefined, { signal: timer.signal }).catch(() => undefined),
          ...(hurry === undefined ? [] : [hurry]),
        ]);
        timer.abort();
      }
    }
    this.handingOver = true;
    for (const [runId, run] of this.active) this.handOverRun(runId, run, reason);
    await this.queue.close();
    await this.loop;
    await Promise.allSettled([...this.done]);
  }

  private handOverRun(runId: string, run: ActiveRun, reason: string): void {
    void run.handOver(reason).catch((error: unknown) => this.options.log(`run ${runId}: not handed over: ${(error as Error).message}`));
  }

  private async work(): Promise<void> {
    await this.bus.ready();
    await this.queue.listen();
    const maxRuns = this.options.maxRuns ?? DEFAULT_MAX_RUNS;
    let away: { since: number; delayMs: number } | null = null;
    while (!this.stopping) {
      if (this.active.size >= maxRuns) {
        await new Promise<void>((resolve) => (this.freed = resolve));
        continue;
      }
      let claim: ClaimedRun | null;
      try {
        claim = await this.queue.claim();
      } catch (error) {
        // The database is unreachable: take no work until a claim gets through again. The runs
        // held meanwhile stop when their leases lapse (leaseLost) and are taken over.
        if (this.stopping) return;
        if (away === null) {
          away = { since: Date.now(), delayMs: RETRY_FIRST_MS };
          this.options.log(`the database is unreachable (${(error as Error).message}); taking no work until it is back`);
        } else away.delayMs = Math.min(away.delayMs * 2, RETRY_MAX_MS);
        await this.pause(away.delayMs);
        continue;
      }
      if (away !== null) {
        this.options.log(`the database is back after ${Math.round((Date.now() - away.since) / 1000)} s; taking work again`);
        away = null;
      }
      if (this.stopping) {
        await claim?.abandon();
        return;
      }
      if (claim === null) {
        await this.queue.waitForWork();
        continue;
      }
      const running = this.execute(claim).catch((error: unknown) => this.options.log(`run ${claim.runId}: ${(error as Error).message}`));
      this.done.add(running);
      void running.finally(() => {
        this.done.delete(running);
        this.freed?.();
      });
    }
  }

  /** A wait that `close` cuts short. */
  private pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.freed = done;
    });
  }

  private async checkCancel(runId: string): Promise<void> {
    const controller = this.active.get(runId)?.controller;
    if (controller === undefined) return;
    const result = await this.pool.query<{ cancel_reason: string | null }>('SELECT cancel_reason FROM glassbox_runs WHERE run_id = $1', [
      runId,
    ]);
    const reason = result.rows[0]?.cancel_reason;
    if (reason !== null && reason !== undefined) controller.abort(reason);
  }

  private async execute(claim: ClaimedRun): Promise<void> {
    const { runId } = claim;
    const { parameters } = claim.payload as QueuedRunPayload;
    const stored = await this.pool.query<{ last: number | null; started: boolean }>(
      `SELECT max(id) AS last, bool_or(body LIKE '{"type":"run_started"%') AS started FROM glassbox_run_events WHERE run_id = $1`,
      [runId],
    );
    // A takeover numbers above anything the dead worker could have sent: its deltas were numbered
    // but not stored, and a client that saw one re-attaches with its id and must miss nothing new.
    let nextId = Math.max((stored.rows[0]?.last ?? 0) + 1, (claim.attempt - 1) * IDS_PER_ATTEMPT + 1);
    const alreadyStarted = stored.rows[0]?.started === true;
    const controller = new AbortController();
    const ops: Op[] = [];
    // Aborted once another worker may hold the run (the lease was lost, or the run handed over):
    // this one writes nothing more of it.
    const gone = new AbortController();
    // The run's session, once the turn has opened it (run_started names it): what a hand-over fences.
    let sessionId: string | null = null;
    let handedOver = false;
    const handOver = async (reason: string): Promise<void> => {
      if (handedOver || gone.signal.aborted) return;
      // The session's writer loses its lease row first: from then on the database refuses its
      // appends, so nothing of the turn stopped here lands after what the next worker replays.
      // No row (the session is not open yet, or closed already): nothing to fence, so the run is
      // cancelled as a stopping `serve` cancels.
      const fenced =
        sessionId === null
          ? 0
          : ((
              await this.pool.query('DELETE FROM glassbox_session_leases WHERE session_id = $1 AND pid = $2 AND host = $3', [
                sessionId,
                process.pid,
                hostname(),
              ])
            ).rowCount ?? 0);
      if (fenced === 0) {
        controller.abort(reason);
        return;
      }
      handedOver = true;
      this.approvals.keepPending(runId);
      ops.length = 0;
      gone.abort();
      controller.abort('the worker is stopping; another worker continues the run');
    };
    const pendingApprovals = new Set<string>();
    const active: ActiveRun = {
      controller,
      pendingApprovals,
      handOver: (reason) =>
        handOver(reason).catch((error: unknown) => {
          controller.abort(reason);
          throw error;
        }),
    };
    this.active.set(runId, active);
    // Once the lease is lost another worker may hold the run: stop the turn and write nothing more.
    // `gone` is the turn's session fence (runTurn's `fence`): its writer refuses every record from
    // this moment, locally; the stopped turn still tries to record its end, and its session lease
    // (renewed on its own timer) may outlive the run lease, so without the fence that record would
    // land after the worker that took the run over claimed it. The revoked writer deletes its
    // session lease row by its own token, so the taker-over need not wait for it to lapse (cut off
    // from the database, that DELETE cannot land, and the lease lapses instead). Not by pid and
    // host: a DELETE that lands late would remove the lease of this process's next attempt.
    const onLeaseLost = (): void => {
      this.options.log(`run ${runId}: ${(claim.leaseLost.reason as Error).message}; stopping it here`);
      ops.length = 0;
      gone.abort();
      // The run's approval rows are the taker-over's now: its waits, cut short, leave them as they are.
      this.approvals.keepPending(runId);
      controller.abort('the worker lost its run lease');
    };
    claim.leaseLost.addEventListener('abort', onLeaseLost, { once: true });
    await this.checkCancel(runId).catch(() => undefined);

    let flushing: Promise<void> = Promise.resolve();
    const flush = (): void => {
      if (gone.signal.aborted) return;
      flushing = flushing
        .then(() => this.write(runId, ops, gone.signal))
        .catch((error: unknown) => this.options.log(`run ${runId}: events not written: ${(error as Error).message}`));
    };
    let terminal: TerminalRunEvent | null = null;
    const onEvent = (event: RunEvent): void => {
      if (isTerminalEvent(event)) {
        // Held back until the turn has closed its session: a client that sees it may start the next turn.
        terminal ??= event;
        return;
      }
      // A takeover's run_started would tell the streams nothing new.
      if (event.type === 'run_started') {
        sessionId = event.sessionId;
        // Fenced like every write of the run: a worker that lost it names no session on it.
        void this.pool
          .query("UPDATE glassbox_runs SET session_id = $2 WHERE run_id = $1 AND worker_id = $3 AND state = 'running'", [
            runId,
            event.sessionId,
            this.queue.workerId,
          ])
          .catch(() => undefined);
        if (alreadyStarted) return;
      }
      const id = nextId;
      nextId += 1;
      if (event.type === 'assistant_delta') {
        if (event.delta.length <= MAX_DELTA_NOTIFY_CHARS) {
          ops.push({ kind: 'delta', payload: JSON.stringify({ r: runId, i: id, n: event.round, d: event.delta }) });
        }
      } else {
        ops.push({
          kind: 'event',
          id,
          body: JSON.stringify(event),
          ...(event.type === 'approval_requested' ? { callId: event.callId } : {}),
        });
      }
      flush();
      if (event.type === 'approval_resolved') pendingApprovals.delete(event.callId);
      if (event.type === 'approval_requested') {
        pendingApprovals.add(event.callId);
        // Stopping, in its grace: a person may answer later than any grace, so the run goes to
        // another worker now, once the approval's row (written with the event) is stored.
        if (this.stopping) void flushing.then(() => this.handOverRun(runId, active, this.stopReason));
      }
    };

    let end: TerminalRunEvent;
    try {
      const resume = claim.sessionId ?? parameters.sessionId;
      const start = () =>
        this.options.startTurn(
          { ...parameters, sessionId: resume },
          {
            runId,
            signal: controller.signal,
            approvals: this.approvals.broker(this.queue.workerId),
            onEvent,
            continueRun: claim.attempt > 1 && resume !== null,
            leaseLost: gone.signal,
            unstartedCalls: (callIds) => this.approvals.unstarted(runId, callIds),
          },
        );
      // A takeover can claim the run a moment before the dead worker's session lease runs out
      // (the two leases are renewed at their own times): wait for it rather than fail the run.
      const deadline = Date.now() + SESSION_LEASE_WAIT_MS;
      let result: Awaited<ReturnType<typeof start>>;
      for (;;) {
        try {
          result = await start();
          break;
        } catch (error) {
          const locked = (error as { code?: unknown } | null)?.code === 'SESSION_LOCKED';
          if (!locked || claim.attempt === 1 || Date.now() > deadline || controller.signal.aborted) throw error;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
      end = terminal ?? result.terminal;
    } catch (error) {
      this.options.log(`run ${runId} ended with an error: ${(error as Error)?.message ?? String(error)}`);
      end = terminal ?? {
        type: 'run_failed',
        error: { code: 'INTERNAL_ERROR', message: 'The run stopped because of an internal error; see the server log.' },
        usage: { total: emptyUsage(), byStage: {}, calls: 0 },
        rounds: 0,
      };
    } finally {
      this.active.delete(runId);
    }
    flush();
    await flushing;
    claim.leaseLost.removeEventListener('abort', onLeaseLost);
    if (handedOver) {
      // Still running, its lease ended now: the next claim continues it (attempt + 1).
      await claim.handOver().catch((error: unknown) => this.options.log(`run ${runId}: lease not ended: ${(error as Error).message}`));
      this.options.log(`run ${runId}: handed over to the other workers`);
      return;
    }
    // Settle the row and store the terminal event in one statement, only while this worker holds
    // it. The lease is renewed until it lands: through a short loss of the database the statement
    // is retried; a longer one loses the lease, and the taker-over ends the run instead.
    await this.untilWritten(claim.leaseLost, () =>
      this.pool.query(
        `WITH f AS (UPDATE glassbox_runs SET state = $3, result = $4, lease_expires_at = NULL, updated_at = clock_timestamp()
           WHERE run_id = $1 AND worker_id = $2 AND state = 'running' RETURNING run_id),
         e AS (INSERT INTO glassbox_run_events (run_id, id, body) SELECT run_id, $5, $6 FROM f RETURNING id),
         c AS (UPDATE glassbox_approvals SET state = 'closed' WHERE run_id IN (SELECT run_id FROM f) AND state = 'pending')
         SELECT pg_notify('${EVENTS_CHANNEL}', $1 || ':' || id) FROM e`,
        [runId, this.queue.workerId, stateOf(end), JSON.stringify({ type: end.type }), nextId, JSON.stringify(end)],
      ),
    );
    claim.stopRenewing();
  }

  /**
   * Run a write until it gets through or the lease is lost (after which another worker may hold
   * the run and this one must write nothing). A write is safe to repeat: events are inserted
   * with `ON CONFLICT DO NOTHING` on their ids, and the end is fenced on the row still running.
   */
  private async untilWritten(leaseLost: AbortSignal, write: () => Promise<unknown>): Promise<boolean> {
    let delayMs = RETRY_FIRST_MS;
    for (;;) {
      if (leaseLost.aborted) return false;
      try {
        await write();
        return true;
      } catch (error) {
        // A stopping worker tries once: its runs are taken over from what is stored.
        if (leaseLost.aborted || this.handingOver) return false;
        this.options.log(`a write failed (${(error as Error).message}); retrying in ${delayMs} ms`);
        // Cut short when the lease is lost; the loop's first line then gives up.
        await sleep(delayMs, undefined, { signal: leaseLost }).catch(() => undefined);
        delayMs = Math.min(delayMs * 2, RETRY_MAX_MS);
      }
    }
  }

  /**
   * Write what is queued, in order: consecutive events as one INSERT + one NOTIFY, deltas as
   * NOTIFYs. Events are retried through a short loss of the database (a stream must not miss a
   * committed event); deltas are not stored anywhere, so a failed batch of them is dropped.
   */
  private async write(runId: string, ops: Op[], leaseLost: AbortSignal): Promise<void> {
    while (ops.length > 0) {
      const kind = ops[0]!.kind;
      let count = 0;
      while (count < ops.length && ops[count]!.kind === kind) count += 1;
      const batch = ops.splice(0, count);
      if (kind === 'delta') {
        const payloads = batch.map((op) => (op.kind === 'delta' ? op.payload : ''));
        await this.pool
          .query(`SELECT pg_notify('${DELTAS_CHANNEL}', p) FROM unnest($1::text[]) WITH ORDINALITY AS t(p, n) ORDER BY n`, [payloads])
          .catch(() => undefined);
        continue;
      }
      const events = batch.filter((op): op is Extract<Op, { kind: 'event' }> => op.kind === 'event');
      // An approval's row is written before the event that announces it: a client that sees
      // `approval_requested` on any server can answer it at once.
      for (const op of events) if (op.callId !== undefined) await this.approvals.stored(runId, op.callId);
      // Fenced like the end: a worker that lost the run (its lease lapsed) stores nothing more.
      // FOR SHARE makes a takeover's claim wait for this statement, or this one see the new holder.
      // A repeat after a lost reply inserts nothing (the ids are there) and announces nothing.
      const written = await this.untilWritten(leaseLost, () =>
        this.pool.query(
          `WITH i AS (INSERT INTO glassbox_run_events (run_id, id, body) SELECT $1, id, body FROM unnest($2::int[], $3::text[]) AS t(id, body)
             WHERE EXISTS (SELECT 1 FROM glassbox_runs WHERE run_id = $1 AND worker_id = $5 AND state = 'running' FOR SHARE)
             ON CONFLICT (run_id, id) DO NOTHING RETURNING id)
           SELECT pg_notify('${EVENTS_CHANNEL}', $1 || ':' || $4::text) FROM (SELECT count(*) AS n FROM i) AS done WHERE n > 0`,
          [runId, events.map((op) => op.id), events.map((op) => op.body), events[events.length - 1]!.id, this.queue.workerId],
        ),
      );
      if (!written) return;
    }
  }
}
