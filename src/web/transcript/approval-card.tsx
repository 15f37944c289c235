// The card a person answers when a tool call needs approval. The answer goes to the server; the
// card changes only when the run reports `approval_resolved`, so what it shows is what happened.
// A card that can be answered takes the focus when it appears (unless you are typing in a text
// box): an approval must not go unseen.
// The change a file write would make comes from the server (a dry run against the files on disk);
// the browser never reads a file itself.

import { useEffect, useId, useRef, useState } from 'react';
import type { ApprovalDecision } from '../api/index.js';
import { api, describeError } from '../api/index.js';
import { prettyArguments } from '../../views/index.js';
import { approvalPreview, fromServerPreview, type ApprovalPreview } from './approval-preview.js';
import { useProjectRoot, withoutRoot } from './project-root.js';
import type { ApprovalView } from '../../views/index.js';

export interface ApprovalCardProps {
  approval: ApprovalView;
  /** The run that asked and the call, to fetch the server's preview; null runId: none to fetch. */
  runId: string | null;
  callId: string;
  toolName: string;
  arguments: string;
  /** Null when this session is only being viewed: the run that asked is not ours to answer. */
  onDecide: ((decision: ApprovalDecision, message: string, saveRule?: string) => Promise<void>) | null;
}

const SIGN = { add: '+', del: '-', ctx: ' ', hunk: '', file: '' } as const;

export function DiffPreview({ preview }: { preview: ApprovalPreview }) {
  return (
    <div className="diff-preview">
      <div className="diff-paths">
        {preview.paths.map((path) => (
          <code key={path} className="diff-path">
            {path}
          </code>
        ))}
        <span className="muted small-text">{preview.note}</span>
      </div>
      {preview.lines.length > 0 && (
        <pre className="diff-lines" tabIndex={0} role="region" aria-label={`Changes to ${preview.paths.join(', ')}`}>
          {preview.lines.map((line, index) => (
            <span key={index} className={`diff-line diff-${line.kind}`}>
              {SIGN[line.kind]}
              {line.text}
              {'\n'}
            </span>
          ))}
        </pre>
      )}
    </div>
  );
}

type ServerPreview =
  | { state: 'loading' }
  | { state: 'ready'; preview: ApprovalPreview | null; alwaysRule: string | null }
  | { state: 'unavailable' };

/** The server's preview of a pending call; `unavailable` once it is no longer pending (or on any failure). */
function useServerPreview(runId: string | null, callId: string): ServerPreview {
  const [result, setResult] = useState<ServerPreview>(runId === null ? { state: 'unavailable' } : { state: 'loading' });
  useEffect(() => {
    if (runId === null) return;
    let stale = false;
    api.approvalPreview(runId, callId).then(
      ({ preview, alwaysRule }) =>
        !stale && setResult({ state: 'ready', preview: preview === null ? null : fromServerPreview(preview), alwaysRule }),
      () => !stale && setResult({ state: 'unavailable' }),
    );
    return () => {
      stale = true;
    };
  }, [runId, callId]);
  return result;
}

export function ApprovalCard({ approval, runId, callId, toolName, arguments: args, onDecide }: ApprovalCardProps) {
  const [message, setMessage] = useState('');
  const [busy, setBusy] = useState<ApprovalDecision | 'always' | null>(null);
  // "Always allow" first shows the rule it would save; a second press saves it and approves.
  const [confirmAlways, setConfirmAlways] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const headingId = useId();
  const messageId = useId();
  const card = useRef<HTMLDivElement>(null);
  const root = useProjectRoot();
  const server = useServerPreview(runId, callId);
  const preview = server.state === 'ready' ? server.preview : server.state === 'loading' ? null : approvalPreview(toolName, args, root);
  const answerable = onDecide !== null;
  const alwaysRule = server.state === 'ready' ? server.alwaysRule : null;

  useEffect(() => {
    if (!answerable) return;
    // Someone typing in a text box keeps the focus (their keys would otherwise land on the card);
    // the card still scrolls into view, and the badge and tab title say an approval waits.
    const active = document.activeElement;
    const typing = (active instanceof HTMLTextAreaElement || active instanceof HTMLInputElement) && active.value.trim() !== '';
    if (!typing) card.current?.focus();
    card.current?.scrollIntoView({ block: 'nearest' });
  }, [answerable]);

  async function decide(decision: ApprovalDecision, saveRule?: string) {
    if (onDecide === null) return;
    setBusy(saveRule === undefined ? decision : 'always');
    setError(null);
    try {
      await onDecide(decision, message, saveRule);
    } catch (failure) {
      setError(describeError(failure));
      setBusy(null);
    }
  }

  return (
    <div
      className="approval-card"
      role="group"
      aria-labelledby={headingId}
      ref={card}
      tabIndex={-1}
      data-pending={answerable ? '' : undefined}
    >
      <div className="approval-head">
        <span className="approval-icon" aria-hidden="true">
          !
        </span>
        <strong id={headingId}>Approval needed: {withoutRoot(approval.summary || toolName, root)}</strong>
      </div>
      {approval.reason !== '' && <p className="approval-reason">{approval.reason}</p>}
      {server.state === 'loading' && <p className="muted small-text">Working out the change against the files on disk…</p>}
      {preview !== null && <DiffPreview preview={preview} />}
      <details className="approval-args">
        <summary>Arguments</summary>
        <pre tabIndex={0}>{prettyArguments(args)}</pre>
      </details>
      {onDecide === null ? (
        <p className="muted">Waiting for a decision from the run's owner.</p>
      ) : (
        <>
          <label className="approval-message" htmlFor={messageId}>
            Message to the agent <span className="muted">(optional, sent with your decision)</span>
          </label>
          <input
            id={messageId}
            type="text"
            value={message}
            onChange={(event) => setMessage(event.target.value)}
            placeholder="e.g. use npm ci instead"
            disabled={busy !== null}
          />
          <div className="approval-actions">
            <button type="button" className="primary" disabled={busy !== null} onClick={() => void decide('approve')}>
              {busy === 'approve' ? 'Approving…' : 'Approve'}
            </button>
            <button type="button" disabled={busy !== null} onClick={() => void decide('approve_session')}>
              {busy === 'approve_session' ? 'Approving…' : 'Approve for session'}
            </button>
            {alwaysRule !== null && (
              <button
                type="button"
                disabled={busy !== null}
                aria-expanded={confirmAlways}
                onClick={() => setConfirmAlways((open) => !open)}
              >
                Always allow…
              </button>
            )}
            <button type="button" className="danger" disabled={busy !== null} onClick={() => void decide('deny')}>
              {busy === 'deny' ? 'Denying…' : 'Deny'}
            </button>
          </div>
          {alwaysRule !== null && confirmAlways && (
            <div className="always-allow" data-testid="always-allow">
              <p className="small-text">
                Saves this allow rule to <code>permissions.allow</code> in your config (<code>config.json</code> in the Glassbox home), so
                this exact call is never asked again, in any project; it applies from the next turn, and this session's grant covers the
                rest of this one:
              </p>
              <code className="always-rule">{alwaysRule}</code>
              <button type="button" className="primary" disabled={busy !== null} onClick={() => void decide('approve_session', alwaysRule)}>
                {busy === 'always' ? 'Saving…' : 'Save the rule and approve'}
              </button>
            </div>
          )}
          {error !== null && (
            <p className="error-text" role="alert">
              {error}
            </p>
          )}
        </>
      )}
    </div>
  );
}
