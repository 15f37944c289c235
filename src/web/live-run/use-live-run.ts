// The run this page started (or re-attached to): its stream, its events, and the live turn built
// from them. One at a time: the server runs one turn per session, and the form starts one.

import { useCallback, useEffect, useRef, useState } from 'react';
import { api, describeError, RunStream, type RunEvent, type StartRunRequest } from '../api/index.js';
import { applyRunEvent, startLiveTurn, type TranscriptTurn } from '../transcript/index.js';

export type LiveRunStatus = 'starting' | 'running' | 'succeeded' | 'failed' | 'cancelled' | 'lost';

export interface LiveEvent {
  id: number;
  event: RunEvent;
}

export interface LiveRun {
  /** Changes per run, so effects can tell two runs apart even before the server names them. */
  serial: number;
  runId: string | null;
  sessionId: string | null;
  turn: TranscriptTurn;
  events: LiveEvent[];
  status: LiveRunStatus;
  connection: 'connected' | 'reconnecting';
  /** Why the stream could not be followed (the run itself may still be going). */
  error: string | null;
  cancelRequested: boolean;
}

/** How following a run ended: refused means nothing ran (the server said no before any event). */
export type RunEnd = { kind: 'ended' } | { kind: 'refused'; error: unknown } | { kind: 'lost'; error: unknown };

export interface LiveRunCallbacks {
  onSessionKnown(sessionId: string, serial: number): void;
  onEnded(sessionId: string | null): void;
}

function statusAfter(event: RunEvent, status: LiveRunStatus): LiveRunStatus {
  if (event.type === 'run_succeeded') return 'succeeded';
  if (event.type === 'run_failed') return 'failed';
  if (event.type === 'run_cancelled') return 'cancelled';
  return status === 'starting' ? 'running' : status;
}

export function isActive(run: LiveRun | null): boolean {
  return run !== null && (run.status === 'starting' || run.status === 'running');
}

export function useLiveRun(callbacks: LiveRunCallbacks) {
  const [run, setRun] = useState<LiveRun | null>(null);
  const stream = useRef<RunStream | null>(null);
  const serial = useRef(0);
  const cancelWhenNamed = useRef(false);
  const latest = useRef(callbacks);
  latest.current = callbacks;

  useEffect(() => () => stream.current?.close(), []);

  const requestCancel = useCallback(async (runId: string) => {
    try {
      await api.cancelRun(runId);
    } catch (error) {
      setRun((current) => (current === null ? current : { ...current, cancelRequested: false, error: describeError(error) }));
    }
  }, []);

  const follow = useCallback(
    (prompt: string, expectedTurn: number | null, begin: (stream: RunStream) => Promise<void>, runId: string | null = null) => {
      stream.current?.close();
      serial.current += 1;
      cancelWhenNamed.current = false;
      const mine = serial.current;
      const update = (change: (current: LiveRun) => LiveRun) =>
        setRun((current) => (current !== null && current.serial === mine ? change(current) : current));
      setRun({
        serial: mine,
        runId,
        sessionId: null,
        turn: startLiveTurn(prompt, expectedTurn, runId, new Date().toISOString()),
        events: [],
        status: 'starting',
        connection: 'connected',
        error: null,
        cancelRequested: false,
      });
      let sessionId: string | null = null;
      let received = 0;
      let accept: (accepted: boolean) => void = () => undefined;
      const accepted = new Promise<boolean>((resolve) => (accept = resolve));
      const runStream = new RunStream({
        onRunId: (id) => {
          accept(true);
          update((current) => ({ ...current, runId: id }));
          if (cancelWhenNamed.current && serial.current === mine) {
            cancelWhenNamed.current = false;
            void requestCancel(id);
          }
        },
        onConnection: (connection) => update((current) => ({ ...current, connection })),
        onEvent: (event, id) => {
          received += 1;
          accept(true);
          if (event.type === 'run_started') {
            sessionId = event.sessionId;
            latest.current.onSessionKnown(event.sessionId, mine);
          }
          update((current) => ({
            ...current,
            sessionId: event.type === 'run_started' ? event.sessionId : current.sessionId,
            turn: applyRunEvent(current.turn, event, new Date().toISOString()),
            events: [...current.events, { id, event }],
            status: statusAfter(event, current.status),
          }));
        },
      });
      stream.current = runStream;
      const done = begin(runStream).then(
        (): RunEnd => {
          accept(true);
          if (serial.current === mine) latest.current.onEnded(sessionId);
          return { kind: 'ended' };
        },
        (error: unknown): RunEnd => {
          if (received === 0 && runStream.currentRunId === null) {
            accept(false);
            setRun((current) => (current !== null && current.serial === mine ? null : current));
            return { kind: 'refused', error };
          }
          accept(true);
          update((current) => ({ ...current, status: 'lost', error: describeError(error) }));
          if (serial.current === mine) latest.current.onEnded(sessionId);
          return { kind: 'lost', error };
        },
      );
      return { serial: mine, accepted, done };
    },
    [requestCancel],
  );

  /**
   * Starts a run. `serial` names it at once; `accepted` settles as soon as the server took it (or
   * refused it); `done` says how following it ended (a lost stream's error is also kept on the
   * run; a refused run is removed).
   */
  const start = useCallback(
    (request: StartRunRequest, expectedTurn: number | null) =>
      follow(request.prompt, expectedTurn, (runStream) => runStream.start(request)),
    [follow],
  );

  /** Follows a run already going on the server, replaying its events from the first. */
  const attach = useCallback(
    (runId: string, prompt: string, expectedTurn: number | null) =>
      follow(prompt, expectedTurn, (runStream) => runStream.attach(runId), runId),
    [follow],
  );

  /** Cancels the run; pressed before the server has named the run, it takes effect as soon as it does. */
  const cancel = useCallback(async () => {
    setRun((current) => (current === null ? current : { ...current, cancelRequested: true }));
    const runId = stream.current?.currentRunId;
    if (runId) await requestCancel(runId);
    else cancelWhenNamed.current = true;
  }, [requestCancel]);

  const dismiss = useCallback(() => {
    setRun((current) => (isActive(current) ? current : null));
  }, []);

  return { run, start, attach, cancel, dismiss };
}
