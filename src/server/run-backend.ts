// What the run routes need from whoever runs the runs: the in-process `RunManager` with its
// `ApprovalRegistry` (the default), or the team server's PostgreSQL-backed pair (pg-run-manager.ts,
// pg-approval-desk.ts), whose answers come from the database and so may be promises.

import type { ApprovalDecisionKind, PendingApproval } from '../agent/index.js';
import type { EventSubscriber } from './run-event-log.js';
import type { CancelOutcome, RunListOptions, RunListPage, RunParameters } from './run-manager.js';

/** A run's numbered events: replayed after an id, then live until the terminal event. */
export interface RunEventSource {
  /** Newest id a client may name in Last-Event-ID. */
  readonly lastId: number;
  readonly finished: boolean;
  subscribe(afterId: number, subscriber: EventSubscriber): () => void;
}

export interface RunView {
  readonly runId: string;
  readonly sessionId: string | null;
  readonly log: RunEventSource;
}

export interface RunBackend {
  start(parameters: RunParameters): Promise<RunView>;
  get(runId: string): RunView | undefined | Promise<RunView | undefined>;
  /** Newest first; an unknown or malformed cursor is a 400 (HttpError). */
  list(options: RunListOptions): RunListPage | Promise<RunListPage>;
  cancel(runId: string, reason: string): CancelOutcome | Promise<CancelOutcome>;
  /** This process's own bookkeeping (compaction and deletion check it); sync for the session routes. */
  isSessionBusy(sessionId: string): boolean;
  reserveSession(sessionId: string): (() => void) | null;
  close(reason: string): Promise<void>;
}

export interface ApprovalDesk {
  list(runId?: string): PendingApproval[] | Promise<PendingApproval[]>;
  resolve(runId: string, callId: string, decision: ApprovalDecisionKind, message: string | null, by: string): boolean | Promise<boolean>;
}
