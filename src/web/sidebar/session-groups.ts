// Date groups for the session list (Today, Yesterday, This week, then by month), by the local
// calendar of the browser.

import type { SessionSummary } from '../api/index.js';

export interface SessionGroup {
  label: string;
  sessions: SessionSummary[];
}

function startOfDay(time: number): number {
  const date = new Date(time);
  date.setHours(0, 0, 0, 0);
  return date.getTime();
}

export function groupLabel(iso: string, now: number = Date.now()): string {
  const time = Date.parse(iso);
  if (Number.isNaN(time)) return 'Older';
  const today = startOfDay(now);
  const day = 86_400_000;
  if (time >= today) return 'Today';
  if (time >= today - day) return 'Yesterday';
  if (time >= today - 6 * day) return 'This week';
  return new Date(time).toLocaleDateString('en', { year: 'numeric', month: 'long' });
}

/** Sessions in list order, cut into consecutive groups. */
export function groupSessions(sessions: readonly SessionSummary[], now: number = Date.now()): SessionGroup[] {
  const groups: SessionGroup[] = [];
  for (const session of sessions) {
    const label = groupLabel(session.updatedAt, now);
    const last = groups[groups.length - 1];
    if (last !== undefined && last.label === label) last.sessions.push(session);
    else groups.push({ label, sessions: [session] });
  }
  return groups;
}
