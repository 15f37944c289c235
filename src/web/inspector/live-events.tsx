// The live run's raw events, numbered as the server sent them, consecutive text deltas folded.

import { useState } from 'react';
import { formatDuration } from '../format/index.js';
import type { LiveEvent } from '../live-run/index.js';
import { groupDeltas } from './event-rows.js';

const LIVE_EVENTS_SHOWN = 300;

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

export function LiveEvents({ liveEvents }: { liveEvents: LiveEvent[] | null }) {
  const [allEvents, setAllEvents] = useState(false);
  const events = liveEvents ?? [];
  const shownEvents = allEvents ? events : events.slice(-LIVE_EVENTS_SHOWN);
  return (
    <section aria-label="Live run events">
      <h2 className="section-title">
        Live run events <span className="muted small-text">({events.length})</span>
      </h2>
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
                <pre tabIndex={0}>{JSON.stringify(row.entry.event, null, 2)}</pre>
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
                <pre tabIndex={0}>{row.text}</pre>
              </details>
            </li>
          ),
        )}
      </ol>
    </section>
  );
}
