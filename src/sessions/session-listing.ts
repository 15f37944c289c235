// Ordering, filtering, paging and id resolution over session summaries. Independent of storage,
// so every store lists and resolves ids the same way.

import { SessionError, SessionNotFoundError } from './session-errors.js';
import type { ListSessionsOptions } from './session-store.js';
import type { SessionSummary } from './session-summary.js';

interface ListPosition {
  updatedMs: number;
  sessionId: string;
}

function positionOf(summary: SessionSummary): ListPosition {
  const updatedMs = Date.parse(summary.updatedAt);
  return { updatedMs: Number.isNaN(updatedMs) ? 0 : updatedMs, sessionId: summary.sessionId };
}

/** Newest updated first; ties (same millisecond) by id, newest first, since ids are time-ordered. */
function compare(a: ListPosition, b: ListPosition): number {
  if (a.updatedMs !== b.updatedMs) return b.updatedMs - a.updatedMs;
  return a.sessionId < b.sessionId ? 1 : a.sessionId > b.sessionId ? -1 : 0;
}

export function sortSummaries(summaries: readonly SessionSummary[]): SessionSummary[] {
  return summaries
    .map((summary) => ({ summary, position: positionOf(summary) }))
    .sort((a, b) => compare(a.position, b.position))
    .map(({ summary }) => summary);
}

function encodeCursor(position: ListPosition): string {
  return Buffer.from(JSON.stringify([position.updatedMs, position.sessionId])).toString('base64url');
}

function decodeCursor(cursor: string): ListPosition {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && typeof value[0] === 'number' && typeof value[1] === 'string') {
      return { updatedMs: value[0], sessionId: value[1] };
    }
  } catch {
    // fall through to the error below
  }
  throw new SessionError('SESSION_INVALID_ARGUMENT', `invalid session list cursor: ${cursor}`, { exitCode: 2 });
}

export function validateLimit(limit: number | undefined, what: string): void {
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
    throw new SessionError('SESSION_INVALID_ARGUMENT', `${what} must be a positive integer, got ${limit}`, { exitCode: 2 });
  }
}

function matchesQuery(summary: SessionSummary, needle: string): boolean {
  return [summary.sessionId, summary.title, summary.cwd, summary.model].some((field) => field.toLowerCase().includes(needle));
}

/** Sort, filter by query, then cut one page after the cursor. */
export function pageSummaries(
  summaries: readonly SessionSummary[],
  options: ListSessionsOptions,
): { sessions: SessionSummary[]; nextCursor: string | null } {
  validateLimit(options.limit, 'limit');
  const needle = options.query?.trim().toLowerCase() ?? '';
  let candidates = sortSummaries(needle === '' ? summaries : summaries.filter((s) => matchesQuery(s, needle)));
  if (options.cursor) {
    const after = decodeCursor(options.cursor);
    candidates = candidates.filter((summary) => compare(positionOf(summary), after) > 0);
  }
  if (options.limit === undefined || candidates.length <= options.limit) return { sessions: candidates, nextCursor: null };
  const sessions = candidates.slice(0, options.limit);
  return { sessions, nextCursor: encodeCursor(positionOf(sessions[sessions.length - 1]!)) };
}

const REFERENCE_PATTERN = /^[0-9a-f-]+$/;

/**
 * Resolve `last`, a full id or a unique prefix. `ids` lists every stored session; `newest`
 * gives the most recently updated one.
 */
export async function resolveSessionReference(
  reference: string,
  location: string,
  ids: () => Promise<readonly string[]>,
  newest: () => Promise<string | null>,
): Promise<string> {
  const wanted = reference.trim().toLowerCase();
  if (wanted === 'last') {
    const id = await newest();
    if (id === null) throw new SessionNotFoundError(reference, location);
    return id;
  }
  if (wanted === '' || !REFERENCE_PATTERN.test(wanted)) throw new SessionNotFoundError(reference, location);
  const matches = (await ids()).filter((id) => id.startsWith(wanted));
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) throw new SessionNotFoundError(reference, location);
  const exact = matches.find((id) => id === wanted);
  if (exact !== undefined) return exact;
  const shown = matches.sort().slice(0, 5).join(', ');
  throw new SessionError(
    'SESSION_AMBIGUOUS',
    `session prefix ${reference} matches ${matches.length} sessions (${shown}${matches.length > 5 ? ', …' : ''}); give more characters`,
    { exitCode: 2 },
  );
}
