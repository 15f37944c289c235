// The selected session's model calls for the trace, without their payloads (each call's request
// and answer are fetched when it is opened), narrowed by a full-text search done by the server.

import { useEffect, useState } from 'react';
import { describeError, loadAllModelCalls, type TraceCall } from '../api/index.js';

export interface TraceData {
  calls: TraceCall[] | null;
  error: string | null;
  loading: boolean;
}

export function useTrace(sessionId: string | null, version: string, search: string): TraceData {
  const [state, setState] = useState<{ key: string; calls: TraceCall[] } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const key = `${sessionId}|${search}`;

  useEffect(() => {
    if (sessionId === null) return;
    const controller = new AbortController();
    setLoading(true);
    loadAllModelCalls(sessionId, controller.signal, search).then(
      (calls) => {
        if (controller.signal.aborted) return;
        setState({ key, calls });
        setError(null);
        setLoading(false);
      },
      (failure: unknown) => {
        if (controller.signal.aborted) return;
        setError(describeError(failure));
        setLoading(false);
      },
    );
    return () => controller.abort();
  }, [sessionId, version, search, key]);

  return { calls: state !== null && state.key === key ? state.calls : null, error, loading };
}
