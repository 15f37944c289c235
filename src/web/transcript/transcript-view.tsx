// The centre pane: the conversation, turn by turn, following the stream while the reader is at
// the bottom and leaving them alone when they scrolled up to read.

import { memo, useEffect, useId, useLayoutEffect, useRef, useState, type ReactNode, type RefObject } from 'react';
import { formatCount, formatTokens } from '../format/index.js';
import { MarkdownText } from './markdown-text.js';
import { ToolCallView, type ApprovalHandler } from './tool-call-view.js';
import { CopyButton } from './copy-button.js';
import { MessageTime } from './message-time.js';
import type { CompactionView, TranscriptEntry, TranscriptTurn, TurnOutcome } from '../../views/index.js';

export interface TranscriptProps {
  turns: TranscriptTurn[];
  /** Answers approvals of the live run; null when nothing here can be answered. */
  onApprove: ApprovalHandler | null;
  onFork: ((turn: number) => void) | null;
  /**
   * Runs `prompt` as turn `turn` again, in a fork of the session after turn `turn - 1`: the retry
   * of the last turn (same prompt) and edit-and-resend (a new one). Null when nothing may run now.
   */
  onResend: ((turn: number, prompt: string) => void) | null;
  /** Shown under the last turn; the parent decides what actions apply. */
  footer: ReactNode;
  empty: ReactNode;
}

const PHASE_TEXT = {
  waiting: 'Waiting for the model…',
  streaming: 'Writing…',
  tools: 'Running tools…',
  approval: 'Waiting for your approval…',
  compacting: 'Compacting the context…',
} as const;

export function CompactionNote({ compaction }: { compaction: CompactionView }) {
  return (
    <div className="compaction-note" role="note">
      <div className="compaction-rule" aria-hidden="true" />
      <details>
        <summary>
          Context compacted{compaction.trigger !== null && ` (${compaction.trigger})`}: {formatTokens(compaction.tokensBefore)} →{' '}
          {formatTokens(compaction.tokensAfter)} tokens in context
        </summary>
        {compaction.reason !== '' && <p className="muted">{compaction.reason}</p>}
        {compaction.summary !== '' ? <MarkdownText text={compaction.summary} /> : <p className="muted">No summary recorded.</p>}
      </details>
    </div>
  );
}

function EntryView({ entry, runId, onApprove }: { entry: TranscriptEntry; runId: string | null; onApprove: ApprovalHandler | null }) {
  switch (entry.kind) {
    case 'assistant':
      return (
        <div className={`message assistant role-${entry.role}`}>
          {entry.role === 'final' && (
            <div className="message-head">
              <span className="message-label">Answer</span>
              <CopyButton text={entry.text} label="Copy answer" />
              <MessageTime at={entry.at} label="Answered" />
            </div>
          )}
          {(entry.role === 'working' || entry.role === 'streaming') && <MessageTime at={entry.at} label="Written" />}
          {entry.role === 'partial' && (
            <div className="message-head">
              <span className="message-label partial-label">Not sent</span>
              <MessageTime at={entry.at} label="Began" />
              <span className="muted small-text">
                The run stopped while this was streaming; it was never committed, and the model will not see it.
              </span>
            </div>
          )}
          <MarkdownText text={entry.text} streaming={entry.role === 'streaming'} />
        </div>
      );
    case 'reasoning':
      // Collapsed: the model's scratch work is there to inspect, not to read by default.
      return (
        <details className="reasoning" open={entry.streaming || undefined}>
          <summary>{entry.streaming ? 'Reasoning…' : 'Reasoning'}</summary>
          {entry.text === '' ? (
            <p className="muted">The provider keeps this reasoning hidden; only its encrypted state is kept, to send back.</p>
          ) : (
            <MarkdownText text={entry.text} streaming={entry.streaming} />
          )}
        </details>
      );
    case 'tools':
      return (
        <ul className="tool-group" aria-label={`${entry.calls.length} tool call${entry.calls.length === 1 ? '' : 's'}`}>
          {entry.calls.map((call) => (
            <ToolCallView key={call.callId} call={call} runId={runId} onApprove={onApprove} />
          ))}
        </ul>
      );
    case 'compaction':
      return <CompactionNote compaction={entry.compaction} />;
    case 'notice':
      // Warnings can be long and repeat every turn: one line until opened.
      return (
        <details className={`notice tone-${entry.tone}`}>
          <summary>
            <strong>{entry.title}</strong> <span className="notice-preview">{entry.text}</span>
          </summary>
          <p>{entry.text}</p>
        </details>
      );
    case 'user':
      return (
        <div className="message user">
          <MessageTime at={entry.at} label="Sent" />
          {entry.text}
        </div>
      );
  }
}

function OutcomeView({ outcome }: { outcome: TurnOutcome }) {
  switch (outcome.status) {
    case 'running':
      return (
        <p className="turn-progress" role="status">
          <span className="spinner" aria-hidden="true" />
          {PHASE_TEXT[outcome.phase]}
        </p>
      );
    case 'succeeded':
      return (
        <p className="turn-done muted">
          Done{outcome.rounds !== null && ` in ${outcome.rounds} round${outcome.rounds === 1 ? '' : 's'}`}
          {outcome.totalTokens !== null && ` · ${formatCount(outcome.totalTokens)} tokens`}
        </p>
      );
    case 'failed':
      return (
        <div className="turn-error" role="alert">
          <strong>Run failed</strong> <code>{outcome.code}</code>
          <p>{outcome.message}</p>
        </div>
      );
    case 'cancelled':
      return (
        <div className="turn-cancelled" role="status">
          <strong>Cancelled</strong>
          {outcome.reason !== '' && <span> — {outcome.reason}</span>}
        </div>
      );
    case 'incomplete':
      return <p className="turn-done muted">This turn has no end record (interrupted, or still running elsewhere).</p>;
  }
}

/** The prompt of a turn edited in place, sent as a new turn in a fork (the session stays as it was). */
function PromptEditor({ turn, prompt, onSend, onClose }: { turn: number; prompt: string; onSend(text: string): void; onClose(): void }) {
  const [draft, setDraft] = useState(prompt);
  const id = useId();
  const send = () => {
    if (draft.trim() === '') return;
    onSend(draft);
    onClose();
  };
  return (
    <form
      className="prompt-edit"
      onSubmit={(event) => {
        event.preventDefault();
        send();
      }}
    >
      <label htmlFor={id}>Edit the prompt of turn {turn}</label>
      <textarea
        id={id}
        value={draft}
        rows={Math.min(10, Math.max(3, draft.split('\n').length))}
        // biome-ignore lint/a11y/noAutofocus: the person asked to edit this prompt; the box is where they type next
        autoFocus
        onChange={(event) => setDraft(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
            event.preventDefault();
            send();
          } else if (event.key === 'Escape') {
            event.stopPropagation();
            onClose();
          }
        }}
      />
      <p className="muted small-text">
        {turn === 1 ? 'Sent in a new fork with none of these turns' : `Sent in a new fork of this session after turn ${turn - 1}`}; this
        session stays as it is.
      </p>
      <div className="prompt-edit-actions">
        <button type="button" onClick={onClose}>
          Cancel
        </button>
        <button type="submit" className="primary" disabled={draft.trim() === ''}>
          Send in a fork
        </button>
      </div>
    </form>
  );
}

export const TurnView = memo(function TurnView({
  turn,
  last,
  onApprove,
  onFork,
  onResend,
}: {
  turn: TranscriptTurn;
  /** The session's last turn: the one that can be retried. */
  last: boolean;
  onApprove: ApprovalHandler | null;
  onFork: ((turn: number) => void) | null;
  onResend: ((turn: number, prompt: string) => void) | null;
}) {
  const [editing, setEditing] = useState(false);
  const settled = turn.turn !== null && turn.outcome.status !== 'running';
  const canFork = onFork !== null && settled;
  const resend = settled && onResend !== null ? (prompt: string) => onResend(turn.turn as number, prompt) : null;
  return (
    <article
      className={`turn outcome-${turn.outcome.status}`}
      aria-label={turn.turn === null ? 'New turn' : `Turn ${turn.turn}`}
      data-turn={turn.turn ?? ''}
    >
      <header className="turn-header">
        <span className="turn-number">{turn.turn === null ? 'New turn' : `Turn ${turn.turn}`}</span>
        <MessageTime at={turn.startedAt} label="Prompt sent" />
        {canFork && (
          <button
            type="button"
            className="small ghost"
            onClick={() => onFork(turn.turn as number)}
            title="Start a new session containing the history up to the end of this turn"
          >
            Fork here
          </button>
        )}
        {resend !== null && last && (
          <button
            type="button"
            className="small ghost"
            onClick={() => resend(turn.prompt)}
            title="Run this prompt again in a new fork of the session after the turn before; this session stays as it is"
          >
            Retry in a fork
          </button>
        )}
      </header>
      {editing && resend !== null ? (
        <PromptEditor turn={turn.turn as number} prompt={turn.prompt} onSend={resend} onClose={() => setEditing(false)} />
      ) : (
        <div className="message user">
          {turn.prompt}
          <CopyButton text={turn.prompt} label="Copy prompt" className="message-copy" />
          {resend !== null && (
            <button
              type="button"
              className="small ghost message-edit"
              onClick={() => setEditing(true)}
              aria-label={`Edit and resend the prompt of turn ${turn.turn}`}
            >
              Edit
            </button>
          )}
        </div>
      )}
      {turn.entries.map((entry) => (
        <EntryView
          key={entry.key}
          entry={entry}
          runId={turn.runId}
          onApprove={turn.outcome.status === 'running' || turn.outcome.status === 'incomplete' ? onApprove : null}
        />
      ))}
      <OutcomeView outcome={turn.outcome} />
    </article>
  );
});

/** Keeps the view pinned to the newest content while the reader is at (or near) the bottom. */
function useFollowBottom(dependency: unknown) {
  const ref = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  useLayoutEffect(() => {
    const element = ref.current;
    if (element === null) return;
    const onScroll = () => {
      pinned.current = element.scrollHeight - element.scrollTop - element.clientHeight < 48;
    };
    element.addEventListener('scroll', onScroll, { passive: true });
    return () => element.removeEventListener('scroll', onScroll);
  }, []);
  useLayoutEffect(() => {
    const element = ref.current;
    if (element !== null && pinned.current) element.scrollTop = element.scrollHeight;
  }, [dependency]);
  return ref;
}

/** A session with at most this many entries is built whole; a longer one builds its last turns first. */
const EAGER_ENTRIES = 300;
const EAGER_TURNS = 3;
/** Rough height of one entry, for a placeholder to take about the room its turn will. */
const ENTRY_HEIGHT_PX = 44;

/**
 * An earlier turn of a long session: a placeholder of about its height until it comes near the
 * visible part of the conversation, then the turn itself (and it stays). Opening a 1,000-call
 * session so builds its last turns, not all of them (docs/benchmarks.md has the figures).
 */
function DeferredTurn({ turn, root, children }: { turn: TranscriptTurn; root: RefObject<HTMLDivElement | null>; children: ReactNode }) {
  const [near, setNear] = useState(false);
  const placeholder = useRef<HTMLElement>(null);
  useEffect(() => {
    const element = placeholder.current;
    if (near || element === null) return;
    const observer = new IntersectionObserver((entries) => entries.some((entry) => entry.isIntersecting) && setNear(true), {
      root: root.current,
      rootMargin: '1500px 0px',
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, [near, root]);
  if (near) return children;
  const label = turn.turn === null ? 'New turn' : `Turn ${turn.turn}`;
  return (
    <article
      ref={placeholder}
      className="turn turn-deferred"
      aria-label={label}
      data-turn={turn.turn ?? ''}
      style={{ minHeight: `${120 + turn.entries.length * ENTRY_HEIGHT_PX}px` }}
    >
      <header className="turn-header">
        <span className="turn-number">{label}</span>
        <span className="muted">{turn.prompt.slice(0, 120)}</span>
      </header>
    </article>
  );
}

export function Transcript({ turns, onApprove, onFork, onResend, footer, empty }: TranscriptProps) {
  const scroller = useFollowBottom(turns);
  const entries = turns.reduce((sum, turn) => sum + turn.entries.length, 0);
  const eagerFrom = entries <= EAGER_ENTRIES ? 0 : turns.length - EAGER_TURNS;
  return (
    // Focusable so the keyboard can scroll it, and the skip link and Ctrl+Enter can land on it.
    <div className="transcript-scroll" ref={scroller} tabIndex={0} id="transcript" role="region" aria-label="Conversation">
      <div className="transcript-body">
        {turns.length === 0
          ? empty
          : turns.map((turn, index) => {
              const view = (
                <TurnView
                  key={turn.key}
                  turn={turn}
                  last={index === turns.length - 1}
                  onApprove={onApprove}
                  onFork={onFork}
                  onResend={onResend}
                />
              );
              return index >= eagerFrom ? (
                view
              ) : (
                <DeferredTurn key={turn.key} turn={turn} root={scroller}>
                  {view}
                </DeferredTurn>
              );
            })}
        {footer}
      </div>
    </div>
  );
}
