// The workbench: loads what the server offers, then lays out the three panes and owns the state
// they share (the selected session, the live run, what needs reloading).

import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { api, ApiError, describeError, type ApprovalDecision, type Health, type ModelsInfo, type StartRunRequest } from '../api/index.js';
import { Inspector, type InspectorTabName } from '../inspector/index.js';
import { isActive, useLiveRun } from '../live-run/index.js';
import { NewRunForm, RunStatus, SessionList } from '../sidebar/index.js';
import { mergeLiveTurn, preloadMarkdown, Transcript } from '../transcript/index.js';
import { FailurePage, UnauthorizedPage } from './unauthorized-page.js';
import { useSessionData } from './use-session-data.js';

type Boot = { kind: 'loading' } | { kind: 'unauthorized' } | { kind: 'failed'; message: string } | { kind: 'ready'; health: Health; models: ModelsInfo };
type Pane = 'sidebar' | 'transcript' | 'inspector';

export function App() {
  const [boot, setBoot] = useState<Boot>({ kind: 'loading' });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let stale = false;
    Promise.all([api.health(), api.models()]).then(
      ([health, models]) => {
        if (!stale) setBoot({ kind: 'ready', health, models });
      },
      (error: unknown) => {
        if (stale) return;
        if (error instanceof ApiError && error.status === 401) setBoot({ kind: 'unauthorized' });
        else setBoot({ kind: 'failed', message: describeError(error) });
      },
    );
    return () => {
      stale = true;
    };
  }, [attempt]);

  useEffect(preloadMarkdown, []);

  if (boot.kind === 'loading') return <main className="gate" aria-busy="true" />;
  if (boot.kind === 'unauthorized') return <UnauthorizedPage />;
  if (boot.kind === 'failed') return <FailurePage message={boot.message} onRetry={() => setAttempt((n) => n + 1)} />;
  return <Workbench health={boot.health} models={boot.models} />;
}

function Workbench({ health, models }: { health: Health; models: ModelsInfo }) {
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [sessionVersion, setSessionVersion] = useState(0);
  const [listKey, setListKey] = useState(0);
  const [pane, setPane] = useState<Pane>('transcript');
  const [tab, setTab] = useState<InspectorTabName>('debug');
  const [formError, setFormError] = useState<string | null>(null);
  const [banner, setBanner] = useState<string | null>(null);
  // The run whose turn this view follows, so a run started here shows before its session is known.
  const [followedSerial, setFollowedSerial] = useState<number | null>(null);
  const promptRef = useRef<HTMLTextAreaElement>(null);
  const followed = useRef<number | null>(null);
  followed.current = followedSerial;

  const refresh = useCallback(() => {
    setSessionVersion((n) => n + 1);
    setListKey((n) => n + 1);
  }, []);

  const { run, start, attach, cancel, dismiss } = useLiveRun({
    onSessionKnown: (sessionId, serial) => {
      if (followed.current === serial) setSelectedId(sessionId);
      setListKey((n) => n + 1);
    },
    onEnded: () => refresh(),
  });
  const running = isActive(run);
  const data = useSessionData(selectedId, sessionVersion);

  // After a reload, pick up a run that is still going rather than leaving it invisible.
  useEffect(() => {
    let stale = false;
    api.runs().then(
      ({ runs }) => {
        const active = runs.filter((info) => info.status === 'running').sort((a, b) => b.startedAt.localeCompare(a.startedAt))[0];
        if (stale || active === undefined) return;
        setSelectedId(active.sessionId);
        const { serial } = attach(active.runId, active.prompt, null);
        setFollowedSerial(serial);
      },
      () => undefined,
    );
    return () => {
      stale = true;
    };
  }, []); // eslint-disable-line react-hooks/exhaustive-deps

  const records = useMemo(() => data.page?.records.map((entry) => entry.record) ?? [], [data.page]);
  const liveVisible = run !== null && (run.sessionId !== null ? run.sessionId === selectedId : run.serial === followedSerial);
  const turns = mergeLiveTurn(data.turns, liveVisible ? run.turn : null);
  const lastTurn = data.turns.reduce((max, turn) => Math.max(max, turn.turn ?? 0), 0);
  const title = data.page?.summary?.title || turns[0]?.prompt.replace(/\s+/g, ' ').trim() || 'New session';

  const openSession = useCallback((sessionId: string) => {
    setSelectedId(sessionId);
    setFollowedSerial(null);
    setBanner(null);
    setPane('transcript');
  }, []);

  const newSession = useCallback(() => {
    setSelectedId(null);
    setFollowedSerial(null);
    setBanner(null);
    promptRef.current?.focus();
  }, []);

  const startRun = useCallback(
    async (request: Omit<StartRunRequest, 'sessionId'>): Promise<boolean> => {
      setFormError(null);
      setBanner(null);
      const body: StartRunRequest = selectedId === null ? request : { ...request, sessionId: selectedId };
      // The records may not show the previous run's turn yet; the live copy of it does.
      const previous = run !== null && run.sessionId === selectedId ? (run.turn.turn ?? 0) : 0;
      const expectedTurn = selectedId === null ? 1 : data.page === null && previous === 0 ? null : Math.max(lastTurn, previous) + 1;
      const { serial, accepted, done } = start(body, expectedTurn);
      setFollowedSerial(serial);
      setPane('transcript');
      void done.then((end) => {
        if (end.kind !== 'ended') setFormError(describeError(end.error));
      });
      // The prompt box empties once the server took the run; a refused run keeps it for a retry.
      return accepted;
    },
    [selectedId, data.page, lastTurn, start, run],
  );

  const approve = useCallback(async (runId: string, callId: string, decision: ApprovalDecision, message: string) => {
    await api.resolveApproval(runId, callId, decision, message);
  }, []);

  const fork = useCallback(
    async (turn: number) => {
      if (selectedId === null) return;
      try {
        const { sessionId } = await api.fork(selectedId, turn);
        setListKey((n) => n + 1);
        openSession(sessionId);
        setBanner(`Forked at turn ${turn} into a new session; your next prompt continues the fork.`);
      } catch (error) {
        setBanner(`Fork failed: ${describeError(error)}`);
      }
    },
    [selectedId, openSession],
  );

  const forkHere = useMemo(() => (selectedId === null || running ? null : (turn: number) => void fork(turn)), [selectedId, running, fork]);

  const continueSession = useCallback(() => {
    setPane('sidebar');
    // The form is in the sidebar; on a narrow screen it has to be shown before it can take focus.
    requestAnimationFrame(() => promptRef.current?.focus());
  }, []);

  const footer = (
    <div className="transcript-footer">
      {running && liveVisible && (
        <button type="button" className="danger" onClick={() => void cancel()} disabled={run?.cancelRequested}>
          {run?.cancelRequested ? 'Cancelling…' : 'Cancel'}
        </button>
      )}
      {!running && selectedId !== null && turns.length > 0 && (
        <button type="button" onClick={continueSession}>
          Continue this session
        </button>
      )}
    </div>
  );

  return (
    <div className="workbench" data-pane={pane}>
      <header className="topbar">
        <span className="brand">Glassbox</span>
        <span className="topbar-root mono" title="project root">
          {health.root}
        </span>
        <span className="topbar-model">
          {health.model} · {health.wireApi}
          {health.demo && <span className="badge">demo</span>}
        </span>
        <nav className="pane-switch" aria-label="Panes">
          {(['sidebar', 'transcript', 'inspector'] as const).map((name) => (
            <button key={name} type="button" aria-pressed={pane === name} onClick={() => setPane(name)}>
              {name === 'sidebar' ? 'Runs' : name === 'transcript' ? 'Transcript' : 'Inspector'}
            </button>
          ))}
        </nav>
      </header>
      <aside className="pane pane-sidebar" aria-label="Runs and sessions">
        <NewRunForm
          models={models}
          target={selectedId === null ? null : { sessionId: selectedId, title: data.page?.summary?.title ?? '' }}
          running={running}
          cancelRequested={run?.cancelRequested ?? false}
          error={formError}
          promptRef={promptRef}
          onSubmit={startRun}
          onCancel={() => void cancel()}
          onNewSession={newSession}
        />
        <RunStatus
          run={run}
          showingRun={liveVisible}
          onShow={() => {
            if (run?.sessionId) openSession(run.sessionId);
          }}
          onDismiss={dismiss}
        />
        <SessionList selectedId={selectedId} refreshKey={listKey} onOpen={openSession} />
      </aside>
      <main className="pane pane-transcript" aria-label="Transcript">
        <div className="transcript-head">
          <h1 title={selectedId ?? undefined}>{title}</h1>
          {data.loading && <span className="muted small-text">loading…</span>}
          {selectedId !== null && <span className="muted small-text mono session-id">{selectedId}</span>}
        </div>
        {banner !== null && (
          <p className="banner" role="status">
            {banner}
          </p>
        )}
        {data.error !== null && (
          <p className="error-text banner" role="alert">
            {data.error}
          </p>
        )}
        <Transcript
          turns={turns}
          onApprove={approve}
          onFork={forkHere}
          footer={footer}
          empty={<p className="empty muted">Start a run from the form, or open a session from the list.</p>}
        />
      </main>
      <aside className="pane pane-inspector" aria-label="Inspector">
        <Inspector
          tab={tab}
          onTab={setTab}
          sessionId={selectedId}
          version={String(sessionVersion)}
          records={records}
          liveEvents={liveVisible ? run.events : null}
          runActive={running && run?.sessionId === selectedId}
          onCompacted={refresh}
        />
      </aside>
    </div>
  );
}
