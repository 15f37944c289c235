// The Audit tab's rows: permission decisions and approvals from a session's audit records, plus
// the live run's events the records do not have yet.

import type { RunEvent, SessionRecord } from '../api/index.js';

export type AuditEvent = Extract<RunEvent, { type: 'tool_permission_decided' | 'approval_requested' | 'approval_resolved' | 'hook_ran' }>;

export interface AuditRow {
  key: string;
  turn: number | null;
  ts: string | null;
  event: AuditEvent;
}

/** callId → the call's name and arguments, to say what was decided about. */
export type CallDescriptions = Map<string, { name: string; arguments: string }>;

export function isAuditEvent(event: RunEvent): event is AuditEvent {
  return (
    event.type === 'tool_permission_decided' ||
    event.type === 'approval_requested' ||
    event.type === 'approval_resolved' ||
    event.type === 'hook_ran'
  );
}

/** What a record and the live event of the same fact share: a hook runs many times per call, once per entry. */
function auditKey(event: AuditEvent): string {
  return event.type === 'hook_ran'
    ? `hook_ran:${event.callId ?? ''}:${event.event}:${event.file}:${event.entry}`
    : `${event.type}:${event.callId}`;
}

/** Audit rows and call descriptions from records, then live events of a run the records lack. */
export function collectAudit(records: SessionRecord[], liveEvents: RunEvent[]): { rows: AuditRow[]; calls: CallDescriptions } {
  const rows: AuditRow[] = [];
  const calls: CallDescriptions = new Map();
  records.forEach((record, index) => {
    if (record.type === 'response_item' && record.item.type === 'function_call') calls.set(record.item.callId, record.item);
    if (record.type === 'audit') {
      const event = record.event as RunEvent;
      if (isAuditEvent(event)) rows.push({ key: `r${index}`, turn: record.turn, ts: record.ts, event });
    }
  });
  const recorded = new Set(rows.map((row) => auditKey(row.event)));
  liveEvents.forEach((event, index) => {
    if (event.type === 'tool_requested') calls.set(event.callId, event);
    if (isAuditEvent(event) && !recorded.has(auditKey(event))) rows.push({ key: `l${index}`, turn: null, ts: null, event });
  });
  return { rows, calls };
}
