// Past sessions, newest first, in date groups, with how each ended, what it spent, and a badge
// when a run in it waits for approval. Searching is the server's (it reads its own index); more
// sessions load as the end of the list scrolls into view.

import { useEffect, useId, useRef, useState } from 'react';
import { api, describeError, type Cursor, type SessionStats, type SessionSummary } from '../api/index.js';
import { formatRelativeTime, formatShare, formatTokens, formatUsd } from '../format/index.js';
import { groupSessions } from './session-groups.js';

export interface SessionListProps {
  selectedId: string | null;
  /** Bumped by the parent whenever sessions may have changed (a run ended, a fork). */
  refreshKey: number;
  /** Session id → approvals waiting in it. */
  pendingBySession: ReadonlyMap<string, number>;
  onOpen(sessionId: string): void;
  searchRef?: React.RefObject<HTMLInputElement | null>;
}

const PAGE = 30;

const STATUS_TEXT: Record<SessionStats['status'], string> = {
  running: 'running',
  succeeded: 'done',
  failed: 'failed',
  cancelled: 'cancelled',
  incomplete: 'interrupted',
  empty: 'empty',
};

function spend(stats: SessionStats | undefined, summary: SessionSummary): string {
  if (stats === undefined) return `${formatTokens(summary.totalTokens)} tok`;
  const tokens = stats.inputTokens + stats.outputTokens;
  const cached = formatShare(stats.cachedInputTokens, stats.inputTokens);
  const price = stats.costUsd === null ? (stats.unpricedCalls > 0 ? 'price unknown' : '') : formatUsd(stats.costUsd);
  return [`${formatTokens(tokens)} tok${cached !== '' && stats.cachedInputTokens > 0 ? ` (${cached} cached)` : ''}`, price]
    .filter(Boolean)
    .join(' · ');
}

export function SessionList({ selectedId, refreshKey, pendingBySession, onOpen, searchRef }: SessionListProps) {
  const [query, setQuery] = useState('');
  const [debounced, setDebounced] = useState('');
  const [sessions, setSessions] = useState<SessionSummary[]>([]);
  const [stats, setStats] = useState<Record<string, SessionStats>>({});
  const [nextCursor, setNextCursor] = useState<Cursor | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [loadingMore, setLoadingMore] = useState(false);
  const searchId = useId();
  const sentinel = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const timer = setTimeout(() => setDebounced(query.trim()), 200);
    return () => clearTimeout(timer);
  }, [query]);

  useEffect(() => {
    let stale = false;
    setLoading(true);
    api.sessions({ query: debounced, limit: PAGE }).then(
      (list) => {
        if (stale) return;
        setSessions(list.sessions);
        setStats(list.stats ?? {});
        setNextCursor(list.nextCursor ?? null);
        setError(null);
        setLoading(false);
      },
      (failure: unknown) => {
        if (stale) return;
        setError(describeError(failure));
        setLoading(false);
      },
    );
    return () => {
      stale = true;
    };
  }, [debounced, refreshKey]);

  async function loadMore() {
    if (nextCursor === null || loadingMore) return;
    setLoadingMore(true);
    try {
      const list = await api.sessions({ query: debounced, cursor: nextCursor, limit: PAGE });
      setSessions((current) => [
        ...current,
        ...list.sessions.filter((session) => !current.some((known) => known.sessionId === session.sessionId)),
      ]);
      setStats((current) => ({ ...current, ...list.stats }));
      setNextCursor(list.nextCursor ?? null);
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setLoadingMore(false);
    }
  }

  // Infinite scroll: the next page loads when the end of the list comes into view.
  const more = useRef(loadMore);
  more.current = loadMore;
  useEffect(() => {
    const element = sentinel.current;
    if (element === null || nextCursor === null) return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) void more.current();
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, [nextCursor, sessions.length]);

  return (
    <section className="session-list" aria-labelledby={`${searchId}-title`}>
      <div className="section-head">
        <h2 id={`${searchId}-title`} className="section-title">
          Sessions
        </h2>
        {loading && <span className="muted small-text">loading…</span>}
      </div>
      <label htmlFor={searchId} className="visually-hidden">
        Search sessions
      </label>
      <input
        id={searchId}
        ref={searchRef}
        type="search"
        placeholder="Search sessions ( / )"
        value={query}
        onChange={(event) => setQuery(event.target.value)}
      />
      {error !== null && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
      {!loading && sessions.length === 0 && error === null && (
        <p className="muted">{debounced === '' ? 'No sessions yet.' : 'No session matches.'}</p>
      )}
      {groupSessions(sessions).map((group) => (
        <div key={group.label} className="session-group">
          <h3 className="session-group-title">{group.label}</h3>
          <ul className="session-items">
            {group.sessions.map((session) => {
              const figures = stats[session.sessionId];
              const pending = pendingBySession.get(session.sessionId) ?? 0;
              const status = figures?.status ?? null;
              return (
                <li key={session.sessionId}>
                  <a
                    href={`/sessions/${session.sessionId}`}
                    className={session.sessionId === selectedId ? 'session-item selected' : 'session-item'}
                    aria-current={session.sessionId === selectedId ? 'page' : undefined}
                    onClick={(event) => {
                      if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
                      event.preventDefault();
                      onOpen(session.sessionId);
                    }}
                    title={session.sessionId}
                    data-session-id={session.sessionId}
                  >
                    <span className="session-title">{session.title || '(no prompt yet)'}</span>
                    <span className="session-meta">
                      {pending > 0 && (
                        <span className="pill pill-approval">{pending === 1 ? 'needs approval' : `${pending} approvals`}</span>
                      )}
                      {status !== null && status !== 'succeeded' && <span className={`pill pill-${status}`}>{STATUS_TEXT[status]}</span>}
                      {session.parent !== null && <span className="pill">fork</span>}
                      <span>
                        {formatRelativeTime(session.updatedAt)} · {session.turns} turn{session.turns === 1 ? '' : 's'} ·{' '}
                        {spend(figures, session)}
                      </span>
                    </span>
                  </a>
                </li>
              );
            })}
          </ul>
        </div>
      ))}
      {nextCursor !== null && (
        <div ref={sentinel} className="session-more">
          <button type="button" className="small ghost" onClick={() => void loadMore()} disabled={loadingMore}>
            {loadingMore ? 'Loading…' : 'Load more'}
          </button>
        </div>
      )}
    </section>
  );
}
