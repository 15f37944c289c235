// The Debug tab: every model request as it was sent (rebuilt by the server from the session),
// usage per round, and the raw events of the live run.

import { memo, useEffect, useState } from 'react';
import { describeError, loadAllModelCalls, type ModelCallView } from '../api/index.js';
import { capText, formatCount, formatDuration } from '../format/index.js';
import type { LiveEvent } from '../live-run/index.js';
import { groupDeltas } from './event-rows.js';

export interface DebugTabProps {
  sessionId: string | null;
  version: string;
  liveEvents: LiveEvent[] | null;
}

const MESSAGE_PREVIEW_CHARS = 4000;
const LIVE_EVENTS_SHOWN = 300;

function MessageView({ message }: { message: NonNullable<ModelCallView['request']>['messages'][number] }) {
  const [full, setFull] = useState(false);
  const content = full ? { text: message.content, omitted: 0 } : capText(message.content, MESSAGE_PREVIEW_CHARS);
  const label = message.role === 'tool' ? `tool · ${message.toolName} · ${message.toolCallId}${message.isError ? ' · error' : ''}` : message.role;
  return (
    <li className={`request-message role-${message.role}`}>
      <div className="request-role">{label}</div>
      {content.text !== '' && <pre>{content.text}</pre>}
      {content.omitted > 0 && (
        <button type="button" className="link" onClick={() => setFull(true)}>
          Show {formatCount(content.omitted)} more characters
        </button>
      )}
      {message.role === 'assistant' && message.toolCalls.length > 0 && (
        <ul className="request-tool-calls">
          {message.toolCalls.map((call) => (
            <li key={call.id}>
              <code>
                {call.name}({call.arguments})
              </code>{' '}
              <span className="muted mono">{call.id}</span>
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

const ModelCallRow = memo(function ModelCallRow({ call }: { call: ModelCallView }) {
  const usage = call.usage;
  return (
    <details className="model-call" data-turn={call.turn} data-round={call.round}>
      <summary>
        <span className="mono">
          {call.turn}.{call.round}
        </span>
        <span className={`stage stage-${call.stage}`}>{call.stage}</span>
        <span>{usage === null ? 'no usage' : `${formatCount(usage.inputTokens)} in · ${formatCount(usage.outputTokens)} out`}</span>
        <span className="muted">{formatDuration(call.durationMs)}</span>
        <span className="muted">{call.error !== null ? `error ${call.error.code}` : (call.finishReason ?? '')}</span>
      </summary>
      <div className="model-call-body">
        {usage !== null && (
          <p className="small-text">
            input {formatCount(usage.inputTokens)}
            {usage.cachedInputTokens !== null && ` (cached ${formatCount(usage.cachedInputTokens)})`} · output {formatCount(usage.outputTokens)}
            {usage.reasoningTokens > 0 && ` (reasoning ${formatCount(usage.reasoningTokens)})`} · total {formatCount(usage.totalTokens)}
          </p>
        )}
        {call.error !== null && (
          <p className="error-text">
            {call.error.code}: {call.error.message}
          </p>
        )}
        {call.request === null ? (
          <p className="muted">{call.requestError ?? 'The request is not available.'}</p>
        ) : (
          <>
            <p className="small-text">
              model <code>{call.request.model}</code> · {call.request.messages.length} messages · tools:{' '}
              {call.request.tools.length === 0 ? 'none' : call.request.tools.map((tool) => tool.name).join(', ')}
            </p>
            <ol className="request-messages">
              {call.request.messages.map((message, index) => (
                <MessageView key={index} message={message} />
              ))}
            </ol>
            <details className="raw-json">
              <summary>Request JSON</summary>
              <pre>{JSON.stringify(call.request, null, 2)}</pre>
            </details>
          </>
        )}
      </div>
    </details>
  );
});

function eventSummary(entry: LiveEvent): string {
  const event = entry.event;
  switch (event.type) {
    case 'assistant_delta':
      return JSON.stringify(event.delta);
    case 'tool_requested':
      return `${event.name} ${event.arguments}`;
    case 'tool_finished':
      return `${event.name} ${event.isError ? 'error' : 'ok'} ${formatDuration(event.durationMs)}`;
    case 'model_completed':
      return `round ${event.round} ${event.finishReason} ${event.usage === null ? '' : `${event.usage.totalTokens} tokens`}`;
    case 'model_requested':
      return `round ${event.round} ${event.stage} · ${event.messageCount} messages · ${event.toolCount} tools`;
    case 'tool_permission_decided':
      return `${event.name} ${event.decision} (${event.rule})`;
    default:
      return '';
  }
}

export function DebugTab({ sessionId, version, liveEvents }: DebugTabProps) {
  const [calls, setCalls] = useState<{ sessionId: string; calls: ModelCallView[] } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [allEvents, setAllEvents] = useState(false);

  useEffect(() => {
    if (sessionId === null) return;
    const controller = new AbortController();
    loadAllModelCalls(sessionId, controller.signal).then(
      (loaded) => {
        if (controller.signal.aborted) return;
        setCalls({ sessionId, calls: loaded });
        setError(null);
      },
      (failure: unknown) => {
        if (!controller.signal.aborted) setError(describeError(failure));
      },
    );
    return () => controller.abort();
  }, [sessionId, version]);

  const shownCalls = calls !== null && calls.sessionId === sessionId ? calls.calls : [];
  const events = liveEvents ?? [];
  const shownEvents = allEvents ? events : events.slice(-LIVE_EVENTS_SHOWN);
  const totals = shownCalls.reduce(
    (sum, call) => ({ input: sum.input + (call.usage?.inputTokens ?? 0), output: sum.output + (call.usage?.outputTokens ?? 0) }),
    { input: 0, output: 0 },
  );

  return (
    <div className="debug-tab">
      <section aria-label="Model calls">
        <h3>
          Model calls{' '}
          {sessionId !== null && (
            <span className="muted small-text">
              ({shownCalls.length} · {formatCount(totals.input)} in · {formatCount(totals.output)} out)
            </span>
          )}
        </h3>
        {sessionId === null && <p className="muted">Open or start a session to see its model calls.</p>}
        {error !== null && (
          <p className="error-text" role="alert">
            {error}
          </p>
        )}
        <div className="model-calls">
          {shownCalls.map((call, index) => (
            <ModelCallRow key={`${call.turn}.${call.round}.${call.stage}.${index}`} call={call} />
          ))}
        </div>
      </section>
      <section aria-label="Live run events">
        <h3>
          Live run events <span className="muted small-text">({events.length})</span>
        </h3>
        {events.length === 0 && <p className="muted">No live run in this window.</p>}
        {events.length > shownEvents.length && (
          <button type="button" className="link" onClick={() => setAllEvents(true)}>
            Show all {events.length} events
          </button>
        )}
        <ol className="live-events">
          {groupDeltas(shownEvents).map((row) =>
            row.kind === 'event' ? (
              <li key={row.entry.id}>
                <details>
                  <summary>
                    <span className="mono muted">#{row.entry.id}</span> <span className="event-type">{row.entry.event.type}</span>{' '}
                    <span className="muted event-summary">{eventSummary(row.entry)}</span>
                  </summary>
                  <pre>{JSON.stringify(row.entry.event, null, 2)}</pre>
                </details>
              </li>
            ) : (
              <li key={row.firstId}>
                <details>
                  <summary>
                    <span className="mono muted">
                      #{row.firstId}
                      {row.count > 1 && `–${row.lastId}`}
                    </span>{' '}
                    <span className="event-type">assistant_delta</span> <span className="muted">×{row.count}</span>{' '}
                    <span className="muted event-summary">{JSON.stringify(row.text.slice(0, 80))}</span>
                  </summary>
                  <pre>{row.text}</pre>
                </details>
              </li>
            ),
          )}
        </ol>
      </section>
    </div>
  );
}
