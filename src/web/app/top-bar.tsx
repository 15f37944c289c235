// The bar across the top: what this server runs (root, model, wire), notifications, the shortcut
// help, and on a narrow screen the switch between the three panes.

import type { Health } from '../api/index.js';
import { NotificationToggle } from './notification-toggle.js';
import type { ApprovalNotifications } from './use-approval-notifications.js';

export type Pane = 'sidebar' | 'transcript' | 'inspector';

export interface TopBarProps {
  health: Health;
  notifications: ApprovalNotifications;
  pane: Pane;
  onPane: (pane: Pane) => void;
  pendingApprovals: number;
  onHelp: () => void;
}

export function TopBar({ health, notifications, pane, onPane, pendingApprovals, onHelp }: TopBarProps) {
  return (
    <header className="topbar">
      <span className="brand">Glassbox</span>
      <span className="topbar-root mono" title="project root">
        {health.root}
      </span>
      <span className="topbar-model">
        {health.model} · {health.wireApi}
        {health.demo && <span className="badge">demo</span>}
      </span>
      <NotificationToggle notifications={notifications} />
      <button type="button" className="small ghost" onClick={onHelp} aria-label="Keyboard shortcuts (?)">
        ?
      </button>
      <nav className="pane-switch" aria-label="Panes">
        {(['sidebar', 'transcript', 'inspector'] as const).map((name) => (
          <button key={name} type="button" aria-pressed={pane === name} onClick={() => onPane(name)}>
            {name === 'sidebar' ? 'Runs' : name === 'transcript' ? 'Transcript' : 'Inspector'}
            {name === 'sidebar' && pendingApprovals > 0 && <span className="pill pill-approval">{pendingApprovals}</span>}
          </button>
        ))}
      </nav>
    </header>
  );
}

/** Shown while the server cannot be reached; a run goes on there and is followed again after. */
export function OfflineBanner({ retryIn, onRetry }: { retryIn: number; onRetry: () => void }) {
  return (
    <div className="offline-banner" role="alert">
      <strong>The Glassbox server cannot be reached.</strong> Retrying{retryIn > 0 ? ` in ${retryIn} s` : '…'}
      {'; '}a running turn goes on on the server and is followed again when it answers.{' '}
      <button type="button" className="small" onClick={onRetry}>
        Retry now
      </button>
    </div>
  );
}
