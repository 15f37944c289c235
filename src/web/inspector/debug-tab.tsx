// The Debug tab: the session's trace. Turn → model call → the tool calls it asked for, with
// tokens, cached share, price and duration; full-text search (the server's, over what each call
// added to the context and answered) and filters; a tool call links to the request that carried
// its output. Opening a call shows its request and answer side by side in the main pane.

import { useEffect, useId, useMemo, useState } from 'react';
import type { SessionRecord, TraceCall } from '../api/index.js';
import { formatCount, formatDuration, formatShare, formatTokens, formatUsd } from '../format/index.js';
import type { LiveEvent } from '../live-run/index.js';
import { actionPhrase, phraseText } from '../transcript/index.js';
import { LiveEvents } from './live-events.js';
import {
  carriers,
  NO_FILTERS,
  outputFates,
  toolDecisions,
  totalOf,
  traceRows,
  type CostTotal,
  type OutputFate,
  type TraceFilters,
  type TraceRow,
} from './trace-rows.js';
import type { TraceData } from './use-trace.js';
import { VirtualList } from './virtual-list.js';

export interface DebugTabProps {
  sessionId: string | null;
  trace: TraceData;
  search: string;
  onSearch(search: string): void;
  records: SessionRecord[];
  liveEvents: LiveEvent[] | null;
  selectedCall: number | null;
  onOpenCall(index: number): void;
}

const ROW_HEIGHT = 30;
/** Below this width a row's figures do not fit on one line (a 1,024 px window's inspector): two lines. */
const ONE_LINE_WIDTH = 460;
const rowHeightFor = (width: number): number => (width > 0 && width < ONE_LINE_WIDTH ? ROW_HEIGHT * 2 - 4 : ROW_HEIGHT);

/** "12.3k in (40 % cached) · 1.2k out · $0.031" — the price said to be unknown rather than guessed. */
export function costLine(total: CostTotal): string {
  const cached = formatShare(total.cachedInputTokens, total.inputTokens);
  const price =
    total.costUsd === null
      ? total.unpriced > 0
        ? 'price unknown'
        : ''
      : `${formatUsd(total.costUsd)}${total.unpriced > 0 ? ` + ${total.unpriced} unpriced` : ''}`;
  return [
    `${formatTokens(total.inputTokens)} in${cached === '' ? '' : ` (${cached} cached)`}`,
    `${formatTokens(total.outputTokens)} out`,
    price,
  ]
    .filter(Boolean)
    .join(' · ');
}

function callCost(call: TraceCall): string {
  if (call.usage === null) return 'no usage';
  if (!call.priceKnown) return 'price unknown';
  return formatUsd(call.costUsd);
}

function CallRow({ call, denied, selected, onOpen }: { call: TraceCall; denied: number; selected: boolean; onOpen(): void }) {
  const usage = call.usage;
  const cached = usage === null ? '' : formatShare(usage.cachedInputTokens, usage.inputTokens);
  const status = call.error !== null ? `error ${call.error.code}` : (call.finishReason ?? '');
  return (
    <button
      type="button"
      className={`trace-call${selected ? ' selected' : ''}${call.error !== null ? ' has-error' : ''}`}
      onClick={onOpen}
      aria-current={selected ? 'true' : undefined}
      data-index={call.index}
    >
      <span className="mono">#{call.index + 1}</span>
      <span className={`stage stage-${call.stage}`}>{call.stage === 'turn' ? `round ${call.round}` : 'summary'}</span>
      <span>{usage === null ? '–' : `${formatTokens(usage.inputTokens)}→${formatTokens(usage.outputTokens)}`}</span>
      {cached !== '' && <span className="muted">{cached} cached</span>}
      <span className="muted">{callCost(call)}</span>
      <span className="muted">{formatDuration(call.durationMs)}</span>
      <span className={call.error !== null ? 'error-text trace-status' : 'muted trace-status'}>{status}</span>
      {denied > 0 && <span className="decision decision-deny">{denied} denied</span>}
    </button>
  );
}

/** What a tool row says of an output no request carried (yet). */
const UNSENT: Record<OutputFate, string> = {
  pending: 'output not sent yet',
  compacted: 'output compacted before it was sent',
  ended: 'output never sent (the turn ended)',
};

function ToolRow({ row, onOpenCall }: { row: Extract<TraceRow, { kind: 'tool' }>; onOpenCall(index: number): void }) {
  // Worded as done once it ran (its output is recorded, or a request carried it), as the
  // transcript words the same call; until then it has not (or not yet) run.
  const ran = row.decision !== 'denied' && (row.carriedBy !== null || row.fate !== null);
  const phrase = phraseText(actionPhrase(row.name, row.arguments, ran));
  return (
    <div className={`trace-tool decision-row-${row.decision}`} data-call-id={row.callId}>
      <span className="muted" aria-hidden="true">
        ↳
      </span>
      <span className="trace-tool-phrase" title={phrase}>
        {phrase}
      </span>
      {row.decision === 'denied' && <span className="decision decision-deny">denied</span>}
      {row.carriedBy !== null ? (
        <button
          type="button"
          className="link small-text"
          onClick={() => onOpenCall(row.carriedBy as number)}
          title="The request that showed the model this tool's output"
        >
          output → #{row.carriedBy + 1}
        </button>
      ) : (
        <span className="muted small-text">{UNSENT[row.fate ?? 'pending']}</span>
      )}
    </div>
  );
}

export function DebugTab({ sessionId, trace, search, onSearch, records, liveEvents, selectedCall, onOpenCall }: DebugTabProps) {
  const [filters, setFilters] = useState<TraceFilters>(NO_FILTERS);
  const [draft, setDraft] = useState(search);
  const ids = { search: useId(), stage: useId(), tool: useId() };
  useEffect(() => setDraft(search), [search]);
  useEffect(() => {
    const timer = setTimeout(() => {
      if (draft.trim() !== search) onSearch(draft.trim());
    }, 250);
    return () => clearTimeout(timer);
  }, [draft, search, onSearch]);

  const calls = trace.calls ?? [];
  const decisions = useMemo(() => toolDecisions(records), [records]);
  const fates = useMemo(() => outputFates(records), [records]);
  const rows = useMemo(() => traceRows(calls, decisions, filters, carriers(calls), fates), [calls, decisions, filters, fates]);
  const toolNames = useMemo(() => [...new Set(calls.flatMap((call) => call.response.toolCalls.map((tool) => tool.name)))].sort(), [calls]);
  const total = useMemo(() => totalOf(calls), [calls]);
  const selectedRow = selectedCall === null ? null : rows.findIndex((row) => row.kind === 'call' && row.call.index === selectedCall);

  if (sessionId === null) {
    return (
      <div className="debug-tab">
        <p className="muted">Open or start a session to see its model calls.</p>
        <LiveEvents liveEvents={liveEvents} />
      </div>
    );
  }
  const filtered = search !== '' || filters !== NO_FILTERS;
  // Typed but not sent yet, or sent and not answered: no count, which would read "0 matching".
  const searching = draft.trim() !== search || (search !== '' && trace.calls === null && trace.error === null);
  return (
    <div className="debug-tab">
      <section aria-label="Trace">
        <h2 className="section-title">
          Trace{' '}
          <span className="muted small-text" data-testid="trace-totals" aria-live="polite">
            {searching ? (
              '(searching…)'
            ) : (
              <>
                ({calls.length} call{calls.length === 1 ? '' : 's'}
                {search !== '' ? ' matching' : ''} · {costLine(total)})
              </>
            )}
          </span>
        </h2>
        <div className="trace-filters">
          <label htmlFor={ids.search} className="visually-hidden">
            Search the trace
          </label>
          <input
            id={ids.search}
            type="search"
            placeholder="Search requests and answers"
            value={draft}
            onChange={(event) => setDraft(event.target.value)}
          />
          <label className="check">
            <input
              type="checkbox"
              checked={filters.errorsOnly}
              onChange={(event) => setFilters({ ...filters, errorsOnly: event.target.checked })}
            />{' '}
            Errors
          </label>
          <label className="check">
            <input
              type="checkbox"
              checked={filters.deniedOnly}
              onChange={(event) => setFilters({ ...filters, deniedOnly: event.target.checked })}
            />{' '}
            Denials
          </label>
          <label htmlFor={ids.stage} className="visually-hidden">
            Stage
          </label>
          <select
            id={ids.stage}
            value={filters.stage}
            onChange={(event) => setFilters({ ...filters, stage: event.target.value as TraceFilters['stage'] })}
          >
            <option value="all">All stages</option>
            <option value="turn">Turn calls</option>
            <option value="compaction">Summary calls</option>
          </select>
          <label htmlFor={ids.tool} className="visually-hidden">
            Tool
          </label>
          <select id={ids.tool} value={filters.tool} onChange={(event) => setFilters({ ...filters, tool: event.target.value })}>
            <option value="">Any tool</option>
            {toolNames.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
          {filtered && (
            <button
              type="button"
              className="small ghost"
              onClick={() => {
                setFilters(NO_FILTERS);
                setDraft('');
                onSearch('');
              }}
            >
              Clear
            </button>
          )}
        </div>
        {trace.error !== null && (
          <p className="error-text" role="alert">
            {trace.error}
          </p>
        )}
        {trace.calls !== null && rows.length === 0 && (
          <p className="muted">{filtered ? 'No call matches.' : 'No model calls recorded yet.'}</p>
        )}
        {rows.length > 0 && (
          <VirtualList
            items={rows}
            rowHeight={rowHeightFor}
            height={Math.min(rows.length * ROW_HEIGHT + 2, 520)}
            keyOf={(row) => row.key}
            label="Model calls"
            scrollTo={selectedRow}
            render={(row) =>
              row.kind === 'turn' ? (
                <div className="trace-turn">
                  <strong>{row.inherited ? `Turn ${row.turn} (parent session)` : `Turn ${row.turn}`}</strong>
                  <span className="muted small-text">
                    {formatCount(row.total.calls)} call{row.total.calls === 1 ? '' : 's'} · {costLine(row.total)}
                  </span>
                </div>
              ) : row.kind === 'call' ? (
                <CallRow
                  call={row.call}
                  denied={row.denied}
                  selected={row.call.index === selectedCall}
                  onOpen={() => onOpenCall(row.call.index)}
                />
              ) : (
                <ToolRow row={row} onOpenCall={onOpenCall} />
              )
            }
          />
        )}
      </section>
      <LiveEvents liveEvents={liveEvents} />
    </div>
  );
}
