// The selected session, loaded whole (every record page) and turned into transcript turns.

import { useEffect, useMemo, useState } from 'react';
import { ApiError, describeError, loadAllRecords, type SessionPage } from '../api/index.js';
import { transcriptFromRecords, type TranscriptTurn } from '../transcript/index.js';

export interface SessionData {
  page: SessionPage | null;
  turns: TranscriptTurn[];
  loading: boolean;
  error: string | null;
  /** The server does not know the session (yet: a new run's session appears with its first record). */
  missing: boolean;
}

export function useSessionData(sessionId: string | null, version: number): SessionData {
  const [page, setPage] = useState<{ sessionId: string; page: SessionPage } | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [missing, setMissing] = useState(false);

  useEffect(() => {
    if (sessionId === null) {
      setPage(null);
      setError(null);
      setMissing(false);
      return;
    }
    const controller = new AbortController();
    setLoading(true);
    loadAllRecords(sessionId, controller.signal).then(
      (loaded) => {
        if (controller.signal.aborted) return;
        setPage({ sessionId, page: loaded });
        setError(null);
        setMissing(false);
        setLoading(false);
      },
      (failure: unknown) => {
        if (controller.signal.aborted) return;
        const notFound = failure instanceof ApiError && failure.status === 404;
        setMissing(notFound);
        setError(notFound ? null : describeError(failure));
        setLoading(false);
      },
    );
    return () => controller.abort();
  }, [sessionId, version]);

  // A page loaded for another session must not show while the new one loads.
  const current = page !== null && page.sessionId === sessionId ? page.page : null;
  const turns = useMemo(() => (current === null ? [] : transcriptFromRecords(current.records.map((line) => line.record))), [current]);
  return { page: current, turns, loading, error, missing };
}
