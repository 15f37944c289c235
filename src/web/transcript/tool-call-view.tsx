// One tool call as a readable line ("Ran `npm test`") that expands to its arguments and output,
// with its permission decision and, while it waits, the approval card.

import { memo, useState } from 'react';
import type { ApprovalDecision } from '../api/index.js';
import { capText, formatDuration } from '../format/index.js';
import { callChecklist, callPhrase, phraseText, prettyArguments, presentationOf, type ActionPhrase } from '../../views/index.js';
import { ApprovalCard } from './approval-card.js';
import { CopyButton } from './copy-button.js';
import { PlanChecklist } from './plan-checklist.js';
import { useProjectRoot, withoutRoot } from './project-root.js';
import type { ToolCallState, ToolCallStatus } from '../../views/index.js';

const OUTPUT_PREVIEW_CHARS = 20_000;

const STATUS_LABEL: Record<ToolCallStatus, string> = {
  requested: 'queued',
  awaiting_approval: 'waiting for approval',
  running: 'running',
  succeeded: 'done',
  failed: 'failed',
  denied: 'denied',
  cancelled: 'cancelled',
};

const STATUS_ICON: Record<ToolCallStatus, string> = {
  requested: '○',
  awaiting_approval: '?',
  running: '◐',
  succeeded: '✓',
  failed: '✗',
  denied: '⊘',
  cancelled: '–',
};

/** The tool as its presentation names it, with the name the model used: "Write file (write_file)". */
function toolLabel(name: string): string {
  const { title } = presentationOf(name);
  return title === name ? name : `${title} (${name})`;
}

export function PhraseView({ phrase }: { phrase: ActionPhrase }) {
  const root = useProjectRoot();
  return (
    <span className="phrase">
      <span className="phrase-verb">{phrase.verb}</span>
      {phrase.subject !== '' && ' '}
      {phrase.style === 'code' && <code>{phrase.subject}</code>}
      {phrase.style === 'path' && <span className="phrase-path">{withoutRoot(phrase.subject, root)}</span>}
      {phrase.style === 'quote' && <span className="phrase-quote">“{phrase.subject}”</span>}
      {phrase.style === 'plain' && phrase.subject}
      {phrase.detail !== '' && <span className="muted">{phrase.detail}</span>}
      {phrase.outcome !== undefined && <span className="phrase-outcome">{phrase.outcome}</span>}
    </span>
  );
}

function OutputView({ output, isError }: { output: string; isError: boolean }) {
  const [full, setFull] = useState(false);
  const shown = full ? { text: output, omitted: 0 } : capText(output, OUTPUT_PREVIEW_CHARS);
  return (
    <div className="tool-section">
      <div className="tool-section-title">
        {isError ? 'Error output' : 'Output'} <CopyButton text={output} label="Copy tool output" />
      </div>
      <pre className={isError ? 'tool-output is-error' : 'tool-output'} tabIndex={0}>
        {shown.text === '' ? '(empty)' : shown.text}
      </pre>
      {shown.omitted > 0 && (
        <button type="button" className="link" onClick={() => setFull(true)}>
          Show {shown.omitted.toLocaleString('en')} more characters
        </button>
      )}
    </div>
  );
}

function resolutionText(call: ToolCallState): string | null {
  const resolution = call.approval?.resolution;
  if (!resolution) return null;
  const verb =
    resolution.decision === 'approve' ? 'Approved' : resolution.decision === 'approve_session' ? 'Approved for the session' : 'Denied';
  const by = resolution.by === 'user' ? '' : ` (${resolution.by})`;
  return `${verb}${by}${resolution.message ? `: “${resolution.message}”` : ''}`;
}

/** `saveRule`: "Always allow" — the exact rule the card showed, saved to the user's config first. */
export type ApprovalHandler = (
  runId: string,
  callId: string,
  decision: ApprovalDecision,
  message: string,
  saveRule?: string,
) => Promise<void>;

export interface ToolCallViewProps {
  call: ToolCallState;
  /** The run the call belongs to; approvals can only be answered for a known, live run. */
  runId: string | null;
  onApprove: ApprovalHandler | null;
}

export const ToolCallView = memo(function ToolCallView({ call, runId, onApprove }: ToolCallViewProps) {
  const phrase = callPhrase(call);
  const waiting = call.approval !== null && call.approval.resolution === null && call.status === 'awaiting_approval';
  const resolution = resolutionText(call);
  const permission = call.permission;
  // The body (arguments, output) is built only once opened: a long session has hundreds of calls,
  // and their closed bodies would be most of the page.
  const [opened, setOpened] = useState(false);
  const plan = callChecklist(call);
  return (
    <li className={`tool-call status-${call.status}`} data-call-id={call.callId}>
      <details onToggle={(event) => event.currentTarget.open && setOpened(true)}>
        <summary title={phraseText(phrase)}>
          <span className="tool-status" aria-hidden="true" title={STATUS_LABEL[call.status]}>
            {STATUS_ICON[call.status]}
          </span>
          <span className="visually-hidden">{STATUS_LABEL[call.status]}: </span>
          <PhraseView phrase={phrase} />
          <span className="tool-meta">
            {call.status === 'succeeded' || call.status === 'failed' ? formatDuration(call.durationMs) : ''}
          </span>
        </summary>
        {opened && (
          <div className="tool-body">
            {permission !== null && (
              <p className="tool-permission">
                Permission: <strong>{permission.decision}</strong> <span className="muted">({permission.rule})</span> — {permission.reason}
              </p>
            )}
            <div className="tool-section">
              <div className="tool-section-title">
                Arguments <span className="muted">· {toolLabel(call.name)}</span>
              </div>
              <pre className="tool-args" tabIndex={0}>
                {prettyArguments(call.arguments)}
              </pre>
            </div>
            {call.output !== null && <OutputView output={call.output} isError={call.isError} />}
          </div>
        )}
      </details>
      {plan !== null && <PlanChecklist plan={plan} />}
      {resolution !== null && <p className="tool-resolution">{resolution}</p>}
      {waiting && call.approval !== null && (
        <ApprovalCard
          approval={call.approval}
          runId={runId}
          callId={call.callId}
          toolName={call.name}
          arguments={call.arguments}
          onDecide={
            onApprove === null || runId === null
              ? null
              : (decision, message, saveRule) => onApprove(runId, call.callId, decision, message, saveRule)
          }
        />
      )}
    </li>
  );
});
