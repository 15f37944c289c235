// The top bar's switch for approval notifications (use-approval-notifications.ts). Its name stays
// "Notify me of approvals" on a phone, where only "Notify" fits on screen.

import type { ApprovalNotifications } from './use-approval-notifications.js';

export function NotificationToggle({ notifications }: { notifications: ApprovalNotifications }) {
  if (notifications.state === 'unsupported') return null;
  const blocked = notifications.state === 'blocked';
  return (
    <button
      type="button"
      className="small ghost"
      aria-pressed={notifications.state === 'on'}
      aria-label={blocked ? undefined : 'Notify me of approvals'}
      onClick={() => void notifications.toggle()}
      title={
        blocked
          ? 'This browser blocks notifications from this page; allow them in the site settings, then click again.'
          : 'A desktop notification when a run waits for your approval and you are not looking at it'
      }
    >
      {blocked ? (
        'Notifications blocked'
      ) : (
        <>
          Notify<span className="wide-only"> me of approvals</span>
        </>
      )}
    </button>
  );
}
