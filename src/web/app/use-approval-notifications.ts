// Optional desktop notifications for approvals, so a run waiting in a background tab is not missed
// until it times out. Off by default; turning them on is a click (the browser asks for permission
// only on a user gesture), remembered in this browser. A notification is shown for an approval
// that appears while the person is not looking at it: the page hidden or unfocused, or another
// session shown. Clicking it brings the page forward on that session.

import { useCallback, useEffect, useRef, useState } from 'react';
import type { PendingApproval } from '../api/index.js';
import { withoutRoot } from '../transcript/index.js';

const STORAGE_KEY = 'glassbox.approvalNotifications';

export type NotificationState = 'unsupported' | 'off' | 'on' | 'blocked';

export interface ApprovalNotifications {
  state: NotificationState;
  /** Turns them on (asking the browser when needed) or off. Call from a click. */
  toggle(): Promise<void>;
}

function supported(): boolean {
  return typeof window !== 'undefined' && 'Notification' in window;
}

function initialState(): NotificationState {
  if (!supported()) return 'unsupported';
  if (Notification.permission === 'denied') return 'blocked';
  const wanted = window.localStorage.getItem(STORAGE_KEY) === 'on';
  return wanted && Notification.permission === 'granted' ? 'on' : 'off';
}

const keyOf = (approval: PendingApproval) => `${approval.runId}\u0000${approval.callId}`;

export function useApprovalNotifications(
  /** null until the server first answered. */
  approvals: PendingApproval[] | null,
  shownSessionId: string | null,
  onOpenSession: (sessionId: string) => void,
  root: string,
): ApprovalNotifications {
  const [state, setState] = useState<NotificationState>(initialState);
  // Approvals already known: those pending when the page (or the notifications) started are the
  // person's to see on the page, not news.
  const seen = useRef<Set<string> | null>(null);
  const latest = useRef({ shownSessionId, onOpenSession, root });
  latest.current = { shownSessionId, onOpenSession, root };

  useEffect(() => {
    if (approvals === null) return;
    if (seen.current === null || state !== 'on') {
      seen.current = new Set(approvals.map(keyOf));
      return;
    }
    for (const approval of approvals) {
      const key = keyOf(approval);
      if (seen.current.has(key)) continue;
      seen.current.add(key);
      const looking = document.visibilityState === 'visible' && document.hasFocus() && approval.sessionId === latest.current.shownSessionId;
      if (looking) continue;
      const notification = new Notification('Glassbox: approval needed', {
        body: withoutRoot(approval.summary || approval.toolName, latest.current.root),
        tag: key,
        requireInteraction: true,
      });
      notification.onclick = () => {
        window.focus();
        if (approval.sessionId !== null) latest.current.onOpenSession(approval.sessionId);
        notification.close();
      };
    }
  }, [approvals, state]);

  const toggle = useCallback(async () => {
    if (!supported()) return;
    if (state === 'on') {
      window.localStorage.setItem(STORAGE_KEY, 'off');
      setState('off');
      return;
    }
    const permission = Notification.permission === 'default' ? await Notification.requestPermission() : Notification.permission;
    if (permission !== 'granted') {
      setState('blocked');
      return;
    }
    window.localStorage.setItem(STORAGE_KEY, 'on');
    setState('on');
  }, [state]);

  return { state, toggle };
}
