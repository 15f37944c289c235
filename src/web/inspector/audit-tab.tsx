// The Audit tab: every permission decision and approval, with its reason, from the session's
// audit records plus whatever the live run has reported that the records may not show yet.

import type { AuditEvent, AuditRow, CallDescriptions } from './audit-rows.js';
import { actionPhrase, PhraseView } from '../transcript/index.js';

const HOOK_TONES: Readonly<Record<string, string>> = {
  allow: 'allow',
  continue: 'allow',
  ask: 'ask',
  deny: 'deny',
  block: 'deny',
  failed: 'deny',
};

function decisionOf(event: AuditEvent): { label: string; tone: string } {
  if (event.type === 'hook_ran') return { label: `hook ${event.outcome}`, tone: HOOK_TONES[event.outcome] ?? 'ask' };
  if (event.type === 'tool_permission_decided') return { label: event.decision, tone: event.decision };
  if (event.type === 'approval_requested') return { label: 'asked', tone: 'ask' };
  const label = event.decision === 'approve_session' ? 'approved for session' : event.decision === 'approve' ? 'approved' : 'denied';
  return { label, tone: event.decision === 'deny' ? 'deny' : 'allow' };
}

/** Who decided, and why; an approval request's reason is its permission decision's, so it is not repeated. */
function detailOf(event: AuditEvent): { who: string; why: string } {
  if (event.type === 'hook_ran') {
    const ending = event.timedOut ? 'timed out' : event.exitCode === null ? 'no exit code' : `exit ${event.exitCode}`;
    return {
      who: `${event.event} hook (${event.source}) ${event.command} — ${event.file} ${event.entry}, ${ending}, ${event.durationMs} ms`,
      why: event.reason ?? '',
    };
  }
  if (event.type === 'tool_permission_decided') {
    // A rule from a config file: which one, and where it is written, so the user can find and change it.
    const rule = event.configRule;
    return { who: rule === undefined ? event.rule : `${event.rule} ${rule.text} (${rule.file}:${rule.line})`, why: event.reason };
  }
  if (event.type === 'approval_requested') return { who: 'waiting for a person', why: '' };
  return { who: `by ${event.by}`, why: event.message === null ? '' : `“${event.message}”` };
}

export interface AuditTabProps {
  rows: AuditRow[];
  calls: CallDescriptions;
}

export function AuditTab({ rows, calls }: AuditTabProps) {
  if (rows.length === 0) return <p className="muted pad">No permission decisions or hook runs yet.</p>;
  return (
    <ol className="audit-list" aria-label="Permission decisions, approvals and hook runs">
      {rows.map((row) => {
        const call = row.event.callId === undefined ? undefined : calls.get(row.event.callId);
        const name = row.event.type === 'hook_ran' ? (row.event.toolName ?? row.event.event) : row.event.name;
        const decision = decisionOf(row.event);
        const detail = detailOf(row.event);
        return (
          <li key={row.key} className="audit-row" data-event={row.event.type}>
            <div className="audit-line">
              <span className={`decision decision-${decision.tone}`}>{decision.label}</span>
              <span className="audit-call" title={row.event.callId}>
                {call === undefined ? name : <PhraseView phrase={actionPhrase(call.name, call.arguments)} />}
              </span>
              <span className="muted small-text audit-turn">{row.turn === null ? 'live' : `turn ${row.turn}`}</span>
            </div>
            <div className="audit-detail">
              <span className="mono small-text muted">{detail.who}</span>
              {detail.why !== '' && <span className="audit-why"> — {detail.why}</span>}
            </div>
          </li>
        );
      })}
    </ol>
  );
}
