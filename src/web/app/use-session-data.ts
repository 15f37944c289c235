// The selected session, loaded whole (every record page) and turned into transcript turns. A
// turn that was cancelled or failed while text was streaming loses that text in the file (it was
// never committed); while the server still remembers the run, its events are replayed through
// the same reducer to get that partial text back, marked as not sent.

import { useEffect, useMemo, useState } from 'react';
import { api, ApiError, describeError, loadAllRecords, readRunEvents, type SessionPage } from '../api/index.js';
import {
  partialEntries,
  reduceTurn,
  startLiveTurn,
  transcriptFromRecords,
  withPartialText,
  type TranscriptEntry,
  type TranscriptTurn,
} from '../transcript/index.js';

export interface SessionData {
  page: SessionPage | null;
  turns: TranscriptTurn[];
  loading: boolean;
  error: string | null;
  /** The server does not know the session (yet: a new run's session appears with its first record). */
  missing: boolean;
}

/** runId → the partial text its events show, for turns that stopped mid-stream. */
async function recoverPartials(turns: TranscriptTurn[], signal: AbortSignal): Promise<Map<string, TranscriptEntry[]>> {
  const stopped = turns.filter((turn) => (turn.outcome.status === 'cancelled' || turn.outcome.status === 'failed') && turn.runId !== null);
  const found = new Map<string, TranscriptEntry[]>();
  if (stopped.length === 0) return found;
  const { runs } = await api.runs();
  const known = new Set(runs.map((run) => run.runId));
  for (const turn of stopped) {
    const runId = turn.runId as string;
    if (!known.has(runId) || signal.aborted) continue;
    const events = await readRunEvents(runId, signal);
    const partial = partialEntries(events.reduce(reduceTurn, startLiveTurn(turn.prompt, turn.turn, runId)));
    if (partial.length > 0) found.set(runId, partial);
  }
  return found;
}

export function useSessionData(sessionId: string | null, version: number): SessionData {
  const [page, setPage] = useState<{ sessionId: string; page: SessionPage } | null>(null);
  const [partials, setPartials] = useState<{ sessionId: string; byRun: Map<string, TranscriptEntry[]> } | null>(null);
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
        const turns = transcriptFromRecords(loaded.records.map((line) => line.record));
        recoverPartials(turns, controller.signal).then(
          (byRun) => !controller.signal.aborted && setPartials({ sessionId, byRun }),
          () => undefined,
        );
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
  const recovered = partials !== null && partials.sessionId === sessionId ? partials.byRun : null;
  const turns = useMemo(() => {
    if (current === null) return [];
    const built = transcriptFromRecords(current.records.map((line) => line.record));
    if (recovered === null || recovered.size === 0) return built;
    return built.map((turn) =>
      turn.runId !== null && recovered.has(turn.runId) ? withPartialText(turn, recovered.get(turn.runId) ?? []) : turn,
    );
  }, [current, recovered]);
  return { page: current, turns, loading, error, missing };
}
