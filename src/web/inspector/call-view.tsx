// One model call, full width in the main pane (`/sessions/:id/calls/:n`): what was sent and what
// came back, side by side; what changed since the previous request; the request as JSON. The
// payloads are fetched when the call is opened, not with the list.

import { useEffect, useState } from 'react';
import { api, describeError, type TraceCall, type TraceDetail } from '../api/index.js';
import { formatCount, formatDuration, formatShare, formatUsd } from '../format/index.js';
import { CopyButton, MarkdownText } from '../transcript/index.js';
import { AnswerView, MessageView } from './message-list.js';
import { requestDiff } from './request-diff.js';

export interface CallViewProps {
  sessionId: string;
  index: number;
  /** The list (without payloads), to find the previous request and step through calls. */
  calls: TraceCall[] | null;
  onOpen(index: number): void;
  onClose(): void;
}

type Pane = 'messages' | 'diff' | 'json';

function useCallDetail(sessionId: string, index: number | null): { call: TraceDetail | null; error: string | null } {
  const [state, setState] = useState<{ key: string; call: TraceDetail | null; error: string | null } | null>(null);
  const key = `${sessionId}|${index}`;
  useEffect(() => {
    if (index === null) return;
    let stale = false;
    api.modelCall(sessionId, index).then(
      ({ call }) => !stale && setState({ key, call, error: null }),
      (failure: unknown) => !stale && setState({ key, call: null, error: describeError(failure) }),
    );
    return () => {
      stale = true;
    };
  }, [sessionId, index, key]);
  return state !== null && state.key === key ? state : { call: null, error: null };
}

function Diff({ current, previous }: { current: TraceDetail; previous: TraceDetail | null }) {
  if (current.request === null) return <p className="muted">No request to compare.</p>;
  if (previous === null || previous.request === null)
    return <p className="muted">This is the first request of the session: everything in it is new.</p>;
  const diff = requestDiff(previous.request.messages, current.request.messages);
  return (
    <div className="request-diff" data-testid="request-diff">
      <p className="small-text">
        Against call #{previous.index + 1}: {diff.unchanged} message{diff.unchanged === 1 ? '' : 's'} unchanged,{' '}
        <strong>{diff.added.length} added</strong>
        {diff.removed.length > 0 && (
          <>
            , <strong>{diff.removed.length} no longer sent</strong> (replaced by a compaction)
          </>
        )}
        .
      </p>
      <ol className="request-messages">
        {diff.removed.map((message, index) => (
          <MessageView key={`r${index}`} message={message} tone="removed" />
        ))}
        {diff.added.map((message, index) => (
          <MessageView key={`a${index}`} message={message} tone="added" />
        ))}
      </ol>
    </div>
  );
}

export function CallView({ sessionId, index, calls, onOpen, onClose }: CallViewProps) {
  const [pane, setPane] = useState<Pane>('messages');
  const { call, error } = useCallDetail(sessionId, index);
  const previousIndex =
    calls === null ? null : ([...calls].reverse().find((other) => other.index < index && other.stage === 'turn')?.index ?? null);
  const previous = useCallDetail(sessionId, pane === 'diff' ? previousIndex : null).call;
  const total = calls?.length ?? null;
  const usage = call?.usage ?? null;

  return (
    <section className="call-view" id="call-view" tabIndex={-1} aria-labelledby="call-view-title">
      <header className="call-view-head">
        {/* The page's heading while a call is open (the transcript's h1 is not shown then). */}
        <h1 id="call-view-title" className="call-view-title">
          Model call #{index + 1}
          {call !== null && ` · turn ${call.turn}, ${call.stage === 'turn' ? `round ${call.round}` : 'summary'}`}
        </h1>
        <div className="row">
          <button type="button" className="small" disabled={index === 0} onClick={() => onOpen(index - 1)}>
            Previous call
          </button>
          <button type="button" className="small" disabled={total !== null && index >= total - 1} onClick={() => onOpen(index + 1)}>
            Next call
          </button>
          <button type="button" className="small" onClick={onClose}>
            Back to the transcript
          </button>
        </div>
      </header>
      {error !== null && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
      {call === null && error === null && <p className="muted pad">Loading the call…</p>}
      {call !== null && (
        <>
          <p className="call-facts small-text">
            <code>{call.model}</code>
            {call.inherited && <span className="badge">from the parent session</span>} · {formatDuration(call.durationMs)} ·{' '}
            {usage === null
              ? 'no usage reported'
              : `${formatCount(usage.inputTokens)} in${usage.cachedInputTokens !== null ? ` (${formatShare(usage.cachedInputTokens, usage.inputTokens) || '0 %'} cached)` : ''} · ${formatCount(usage.outputTokens)} out${usage.reasoningTokens > 0 ? ` (${formatCount(usage.reasoningTokens)} reasoning)` : ''}`}{' '}
            · {usage === null ? '' : call.priceKnown ? formatUsd(call.costUsd) : 'price unknown (the model has no price in the catalog)'}
            {call.error !== null && (
              <span className="error-text">
                {' '}
                · {call.error.code}: {call.error.message}
              </span>
            )}
          </p>
          <div className="call-columns">
            <div className="call-column" role="region" aria-label="Request">
              <div className="column-head">
                <h2>Request</h2>
                <div className="segmented" role="group" aria-label="Request view">
                  {(['messages', 'diff', 'json'] as const).map((name) => (
                    <button key={name} type="button" className="small" aria-pressed={pane === name} onClick={() => setPane(name)}>
                      {name === 'messages' ? 'Messages' : name === 'diff' ? 'Diff vs previous' : 'JSON'}
                    </button>
                  ))}
                </div>
              </div>
              {call.requestNote !== null && <p className="muted small-text">{call.requestNote}</p>}
              {call.request === null ? (
                <p className="muted">{call.requestError ?? 'The request is not available.'}</p>
              ) : pane === 'messages' ? (
                <>
                  <p className="small-text muted">
                    {call.request.messages.length} messages · tools:{' '}
                    {call.request.tools.length === 0 ? 'none' : call.request.tools.map((tool) => tool.name).join(', ')}
                  </p>
                  <ol className="request-messages">
                    {call.request.messages.map((message, position) => (
                      <MessageView key={position} message={message} />
                    ))}
                  </ol>
                </>
              ) : pane === 'diff' ? (
                <Diff current={call} previous={previous} />
              ) : (
                <div className="raw-json">
                  <CopyButton text={() => JSON.stringify(call.request, null, 2)} label="Copy request JSON" />
                  <pre tabIndex={0}>{JSON.stringify(call.request, null, 2)}</pre>
                </div>
              )}
            </div>
            <div className="call-column" role="region" aria-label="Response">
              <div className="column-head">
                <h2>Response</h2>
                <span className="muted small-text">{call.error !== null ? 'failed' : (call.finishReason ?? '')}</span>
              </div>
              {call.stage === 'compaction' ? (
                call.response.text === '' ? (
                  <p className="muted">No summary recorded.</p>
                ) : (
                  <MarkdownText text={call.response.text} />
                )
              ) : call.responseItems.length === 0 ? (
                <p className="muted">
                  {call.error !== null ? 'The call failed: nothing was committed.' : 'Nothing was committed from this call.'}
                </p>
              ) : (
                <ol className="request-messages">
                  {call.responseItems.map((item, position) => (
                    <AnswerView key={position} item={item} />
                  ))}
                </ol>
              )}
              {call.carriedOutputs.length > 0 && (
                <p className="small-text muted">
                  This request first showed the model the output of:{' '}
                  {call.carriedOutputs.map((output) => `${output.name} (${output.callId})`).join(', ')}.
                </p>
              )}
            </div>
          </div>
        </>
      )}
    </section>
  );
}
