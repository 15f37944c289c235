// Above the transcript: the session's title, where it came from (a fork names its parent and the
// turn it was forked at, as a link), what it cost so far, its export and its deletion.

import { useEffect, useState } from 'react';
import { api, type SessionPage } from '../api/index.js';
import { costLine, type CostTotal } from '../inspector/index.js';
import { DeleteSession } from './delete-session.js';

export interface SessionHeaderProps {
  sessionId: string | null;
  title: string;
  page: SessionPage | null;
  loading: boolean;
  total: CostTotal | null;
  /** A run is going in the session. */
  busy: boolean;
  onOpenSession(sessionId: string): void;
  onDelete(): Promise<void>;
}

function useParentTitle(parentId: string | null): string | null {
  const [title, setTitle] = useState<{ id: string; title: string } | null>(null);
  useEffect(() => {
    if (parentId === null) return;
    let stale = false;
    api.session(parentId, { limit: 1 }).then(
      (page) => !stale && setTitle({ id: parentId, title: page.summary?.title ?? '' }),
      () => !stale && setTitle({ id: parentId, title: '' }),
    );
    return () => {
      stale = true;
    };
  }, [parentId]);
  return title !== null && title.id === parentId ? title.title : null;
}

export function SessionHeader({ sessionId, title, page, loading, total, busy, onOpenSession, onDelete }: SessionHeaderProps) {
  const parent = page?.meta?.parent ?? null;
  const parentTitle = useParentTitle(parent?.sessionId ?? null);
  return (
    <div className="transcript-head">
      <div className="transcript-title">
        <h1 title={sessionId ?? undefined}>
          {parent !== null && <span className="fork-badge">Fork · </span>}
          {title}
        </h1>
        {loading && <span className="muted small-text">loading…</span>}
        {sessionId !== null && (
          <a className="small-text export-link" href={api.exportUrl(sessionId)} download={`${sessionId}.jsonl`}>
            Export JSONL
          </a>
        )}
        {sessionId !== null && (
          <a
            className="small-text export-link"
            href={api.exportUrl(sessionId, 'html')}
            download={`${sessionId}.html`}
            title="One HTML file to hand to someone: transcript, model calls with their requests, tool calls, approvals; secrets redacted"
          >
            Export HTML
          </a>
        )}
        {sessionId !== null && page !== null && <DeleteSession title={title} busy={busy} onDelete={onDelete} />}
      </div>
      {parent !== null && (
        <p className="lineage small-text" data-testid="lineage">
          Forked from{' '}
          <a
            href={`/sessions/${parent.sessionId}`}
            onClick={(event) => {
              if (event.ctrlKey || event.metaKey || event.shiftKey) return;
              event.preventDefault();
              onOpenSession(parent.sessionId);
            }}
          >
            {parentTitle || parent.sessionId}
          </a>{' '}
          after turn {parent.atTurn}; the turns above that point are the parent's.
        </p>
      )}
      {sessionId !== null && (
        <p className="session-cost small-text muted" data-testid="session-cost">
          <span className="mono session-id">{sessionId}</span>
          {total !== null && total.calls > 0 && (
            <span>
              {' '}
              · {total.calls} model call{total.calls === 1 ? '' : 's'} · {costLine(total)}
            </span>
          )}
        </p>
      )}
    </div>
  );
}
