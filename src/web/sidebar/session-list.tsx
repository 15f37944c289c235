// Past sessions, newest first, searchable. Searching is the server's (it reads its own index).

import { useEffect, useId, useState } from 'react';
import { api, describeError, type Cursor, type SessionSummary } from '../api/index.js';
import { formatRelativeTime, formatTokens } from '../format/index.js';

export interface SessionListProps {
  selectedId: string | null;
  /** Bumped by the parent whenever sessions may have changed (a run ended, a fork). */
  refreshKey: number;
  onOpen(sessionId: string): void;
}

const PAGE = 30;

export function SessionList({ selectedId, refreshKey, onOpen }: SessionListProps) {
  const [query, setQuery] = useState('');
  const [debounced, setDebounced] = useState('');
  const [sessions, setSessions] = useState<SessionSummary[]>([]);
  const [nextCursor, setNextCursor] = useState<Cursor | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const searchId = useId();

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
    if (nextCursor === null) return;
    try {
      const list = await api.sessions({ query: debounced, cursor: nextCursor, limit: PAGE });
      setSessions((current) => [...current, ...list.sessions.filter((session) => !current.some((known) => known.sessionId === session.sessionId))]);
      setNextCursor(list.nextCursor ?? null);
    } catch (failure) {
      setError(describeError(failure));
    }
  }

  return (
    <section className="session-list" aria-label="Sessions">
      <div className="section-head">
        <h2>Sessions</h2>
        {loading && <span className="muted small-text">loading…</span>}
      </div>
      <label htmlFor={searchId} className="visually-hidden">
        Search sessions
      </label>
      <input id={searchId} type="search" placeholder="Search sessions" value={query} onChange={(event) => setQuery(event.target.value)} />
      {error !== null && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
      {!loading && sessions.length === 0 && error === null && <p className="muted">{debounced === '' ? 'No sessions yet.' : 'No session matches.'}</p>}
      <ul className="session-items">
        {sessions.map((session) => (
          <li key={session.sessionId}>
            <button
              type="button"
              className={session.sessionId === selectedId ? 'session-item selected' : 'session-item'}
              aria-current={session.sessionId === selectedId ? 'true' : undefined}
              onClick={() => onOpen(session.sessionId)}
              title={session.sessionId}
            >
              <span className="session-title">{session.title || '(no prompt yet)'}</span>
              <span className="session-meta">
                {formatRelativeTime(session.updatedAt)} · {session.turns} turn{session.turns === 1 ? '' : 's'} · {formatTokens(session.totalTokens)} tok
                {session.parent !== null && ' · fork'}
              </span>
            </button>
          </li>
        ))}
      </ul>
      {nextCursor !== null && (
        <button type="button" className="small ghost" onClick={() => void loadMore()}>
          Load more
        </button>
      )}
    </section>
  );
}
