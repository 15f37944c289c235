// The Audit tab: every permission decision and approval, with its reason, from the session's
// audit records plus whatever the live run has reported that the records may not show yet.

import type { RunEvent, SessionRecord } from '../api/index.js';
import { actionPhrase, PhraseView } from '../transcript/index.js';

type AuditEvent = Extract<RunEvent, { type: 'tool_permission_decided' | 'approval_requested' | 'approval_resolved' }>;

export interface AuditRow {
  key: string;
  turn: number | null;
  ts: string | null;
  event: AuditEvent;
}

export interface AuditTabProps {
  rows: AuditRow[];
  /** callId → the call's name and arguments, to say what was decided about. */
  calls: Map<string, { name: string; arguments: string }>;
}

export function isAuditEvent(event: RunEvent): event is AuditEvent {
  return event.type === 'tool_permission_decided' || event.type === 'approval_requested' || event.type === 'approval_resolved';
}

/** Audit rows and call descriptions from records, then live events of a run the records lack. */
export function collectAudit(records: SessionRecord[], liveEvents: RunEvent[]): { rows: AuditRow[]; calls: AuditTabProps['calls'] } {
  const rows: AuditRow[] = [];
  const calls: AuditTabProps['calls'] = new Map();
  records.forEach((record, index) => {
    if (record.type === 'response_item' && record.item.type === 'function_call') calls.set(record.item.callId, record.item);
    if (record.type === 'audit') {
      const event = record.event as RunEvent;
      if (isAuditEvent(event)) rows.push({ key: `r${index}`, turn: record.turn, ts: record.ts, event });
    }
  });
  const recorded = new Set(rows.map((row) => `${row.event.type}:${row.event.callId}`));
  liveEvents.forEach((event, index) => {
    if (event.type === 'tool_requested') calls.set(event.callId, event);
    if (isAuditEvent(event) && !recorded.has(`${event.type}:${event.callId}`)) rows.push({ key: `l${index}`, turn: null, ts: null, event });
  });
  return { rows, calls };
}

function decisionOf(event: AuditEvent): { label: string; tone: string } {
  if (event.type === 'tool_permission_decided') return { label: event.decision, tone: event.decision };
  if (event.type === 'approval_requested') return { label: 'asked', tone: 'ask' };
  const label = event.decision === 'approve_session' ? 'approved for session' : event.decision === 'approve' ? 'approved' : 'denied';
  return { label, tone: event.decision === 'deny' ? 'deny' : 'allow' };
}

/** Who decided, and why; an approval request's reason is its permission decision's, so it is not repeated. */
function detailOf(event: AuditEvent): { who: string; why: string } {
  if (event.type === 'tool_permission_decided') return { who: event.rule, why: event.reason };
  if (event.type === 'approval_requested') return { who: 'waiting for a person', why: '' };
  return { who: `by ${event.by}`, why: event.message === null ? '' : `“${event.message}”` };
}

export function AuditTab({ rows, calls }: AuditTabProps) {
  if (rows.length === 0) return <p className="muted pad">No permission decisions yet.</p>;
  return (
    <ol className="audit-list" aria-label="Permission decisions and approvals">
      {rows.map((row) => {
        const call = calls.get(row.event.callId);
        const decision = decisionOf(row.event);
        const detail = detailOf(row.event);
        return (
          <li key={row.key} className="audit-row" data-event={row.event.type}>
            <div className="audit-line">
              <span className={`decision decision-${decision.tone}`}>{decision.label}</span>
              <span className="audit-call" title={row.event.callId}>
                {call === undefined ? row.event.name : <PhraseView phrase={actionPhrase(call.name, call.arguments)} />}
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
