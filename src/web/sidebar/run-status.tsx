// What the current run is doing, at a glance, with the way back to it when another session is open.

import type { PendingApproval } from '../api/index.js';
import { formatCount } from '../format/index.js';
import type { LiveRun } from '../live-run/index.js';
import { useProjectRoot, withoutRoot } from '../transcript/index.js';

export interface RunStatusProps {
  run: LiveRun | null;
  showingRun: boolean;
  /** Every approval any run of this server waits for. */
  approvals: PendingApproval[];
  onShow(): void;
  onOpenSession(sessionId: string): void;
  onDismiss(): void;
}

/** Approvals waiting anywhere, each with the way to its session: none may wait unseen. */
function WaitingApprovals({ approvals, onOpenSession }: { approvals: PendingApproval[]; onOpenSession(sessionId: string): void }) {
  const root = useProjectRoot();
  if (approvals.length === 0) return null;
  return (
    <div className="waiting-approvals" role="status">
      <span className="pill pill-approval">
        {approvals.length} approval{approvals.length === 1 ? '' : 's'} waiting
      </span>
      <ul>
        {approvals.map((approval) => (
          <li key={`${approval.runId}:${approval.callId}`}>
            <span className="waiting-summary">{withoutRoot(approval.summary || approval.toolName, root)}</span>{' '}
            {approval.sessionId !== null && (
              <button type="button" className="link small-text" onClick={() => onOpenSession(approval.sessionId as string)}>
                Open
              </button>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}

const LABEL = {
  starting: 'Starting',
  running: 'Running',
  succeeded: 'Succeeded',
  failed: 'Failed',
  cancelled: 'Cancelled',
  lost: 'Connection lost',
} as const;

export function RunStatus({ run, showingRun, approvals, onShow, onOpenSession, onDismiss }: RunStatusProps) {
  if (run === null) {
    return (
      // Idle with nothing waiting: on a phone it is left out, so the session list fits the first screen.
      <section className={`run-status${approvals.length === 0 ? ' run-status-idle' : ''}`} aria-label="Run status">
        <span className="status-pill status-idle">Idle</span>
        <span className="muted">No run in this window.</span>
        <WaitingApprovals approvals={approvals} onOpenSession={onOpenSession} />
      </section>
    );
  }
  const rounds = run.events.filter((entry) => entry.event.type === 'model_requested').length;
  let totalTokens: number | null = null;
  for (const { event } of run.events) {
    if (event.type === 'run_succeeded' || event.type === 'run_failed' || event.type === 'run_cancelled')
      totalTokens = event.usage.total.totalTokens;
  }
  const active = run.status === 'starting' || run.status === 'running';
  // One state at a time: a run asked to stop says so, not "Running" beside a "Cancelling…" button.
  const cancelling = active && run.cancelRequested;
  return (
    <section className="run-status" aria-label="Run status" aria-live="polite">
      <div className="run-status-line">
        <span className={`status-pill status-${cancelling ? 'cancelling' : run.status}`}>
          {cancelling ? 'Cancelling…' : LABEL[run.status]}
        </span>
        {run.connection === 'reconnecting' && active && <span className="status-pill status-reconnecting">Reconnecting…</span>}
        <span className="muted small-text">
          {rounds} model call{rounds === 1 ? '' : 's'}
          {totalTokens !== null && ` · ${formatCount(totalTokens)} tokens`}
        </span>
      </div>
      {run.runId !== null && (
        <div className="muted small-text run-id">
          Run <span className="mono">{run.runId}</span>
        </div>
      )}
      <WaitingApprovals approvals={approvals} onOpenSession={onOpenSession} />
      {run.error !== null && (
        <p className="error-text" role="alert">
          {run.error}
        </p>
      )}
      <div className="run-status-actions">
        {!showingRun && run.sessionId !== null && (
          <button type="button" className="small ghost" onClick={onShow}>
            Show this run
          </button>
        )}
        {!active && (
          <button type="button" className="small ghost" onClick={onDismiss}>
            Clear
          </button>
        )}
      </div>
    </section>
  );
}
