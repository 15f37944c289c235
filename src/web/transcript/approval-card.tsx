// The card a person answers when a tool call needs approval. The answer goes to the server; the
// card changes only when the run reports `approval_resolved`, so what it shows is what happened.

import { useId, useState } from 'react';
import type { ApprovalDecision } from '../api/index.js';
import { describeError } from '../api/index.js';
import { prettyJson } from '../format/index.js';
import type { ApprovalView } from './transcript-model.js';

export interface ApprovalCardProps {
  approval: ApprovalView;
  toolName: string;
  arguments: string;
  /** Null when this session is only being viewed: the run that asked is not ours to answer. */
  onDecide: ((decision: ApprovalDecision, message: string) => Promise<void>) | null;
}

export function ApprovalCard({ approval, toolName, arguments: args, onDecide }: ApprovalCardProps) {
  const [message, setMessage] = useState('');
  const [busy, setBusy] = useState<ApprovalDecision | null>(null);
  const [error, setError] = useState<string | null>(null);
  const headingId = useId();
  const messageId = useId();

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
    <div className="approval-card" role="group" aria-labelledby={headingId}>
      <div className="approval-head">
        <span className="approval-icon" aria-hidden="true">!</span>
        <strong id={headingId}>Approval needed: {approval.summary || toolName}</strong>
      </div>
      {approval.reason !== '' && <p className="approval-reason">{approval.reason}</p>}
      <details className="approval-args">
        <summary>Arguments</summary>
        <pre>{prettyJson(args)}</pre>
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
