// The Session tab: the raw JSONL records, a page at a time, exactly as the server read them.

import { useEffect, useState } from 'react';
import { api, describeError, type Cursor, type SessionPage, type SessionRecord } from '../api/index.js';

export interface SessionTabProps {
  sessionId: string | null;
  version: string;
}

const PAGE_SIZE = 50;

function describeProblem(problem: unknown): string {
  if (typeof problem === 'string') return problem;
  if (typeof problem === 'object' && problem !== null) {
    const fields = problem as Record<string, unknown>;
    const where = typeof fields.line === 'number' ? `line ${fields.line}: ` : '';
    if (typeof fields.message === 'string') return `${where}${fields.message}`;
  }
  return JSON.stringify(problem);
}

/** The record without what the row already shows (type) or rarely matters at a glance (ts). */
function recordPreview(record: SessionRecord): string {
  const { type: _type, ts: _ts, ...rest } = record;
  return JSON.stringify(rest).slice(0, 160);
}

export function SessionTab({ sessionId, version }: SessionTabProps) {
  // The cursors of the pages before this one, so "Previous" can go back without the server's help.
  const [trail, setTrail] = useState<Array<Cursor | null>>([]);
  const [cursor, setCursor] = useState<Cursor | null>(null);
  const [page, setPage] = useState<{ key: string; page: SessionPage } | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    setTrail([]);
    setCursor(null);
  }, [sessionId]);

  const key = `${sessionId}|${cursor ?? ''}`;
  useEffect(() => {
    if (sessionId === null) return;
    let stale = false;
    api.session(sessionId, { cursor, limit: PAGE_SIZE }).then(
      (loaded) => {
        if (stale) return;
        setPage({ key, page: loaded });
        setError(null);
      },
      (failure: unknown) => {
        if (!stale) setError(describeError(failure));
      },
    );
    return () => {
      stale = true;
    };
  }, [sessionId, cursor, version, key]);

  if (sessionId === null) return <p className="muted pad">Open or start a session to see its records.</p>;
  const current = page !== null && page.key === key ? page.page : null;
  return (
    <div className="session-tab">
      {current?.summary && (
        <dl className="session-facts">
          <div>
            <dt>Session</dt>
            <dd className="mono">{current.summary.sessionId}</dd>
          </div>
          <div>
            <dt>Model</dt>
            <dd>
              {current.summary.model} · {current.summary.wireApi}
            </dd>
          </div>
          <div>
            <dt>Directory</dt>
            <dd className="mono">{current.summary.cwd}</dd>
          </div>
          {current.summary.parent !== null && (
            <div>
              <dt>Forked from</dt>
              <dd className="mono">
                {current.summary.parent.sessionId} (turn {current.summary.parent.atTurn})
              </dd>
            </div>
          )}
        </dl>
      )}
      {error !== null && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
      {current !== null && current.problems.length > 0 && (
        <ul className="problems">
          {current.problems.map((problem, index) => (
            <li key={index} className="error-text">
              {describeProblem(problem)}
            </li>
          ))}
        </ul>
      )}
      <nav className="pager" aria-label="Record pages">
        <button
          type="button"
          className="small"
          disabled={trail.length === 0}
          onClick={() => {
            setCursor(trail[trail.length - 1] ?? null);
            setTrail(trail.slice(0, -1));
          }}
        >
          Previous
        </button>
        <span className="muted small-text">
          {current === null || current.records.length === 0
            ? 'no records'
            : `lines ${current.records[0]!.line}–${current.records[current.records.length - 1]!.line}`}
        </span>
        <button
          type="button"
          className="small"
          disabled={current === null || current.nextCursor === null}
          onClick={() => {
            if (current === null || current.nextCursor === null) return;
            setTrail([...trail, cursor]);
            setCursor(current.nextCursor);
          }}
        >
          Next
        </button>
      </nav>
      <ol className="raw-records">
        {current?.records.map((entry) => (
          <li key={entry.line} value={entry.line}>
            <details>
              <summary>
                <span className="mono muted">{entry.line}</span> <span className="record-type">{entry.record.type}</span>{' '}
                <span className="muted record-preview">{recordPreview(entry.record)}</span>
              </summary>
              <pre>{JSON.stringify(entry.record, null, 2)}</pre>
            </details>
          </li>
        ))}
      </ol>
    </div>
  );
}
