// What the workbench can do to the shown session besides starting a run: fork it at a turn, run a
// turn again in a fork (retry, edit and resend), delete it, cancel its run, answer its approvals.
// Each says how it went in the banner (or the form's error line).

import { useCallback, useMemo } from 'react';
import type { SessionRecord } from '../../sessions/session-records.js';
import { api, describeError, type ApprovalDecision, type StartRunRequest } from '../api/index.js';
import { HOME, type Route } from './route.js';

export interface SessionActionsInput {
  selectedId: string | null;
  title: string;
  records: readonly SessionRecord[];
  routeRef: { readonly current: Route };
  navigate: (route: Route, options?: { replace?: boolean }) => void;
  openSession: (sessionId: string) => void;
  /** Starts a run this view follows; resolves with whether the server accepted it. */
  launch: (body: StartRunRequest, expectedTurn: number | null) => Promise<boolean>;
  /** This view's run is going (forking and resending wait for it). */
  running: boolean;
  /** A run is going in the shown session, whoever started it. */
  runHere: boolean;
  /** Cancels the run this view follows, when it is the one shown. */
  cancelOwn: (() => void) | null;
  /** The server's run in the shown session, when this view does not follow it. */
  serverRunId: string | null;
  refreshActivity: () => void;
  refreshList: () => void;
  unfollow: () => void;
  setBanner: (text: string | null) => void;
  setFormError: (text: string | null) => void;
}

export function useSessionActions(input: SessionActionsInput) {
  const { selectedId, title, records, routeRef, navigate, openSession, launch, running, runHere } = input;
  const { cancelOwn, serverRunId, refreshActivity, refreshList, unfollow, setBanner, setFormError } = input;

  // Retry and edit-and-resend: turn `turn` runs again (with the model and policy it ran with) in a
  // fork after the turn before, so the session it came from stays as it was.
  const resendInFork = useCallback(
    async (turn: number, prompt: string) => {
      if (selectedId === null) return;
      const opened = records.find((record) => record.type === 'turn_started' && record.turn === turn);
      const same = opened?.type === 'turn_started' ? opened : null;
      try {
        const { sessionId: fork } = await api.fork(selectedId, turn - 1);
        refreshList();
        navigate({ sessionId: fork, tab: routeRef.current.tab, call: null });
        const body: StartRunRequest = { prompt, sessionId: fork };
        if (same !== null) Object.assign(body, { model: same.model, wireApi: same.wireApi, ...same.policy });
        // Say which policy it runs with: the recorded turn's, which may differ from the form's.
        const policy = same === null ? '' : ` with ${same.model}, sandbox ${same.policy.sandbox}, approvals ${same.policy.approvalPolicy}`;
        setBanner(`Turn ${turn} runs again${policy} in a fork of “${title}” after turn ${turn - 1}; the original session is unchanged.`);
        if (!(await launch(body, turn))) {
          // Refused (e.g. a policy above this server's limits): the empty fork would only be clutter.
          await api.deleteSession(fork).catch(() => {});
          refreshList();
          navigate({ sessionId: selectedId, tab: routeRef.current.tab, call: null });
          setBanner(`Turn ${turn} could not run again${policy}: the server refused the run (see the message by the prompt box).`);
        }
      } catch (error) {
        setBanner(`Could not run turn ${turn} again: ${describeError(error)}`);
      }
    },
    [selectedId, records, navigate, title, launch, refreshList, routeRef, setBanner],
  );

  const cancelHere = useCallback(async () => {
    if (cancelOwn !== null) return cancelOwn();
    if (serverRunId !== null) {
      try {
        await api.cancelRun(serverRunId);
        refreshActivity();
      } catch (error) {
        setFormError(describeError(error));
      }
    }
  }, [cancelOwn, serverRunId, refreshActivity, setFormError]);

  const approve = useCallback(
    async (runId: string, callId: string, decision: ApprovalDecision, message: string, saveRule?: string) => {
      await api.resolveApproval(runId, callId, decision, message, saveRule);
      refreshActivity();
    },
    [refreshActivity],
  );

  const fork = useCallback(
    async (turn: number) => {
      if (selectedId === null) return;
      try {
        const { sessionId } = await api.fork(selectedId, turn);
        refreshList();
        openSession(sessionId);
        setBanner(`Forked at turn ${turn} into a new session; your next prompt continues the fork.`);
      } catch (error) {
        setBanner(`Fork failed: ${describeError(error)}`);
      }
    },
    [selectedId, openSession, refreshList, setBanner],
  );

  const deleteHere = useCallback(async () => {
    if (selectedId === null) return;
    await api.deleteSession(selectedId);
    navigate({ ...HOME, tab: routeRef.current.tab });
    unfollow();
    refreshList();
    setBanner(`Deleted the session “${title}”.`);
  }, [selectedId, navigate, title, routeRef, unfollow, refreshList, setBanner]);

  const forkHere = useMemo(() => (selectedId === null || running ? null : (turn: number) => void fork(turn)), [selectedId, running, fork]);
  const resendHere = useMemo(
    () => (selectedId === null || running || runHere ? null : (turn: number, prompt: string) => void resendInFork(turn, prompt)),
    [selectedId, running, runHere, resendInFork],
  );

  return { cancelHere, approve, deleteHere, forkHere, resendHere };
}
