// The card a person answers when a tool call needs approval. The answer goes to the server; the
// card changes only when the run reports `approval_resolved`, so what it shows is what happened.
// A card that can be answered takes the focus when it appears: an approval must not go unseen.

import { useEffect, useId, useRef, useState } from 'react';
import type { ApprovalDecision } from '../api/index.js';
import { describeError } from '../api/index.js';
import { prettyJson } from '../format/index.js';
import { approvalPreview, type ApprovalPreview } from './approval-preview.js';
import { useProjectRoot } from './project-root.js';
import type { ApprovalView } from './transcript-types.js';

export interface ApprovalCardProps {
  approval: ApprovalView;
  toolName: string;
  arguments: string;
  /** Null when this session is only being viewed: the run that asked is not ours to answer. */
  onDecide: ((decision: ApprovalDecision, message: string) => Promise<void>) | null;
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
      <pre className="diff-lines" tabIndex={0} role="region" aria-label={`Changes to ${preview.paths.join(', ')}`}>
        {preview.lines.map((line, index) => (
          <span key={index} className={`diff-line diff-${line.kind}`}>
            {SIGN[line.kind]}
            {line.text}
            {'\n'}
          </span>
        ))}
      </pre>
    </div>
  );
}

export function ApprovalCard({ approval, toolName, arguments: args, onDecide }: ApprovalCardProps) {
  const [message, setMessage] = useState('');
  const [busy, setBusy] = useState<ApprovalDecision | null>(null);
  const [error, setError] = useState<string | null>(null);
  const headingId = useId();
  const messageId = useId();
  const card = useRef<HTMLDivElement>(null);
  const root = useProjectRoot();
  const preview = approvalPreview(toolName, args, root);
  const answerable = onDecide !== null;

  useEffect(() => {
    if (!answerable) return;
    card.current?.focus();
    card.current?.scrollIntoView({ block: 'nearest' });
  }, [answerable]);

  async function decide(decision: ApprovalDecision) {
    if (onDecide === null) return;
    setBusy(decision);
    setError(null);
    try {
      await onDecide(decision, message);
    } catch (failure) {
      setError(describeError(failure));
      setBusy(null);
    }
  }

  return (
    <div className="approval-card" role="group" aria-labelledby={headingId} ref={card} tabIndex={-1}>
      <div className="approval-head">
        <span className="approval-icon" aria-hidden="true">
          !
        </span>
        <strong id={headingId}>
          Approval needed:{' '}
          {root === '' ? approval.summary || toolName : (approval.summary || toolName).split(`${root.replace(/\/+$/, '')}/`).join('')}
        </strong>
      </div>
      {approval.reason !== '' && <p className="approval-reason">{approval.reason}</p>}
      {preview !== null && <DiffPreview preview={preview} />}
      <details className="approval-args">
        <summary>Arguments</summary>
        <pre tabIndex={0}>{prettyJson(args)}</pre>
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
            <button type="button" className="danger" disabled={busy !== null} onClick={() => void decide('deny')}>
              {busy === 'deny' ? 'Denying…' : 'Deny'}
            </button>
          </div>
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
