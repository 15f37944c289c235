// Every approval any run on this server is waiting for, polled: a run waiting in another
// session (or started by another client) must still be seen — in the session list, the status
// box and the tab title — before its approval times out.

import { useCallback, useEffect, useState } from 'react';
import { api, type PendingApproval, type RunInfo } from '../api/index.js';

const POLL_MS = 1500;

export interface ServerActivity {
  approvals: PendingApproval[];
  /** Runs of this server (any client's), to know which run a shown session has going. */
  runs: RunInfo[];
  /** The server answered at least once (before that, `approvals` is empty for want of news, not for sure). */
  loaded: boolean;
  refresh(): void;
}

export function usePendingApprovals(): ServerActivity {
  const [approvals, setApprovals] = useState<PendingApproval[]>([]);
  const [runs, setRuns] = useState<RunInfo[]>([]);
  const [tick, setTick] = useState(0);
  const [loaded, setLoaded] = useState(false);

  useEffect(() => {
    let stale = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = () => {
      Promise.all([api.approvals(), api.runs()]).then(
        ([answer, list]) => {
          if (stale) return;
          // Keep the old arrays when nothing changed, so nothing re-renders every poll.
          setApprovals((known) => (JSON.stringify(known) === JSON.stringify(answer.approvals) ? known : answer.approvals));
          setRuns((known) => (JSON.stringify(known) === JSON.stringify(list.runs) ? known : list.runs));
          setLoaded(true);
          timer = setTimeout(poll, POLL_MS);
        },
        () => {
          if (!stale) timer = setTimeout(poll, POLL_MS * 2);
        },
      );
    };
    poll();
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [tick]);

  const refresh = useCallback(() => setTick((n) => n + 1), []);
  return { approvals, runs, loaded, refresh };
}

/** "(2) Approval needed · Glassbox": a waiting approval shows in the browser tab too. */
export function useTabTitle(pending: number, title: string): void {
  useEffect(() => {
    const base = title === '' ? 'Glassbox workbench' : `${title} · Glassbox`;
    document.title = pending > 0 ? `(${pending}) Approval needed · ${base}` : base;
  }, [pending, title]);
}
