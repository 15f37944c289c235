// What the current run is doing, at a glance, with the way back to it when another session is open.

import { formatCount } from '../format/index.js';
import type { LiveRun } from '../live-run/index.js';

export interface RunStatusProps {
  run: LiveRun | null;
  showingRun: boolean;
  onShow(): void;
  onDismiss(): void;
}

const LABEL = {
  starting: 'Starting',
  running: 'Running',
  succeeded: 'Succeeded',
  failed: 'Failed',
  cancelled: 'Cancelled',
  lost: 'Connection lost',
} as const;

export function RunStatus({ run, showingRun, onShow, onDismiss }: RunStatusProps) {
  if (run === null) {
    return (
      <section className="run-status" aria-label="Run status">
        <span className="status-pill status-idle">Idle</span>
        <span className="muted">No run in this window.</span>
      </section>
    );
  }
  const rounds = run.events.filter((entry) => entry.event.type === 'model_requested').length;
  let totalTokens: number | null = null;
  for (const { event } of run.events) {
    if (event.type === 'run_succeeded' || event.type === 'run_failed' || event.type === 'run_cancelled') totalTokens = event.usage.total.totalTokens;
  }
  const active = run.status === 'starting' || run.status === 'running';
  return (
    <section className="run-status" aria-label="Run status" aria-live="polite">
      <div className="run-status-line">
        <span className={`status-pill status-${run.status}`}>{LABEL[run.status]}</span>
        {run.connection === 'reconnecting' && active && <span className="status-pill status-reconnecting">Reconnecting…</span>}
        <span className="muted small-text">
          {rounds} model call{rounds === 1 ? '' : 's'}
          {totalTokens !== null && ` · ${formatCount(totalTokens)} tokens`}
        </span>
      </div>
      {run.runId !== null && <div className="muted small-text mono" title="run id">{run.runId}</div>}
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
