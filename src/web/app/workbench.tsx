// The workbench's three panes and the state they share: the route (which session, tab and call
// the address names), the live run, the server's pending approvals and runs, the connection.

import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { api, describeError, type Health, type ModelsInfo, type StartRunRequest } from '../api/index.js';
import { CallView, Inspector, liveVersion, TAB_NAMES, totalOf, useTrace, type CostTotal } from '../inspector/index.js';
import { isActive, useLiveRun } from '../live-run/index.js';
import { NewRunForm, RunStatus, SessionList } from '../sidebar/index.js';
import { mergeLiveTurn, ProjectRootContext, Transcript } from '../transcript/index.js';
import { HOME, type Route } from './route.js';
import { SessionHeader } from './session-header.js';
import { ShortcutHelp, useShortcuts } from './shortcuts.js';
import { useConnection } from './use-connection.js';
import { useApprovalNotifications } from './use-approval-notifications.js';
import { useKeptPlace } from './use-kept-place.js';
import { OfflineBanner, TopBar, type Pane } from './top-bar.js';
import { useSessionActions } from './use-session-actions.js';
import { usePendingApprovals, useTabTitle } from './use-pending-approvals.js';
import { useRoute } from './use-route.js';
import { useSessionData } from './use-session-data.js';

/** Where the layout shows one pane at a time (layout.css). */
const NARROW_QUERY = '(max-width: 860px)';

export function Workbench({ health, models }: { health: Health; models: ModelsInfo }) {
  const { route, navigate } = useRoute();
  const selectedId = route.sessionId;
  const callOpen = route.call !== null && selectedId !== null;
  const keptPlace = useKeptPlace(callOpen, selectedId);
  const [sessionVersion, setSessionVersion] = useState(0);
  const [listKey, setListKey] = useState(0);
  // One pane at a time on a narrow screen: the first one is where work starts — the prompt form
  // and the session list at `/`, the conversation when the address names a session.
  const [pane, setPane] = useState<Pane>(() =>
    route.sessionId === null && window.matchMedia(NARROW_QUERY).matches ? 'sidebar' : 'transcript',
  );
  const [formError, setFormError] = useState<string | null>(null);
  const [banner, setBanner] = useState<string | null>(null);
  const [help, setHelp] = useState(false);
  const [traceSearch, setTraceSearch] = useState('');
  // The run whose turn this view follows, so a run started here shows before its session is known.
  const [followedSerial, setFollowedSerial] = useState<number | null>(null);
  const promptRef = useRef<HTMLTextAreaElement>(null);
  const searchRef = useRef<HTMLInputElement>(null);
  const followed = useRef<number | null>(null);
  followed.current = followedSerial;
  const routeRef = useRef<Route>(route);
  routeRef.current = route;

  const refresh = useCallback(() => {
    setSessionVersion((n) => n + 1);
    setListKey((n) => n + 1);
  }, []);
  const refreshList = useCallback(() => setListKey((n) => n + 1), []);
  const unfollow = useCallback(() => setFollowedSerial(null), []);

  const { run, start, attach, cancel, dismiss } = useLiveRun({
    onSessionKnown: (sessionId, serial) => {
      // A new session gets its address as soon as the server names it; not a place to go back to.
      if (followed.current === serial && routeRef.current.sessionId === null)
        navigate({ ...routeRef.current, sessionId, call: null }, { replace: true });
      setListKey((n) => n + 1);
    },
    onEnded: () => refresh(),
  });
  const running = isActive(run);
  const data = useSessionData(selectedId, sessionVersion);
  const activity = usePendingApprovals();

  const connection = useConnection(() => {
    refresh();
    activity.refresh();
    // A stream that gave up while the server was away: follow the run again from its first event.
    if (run !== null && run.status === 'lost' && run.runId !== null) {
      const { serial } = attach(run.runId, run.turn.prompt, run.turn.turn);
      setFollowedSerial(serial);
    }
  });

  // After a reload, pick up the run still going in the addressed session (or, at `/`, the newest one).
  useEffect(() => {
    let stale = false;
    api.runs().then(
      ({ runs }) => {
        const active = runs
          .filter((info) => info.status === 'running' && (route.sessionId === null || info.sessionId === route.sessionId))
          .sort((a, b) => b.startedAt.localeCompare(a.startedAt))[0];
        if (stale || active === undefined) return;
        if (route.sessionId === null) navigate({ ...route, sessionId: active.sessionId }, { replace: true });
        const { serial } = attach(active.runId, active.prompt, null);
        setFollowedSerial(serial);
      },
      () => undefined,
    );
    return () => {
      stale = true;
    };
  }, []);

  const pendingBySession = useMemo(() => {
    const counts = new Map<string, number>();
    for (const approval of activity.approvals)
      if (approval.sessionId !== null) counts.set(approval.sessionId, (counts.get(approval.sessionId) ?? 0) + 1);
    return counts;
  }, [activity.approvals]);
  const pendingHere = selectedId === null ? 0 : (pendingBySession.get(selectedId) ?? 0);
  // A run elsewhere (another tab, the API) asking here: reload the records so its card shows.
  const pendingKey = activity.approvals
    .filter((approval) => approval.sessionId === selectedId)
    .map((approval) => approval.callId)
    .join(',');
  useEffect(() => {
    if (pendingKey !== '') setSessionVersion((n) => n + 1);
  }, [pendingKey]);

  // Runs started or ended by anyone (another tab, the API) and new approvals change the list.
  const activityKey = `${activity.runs.map((info) => `${info.runId}:${info.status}`).join(',')}|${activity.approvals.length}`;
  // Not on the first render: the page has just loaded everything (reloading it again at once
  // doubled the time to open a long session).
  const knownActivity = useRef(activityKey);
  useEffect(() => {
    if (knownActivity.current === activityKey) return;
    knownActivity.current = activityKey;
    setListKey((n) => n + 1);
    setSessionVersion((n) => n + 1);
  }, [activityKey]);

  const records = useMemo(() => data.page?.records.map((entry) => entry.record) ?? [], [data.page]);
  const liveVisible = run !== null && (run.sessionId !== null ? run.sessionId === selectedId : run.serial === followedSerial);
  const turns = mergeLiveTurn(data.turns, liveVisible ? run.turn : null);
  const lastTurn = data.turns.reduce((max, turn) => Math.max(max, turn.turn ?? 0), 0);
  const title =
    data.page?.summary?.title || turns[0]?.prompt.replace(/\s+/g, ' ').trim() || (selectedId === null ? 'New session' : 'Session');
  useTabTitle(activity.approvals.length, selectedId === null ? '' : title);

  const liveEvents = liveVisible ? run.events : null;
  const version = liveVersion(String(sessionVersion), liveEvents);
  const trace = useTrace(selectedId, version, traceSearch);
  // The whole session's figures; a search narrows the trace, not the session, so the header
  // keeps the last whole-session total while a search is shown (it lost its cost line).
  const wholeTotal = useRef<{ sessionId: string | null; total: CostTotal } | null>(null);
  const ownTotal = useMemo(() => {
    if (trace.calls !== null && traceSearch === '') {
      const total = totalOf(trace.calls.filter((call) => !call.inherited));
      wholeTotal.current = { sessionId: selectedId, total };
      return total;
    }
    return wholeTotal.current !== null && wholeTotal.current.sessionId === selectedId ? wholeTotal.current.total : null;
  }, [trace.calls, traceSearch, selectedId]);

  // The run going in the shown session, whoever started it: the sidebar's Cancel stops that one.
  // The server's list is polled: the run this page follows, once its stream has ended, is over
  // even while the last poll still lists it as running (a cancel showed Cancelled beside a running run).
  const serverRunHere =
    activity.runs.find(
      (info) =>
        info.status === 'running' &&
        info.sessionId === selectedId &&
        selectedId !== null &&
        !(run !== null && run.runId === info.runId && !running),
    ) ?? null;
  const runHere = (running && liveVisible) || serverRunHere !== null;

  // A run going in the shown session that this page does not follow (started elsewhere, or
  // before a reload): follow it, so its transcript is live and its approvals can be answered.
  const serverRunId = serverRunHere?.runId ?? null;
  useEffect(() => {
    if (serverRunHere === null || running || (run !== null && run.runId === serverRunHere.runId)) return;
    const { serial } = attach(serverRunHere.runId, serverRunHere.prompt, null);
    setFollowedSerial(serial);
  }, [serverRunId]);
  const busyElsewhere = running && !liveVisible;

  const openSession = useCallback(
    (sessionId: string) => {
      navigate({ sessionId, tab: routeRef.current.tab, call: null });
      setFollowedSerial(null);
      setBanner(null);
      setTraceSearch('');
      setPane('transcript');
    },
    [navigate],
  );

  const newSession = useCallback(() => {
    navigate({ ...HOME, tab: routeRef.current.tab });
    setFollowedSerial(null);
    setBanner(null);
    setPane('sidebar');
    requestAnimationFrame(() => promptRef.current?.focus());
  }, [navigate]);

  const notifications = useApprovalNotifications(activity.loaded ? activity.approvals : null, selectedId, openSession, health.root);

  const openCall = useCallback(
    (index: number) => {
      if (routeRef.current.sessionId === null) return;
      navigate({ sessionId: routeRef.current.sessionId, tab: 'debug', call: index });
      setPane('transcript');
    },
    [navigate],
  );
  const closeCall = useCallback(() => navigate({ ...routeRef.current, call: null }), [navigate]);

  /** Starts a run this view follows; resolves with whether the server accepted it. */
  const launch = useCallback(
    async (body: StartRunRequest, expectedTurn: number | null): Promise<boolean> => {
      const { serial, accepted, done } = start(body, expectedTurn);
      setFollowedSerial(serial);
      setPane('transcript');
      if (routeRef.current.call !== null) closeCall();
      void done.then((end) => {
        if (end.kind !== 'ended') setFormError(describeError(end.error));
      });
      const ok = await accepted;
      // The prompt box is disabled while the run goes: keep the focus on the conversation, not <body>.
      if (ok) requestAnimationFrame(() => document.getElementById('transcript')?.focus());
      return ok;
    },
    [start, closeCall],
  );

  const startRun = useCallback(
    async (request: Omit<StartRunRequest, 'sessionId'>): Promise<boolean> => {
      setFormError(null);
      setBanner(null);
      const body: StartRunRequest = selectedId === null ? request : { ...request, sessionId: selectedId };
      // The records may not show the previous run's turn yet; the live copy of it does.
      const previous = run !== null && run.sessionId === selectedId ? (run.turn.turn ?? 0) : 0;
      const expectedTurn = selectedId === null ? 1 : data.page === null && previous === 0 ? null : Math.max(lastTurn, previous) + 1;
      return launch(body, expectedTurn);
    },
    [selectedId, data.page, lastTurn, run, launch],
  );

  const { cancelHere, approve, deleteHere, forkHere, resendHere } = useSessionActions({
    selectedId,
    title,
    records,
    routeRef,
    navigate,
    openSession,
    launch,
    running,
    runHere,
    cancelOwn: running && liveVisible ? cancel : null,
    serverRunId: serverRunHere?.runId ?? null,
    refreshActivity: activity.refresh,
    refreshList,
    unfollow,
    setBanner,
    setFormError,
  });

  const continueSession = useCallback(() => {
    setPane('sidebar');
    // The form is in the sidebar; on a narrow screen it has to be shown before it can take focus.
    requestAnimationFrame(() => promptRef.current?.focus());
  }, []);

  useShortcuts({
    help: () => setHelp((open) => !open),
    search: () => {
      setPane('sidebar');
      requestAnimationFrame(() => searchRef.current?.focus());
    },
    newSession,
    transcript: () => {
      setPane('transcript');
      requestAnimationFrame(() => document.getElementById('transcript')?.focus());
    },
    inspector: () => {
      setPane('inspector');
      requestAnimationFrame(() => document.querySelector<HTMLElement>('[role="tab"][aria-selected="true"]')?.focus());
    },
    tab: (index) => {
      const tab = TAB_NAMES[index];
      if (tab !== undefined) navigate({ ...routeRef.current, tab, call: null });
    },
    nextCall: (step) => {
      const count = trace.calls?.length ?? 0;
      if (count === 0 || routeRef.current.sessionId === null) return;
      const current = routeRef.current.call;
      openCall(current === null ? (step === 1 ? 0 : count - 1) : Math.max(0, Math.min(count - 1, current + step)));
    },
    escape: () => {
      if (help) setHelp(false);
      else if (routeRef.current.call !== null) closeCall();
    },
  });

  const footer = (
    <div className="transcript-footer">
      {runHere && (
        <button type="button" className="danger" onClick={() => void cancelHere()} disabled={liveVisible && run?.cancelRequested}>
          {liveVisible && run?.cancelRequested ? 'Cancelling…' : 'Cancel'}
        </button>
      )}
      {!runHere && selectedId !== null && turns.length > 0 && (
        <button type="button" onClick={continueSession}>
          Continue this session
        </button>
      )}
    </div>
  );

  return (
    <ProjectRootContext.Provider value={health.root}>
      <div className="workbench" data-pane={pane}>
        <div className="skip-links">
          {/* To what the main pane shows: a link to a target that is not there is no skip link. */}
          {route.call !== null && selectedId !== null ? (
            <a href="#call-view" className="skip-link">
              Skip to the model call
            </a>
          ) : (
            <a href="#transcript" className="skip-link">
              Skip to the conversation
            </a>
          )}
          <a href="#inspector-tabs" className="skip-link">
            Skip to the inspector
          </a>
        </div>
        <TopBar
          health={health}
          notifications={notifications}
          pane={pane}
          onPane={setPane}
          pendingApprovals={activity.approvals.length}
          onHelp={() => setHelp(true)}
        />
        {!connection.online && <OfflineBanner retryIn={connection.retryIn} onRetry={connection.retryNow} />}
        <aside className="pane pane-sidebar" aria-label="Runs and sessions">
          <NewRunForm
            models={models}
            target={selectedId === null ? null : { sessionId: selectedId, title: data.page?.summary?.title ?? '' }}
            running={runHere || busyElsewhere}
            busyElsewhere={busyElsewhere}
            cancelRequested={liveVisible ? (run?.cancelRequested ?? false) : false}
            error={formError}
            promptRef={promptRef}
            onSubmit={startRun}
            onCancel={() => void cancelHere()}
            onNewSession={newSession}
            onShowRun={() => run?.sessionId && openSession(run.sessionId)}
          />
          <RunStatus
            run={run}
            showingRun={liveVisible}
            approvals={activity.approvals}
            onShow={() => {
              if (run?.sessionId) openSession(run.sessionId);
            }}
            onOpenSession={openSession}
            onDismiss={dismiss}
          />
          <SessionList
            selectedId={selectedId}
            refreshKey={listKey}
            pendingBySession={pendingBySession}
            onOpen={openSession}
            searchRef={searchRef}
          />
        </aside>
        <main className="pane pane-transcript" aria-label={route.call !== null ? 'Model call' : 'Transcript'}>
          {route.call !== null && selectedId !== null && (
            <CallView sessionId={selectedId} index={route.call} calls={trace.calls} onOpen={openCall} onClose={closeCall} />
          )}
          {/* Kept mounted (hidden) while a call is open, in its place (use-kept-place.ts). */}
          <div className="transcript-view" hidden={callOpen} ref={keptPlace}>
            <SessionHeader
              sessionId={selectedId}
              title={title}
              page={data.page}
              loading={data.loading}
              total={ownTotal}
              busy={runHere}
              onOpenSession={openSession}
              onDelete={deleteHere}
            />
            {banner !== null && (
              <p className="banner" role="status">
                {banner}
              </p>
            )}
            {pendingHere > 0 && !liveVisible && (
              <p className="banner approval-banner" role="status">
                A run in this session is waiting for your approval.
              </p>
            )}
            {data.error !== null && (
              <p className="error-text banner" role="alert">
                {data.error}
              </p>
            )}
            <Transcript
              turns={turns}
              onApprove={liveVisible || pendingHere > 0 ? approve : null}
              onFork={forkHere}
              onResend={resendHere}
              footer={footer}
              empty={
                <p className="empty muted">
                  {selectedId === null
                    ? 'Start a run from the form, or open a session from the list.'
                    : data.loading
                      ? 'Loading…'
                      : 'This session has no turns yet.'}
                </p>
              }
            />
          </div>
        </main>
        <aside className="pane pane-inspector" aria-label="Inspector">
          <Inspector
            tab={route.tab}
            onTab={(tab) => navigate({ ...route, tab, call: tab === 'debug' ? route.call : null })}
            sessionId={selectedId}
            version={String(sessionVersion)}
            records={records}
            liveEvents={liveEvents}
            runActive={runHere}
            onCompacted={refresh}
            trace={trace}
            traceSearch={traceSearch}
            onTraceSearch={setTraceSearch}
            selectedCall={route.call}
            onOpenCall={openCall}
          />
        </aside>
        <ShortcutHelp open={help} onClose={() => setHelp(false)} />
      </div>
    </ProjectRootContext.Provider>
  );
}
