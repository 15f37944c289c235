// Runs started over HTTP. Each run gets its own AbortController and event log; a run keeps going
// when its clients disconnect (only `cancel` stops it), and a session has at most one active run
// (or compaction) at a time, because the session file has one writer.

import { randomUUID } from 'node:crypto';
import { isTerminalEvent, type ApprovalBroker, type RunEvent, type TerminalRunEvent } from '../agent/index.js';
import type { SandboxMode } from '../workspace/index.js';
import { emptyUsage, type WireApi } from '../model/index.js';
import type { ApprovalPolicy } from '../permissions/index.js';
import { HttpError } from './http-error.js';
import { DEFAULT_MAX_DELTA_CHARS, RunEventLog } from './run-event-log.js';
import type { RunProject } from './run-project.js';

import type { RunInfo, RunStatus } from '../protocol/index.js';

export type { RunStatus };

export interface RunParameters {
  prompt: string;
  /** Continue this session; null starts a new one. */
  sessionId: string | null;
  model: string;
  wireApi: WireApi;
  sandbox: SandboxMode;
  approvalPolicy: ApprovalPolicy;
  compactAt: string | null;
  /** Where the run works (checked against the server's settings); null: the server's root. */
  project?: RunProject | null;
}

export interface TurnHooks {
  runId: string;
  signal: AbortSignal;
  approvals: ApprovalBroker;
  onEvent: (event: RunEvent) => void;
}

/** Runs one turn to its end; the server's implementation is `openRunner` + `runTurn`. */
export type TurnStarter = (parameters: RunParameters, hooks: TurnHooks) => Promise<{ terminal: TerminalRunEvent }>;

/** A run as `GET /api/runs` lists it (protocol/'s `RunInfo`). */
export type RunSummary = RunInfo;

/** A page of `GET /api/runs`: newest first; `cursor` is an earlier page's `nextCursor` (opaque, per backend). */
export interface RunListOptions {
  limit: number;
  cursor: string | null;
}

export interface RunListPage {
  runs: RunSummary[];
  nextCursor: string | null;
}

export interface RunManagerOptions {
  startTurn: TurnStarter;
  approvals: ApprovalBroker;
  /** Finished runs kept for replay before the oldest are forgotten. */
  keepFinishedRuns?: number;
  maxDeltaChars?: number;
  log: (message: string) => void;
}

export class ManagedRun {
  readonly runId: string;
  readonly prompt: string;
  readonly startedAt = new Date().toISOString();
  readonly log: RunEventLog;
  readonly controller = new AbortController();
  sessionId: string | null;
  status: RunStatus = 'running';
  /** Settles when the turn has fully ended (its file closed); never rejects. */
  done: Promise<void> = Promise.resolve();

  constructor(
    runId: string,
    parameters: RunParameters,
    maxDeltaChars: number,
    /** Start order: the list's cursor, which stays valid while older runs are forgotten. */
    readonly sequence = 0,
  ) {
    this.runId = runId;
    this.prompt = parameters.prompt;
    this.sessionId = parameters.sessionId;
    this.log = new RunEventLog(maxDeltaChars);
  }

  summary(): RunSummary {
    return { runId: this.runId, sessionId: this.sessionId ?? '', status: this.status, startedAt: this.startedAt, prompt: this.prompt };
  }
}

export type CancelOutcome = 'cancelled' | 'finished' | 'unknown';

function statusOf(terminal: TerminalRunEvent): RunStatus {
  if (terminal.type === 'run_succeeded') return 'succeeded';
  if (terminal.type === 'run_cancelled') return 'cancelled';
  return 'failed';
}

export class RunManager {
  private readonly runs = new Map<string, ManagedRun>();
  private readonly busySessions = new Set<string>();
  private readonly finishedOrder: string[] = [];
  private closing = false;
  private started = 0;

  constructor(private readonly options: RunManagerOptions) {}

  /**
   * Start a run. Resolves once the run emitted its first event (so the caller can answer with a
   * stream), or rejects with what stopped it before that: a busy session (409), a session that
   * cannot be opened, a bad gateway…
   */
  async start(parameters: RunParameters): Promise<ManagedRun> {
    if (this.closing) throw new HttpError(409, 'the server is shutting down');
    const release = parameters.sessionId === null ? null : this.reserveSession(parameters.sessionId);
    if (parameters.sessionId !== null && release === null) {
      throw new HttpError(409, `session ${parameters.sessionId} already has an active run; wait for it or cancel it`);
    }
    this.started += 1;
    const run = new ManagedRun(randomUUID(), parameters, this.options.maxDeltaChars ?? DEFAULT_MAX_DELTA_CHARS, this.started);
    this.runs.set(run.runId, run);

    let releaseSession = release;
    let started!: () => void;
    let failedEarly!: (error: unknown) => void;
    const firstEvent = new Promise<void>((resolve, reject) => {
      started = resolve;
      failedEarly = reject;
    });
    // The terminal event is held back until the turn has closed its session file: a client that
    // sees it may start the next turn at once, and must not find the session still busy.
    let terminal: TerminalRunEvent | null = null;
    const onEvent = (event: RunEvent): void => {
      if (isTerminalEvent(event)) {
        terminal ??= event;
        return;
      }
      if (event.type === 'run_started' && run.sessionId === null) {
        run.sessionId = event.sessionId;
        releaseSession = this.reserveSession(event.sessionId);
      }
      this.record(run, event);
      started();
    };
    const finish = (event: TerminalRunEvent): void => {
      releaseSession?.();
      this.record(run, event);
      this.remember(run.runId);
      started();
    };

    run.done = this.options
      .startTurn(parameters, { runId: run.runId, signal: run.controller.signal, approvals: this.options.approvals, onEvent })
      .then(
        (result) => finish(terminal ?? result.terminal),
        (error: unknown) => {
          releaseSession?.();
          if (run.log.lastId === 0 && terminal === null) {
            this.runs.delete(run.runId);
            failedEarly(error);
            return;
          }
          // The turn failed after it started (e.g. its session file could not be closed): clients
          // still get a terminal event instead of a stream that never ends.
          this.options.log(`run ${run.runId} ended with an error: ${(error as Error)?.message ?? String(error)}`);
          finish(
            terminal ?? {
              type: 'run_failed',
              error: { code: 'INTERNAL_ERROR', message: 'The run stopped because of an internal error; see the server log.' },
              usage: { total: emptyUsage(), byStage: {}, calls: 0 },
              rounds: 0,
            },
          );
        },
      )
      .catch((error: unknown) => this.options.log(`run ${run.runId}: ${(error as Error)?.message ?? String(error)}`));

    await firstEvent;
    return run;
  }

  private record(run: ManagedRun, event: RunEvent): void {
    if (isTerminalEvent(event)) run.status = statusOf(event);
    run.log.append(event);
  }

  /** Keep at most `keepFinishedRuns` finished runs; forget the oldest. */
  private remember(runId: string): void {
    this.finishedOrder.push(runId);
    const keep = this.options.keepFinishedRuns ?? 100;
    while (this.finishedOrder.length > keep) {
      const oldest = this.finishedOrder.shift();
      if (oldest !== undefined) this.runs.delete(oldest);
    }
  }

  /** Mark a session busy; null when it already is. The returned function frees it (once). */
  reserveSession(sessionId: string): (() => void) | null {
    if (this.busySessions.has(sessionId)) return null;
    this.busySessions.add(sessionId);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.busySessions.delete(sessionId);
    };
  }

  isSessionBusy(sessionId: string): boolean {
    return this.busySessions.has(sessionId);
  }

  get(runId: string): ManagedRun | undefined {
    const run = this.runs.get(runId);
    return run !== undefined && run.log.lastId > 0 ? run : undefined;
  }

  /** Started runs, newest first, `limit` at a time; the cursor is the last listed run's start number. */
  list(options: RunListOptions): RunListPage {
    let before = Number.POSITIVE_INFINITY;
    if (options.cursor !== null) {
      before = /^[1-9]\d{0,15}$/.test(options.cursor) ? Number(options.cursor) : Number.NaN;
      if (!Number.isSafeInteger(before) || before > this.started) throw new HttpError(400, `invalid runs cursor: ${options.cursor}`);
    }
    const older = [...this.runs.values()].filter((run) => run.log.lastId > 0 && run.sequence < before).reverse();
    const page = older.slice(0, options.limit);
    const last = page.at(-1);
    return { runs: page.map((run) => run.summary()), nextCursor: older.length > page.length && last ? String(last.sequence) : null };
  }

  cancel(runId: string, reason: string): CancelOutcome {
    const run = this.get(runId);
    if (run === undefined) return 'unknown';
    if (run.log.finished) return 'finished';
    run.controller.abort(reason);
    return 'cancelled';
  }

  /** Cancel every active run and wait until each has ended. */
  async close(reason: string): Promise<void> {
    this.closing = true;
    const active = [...this.runs.values()];
    for (const run of active) if (!run.log.finished) run.controller.abort(reason);
    await Promise.allSettled(active.map((run) => run.done));
  }
}
