// The right pane: tabs over the selected session (and the live run's events). Tabs follow the
// WAI-ARIA pattern: arrow keys move between them, Tab moves into the panel.

import { useId, useMemo, useRef, type KeyboardEvent } from 'react';
import type { SessionRecord } from '../api/index.js';
import type { LiveEvent } from '../live-run/index.js';
import { collectAudit } from './audit-rows.js';
import { AuditTab } from './audit-tab.js';
import { ContextTab } from './context-tab.js';
import { DebugTab } from './debug-tab.js';
import { SessionTab } from './session-tab.js';
import type { TraceData } from './use-trace.js';

import { TAB_NAMES, type InspectorTabName } from './tab-names.js';
export { TAB_NAMES, type InspectorTabName };

/** Data that follows the run refetches as rounds complete and compactions happen, not on every delta. */
export function liveVersion(version: string, liveEvents: LiveEvent[] | null): string {
  const progress = (liveEvents ?? []).filter(
    (entry) => entry.event.type === 'model_completed' || entry.event.type === 'history_compacted',
  ).length;
  return `${version}:${progress}`;
}
const TABS: Array<{ name: InspectorTabName; label: string }> = [
  { name: 'debug', label: 'Debug' },
  { name: 'audit', label: 'Audit' },
  { name: 'session', label: 'Session' },
  { name: 'context', label: 'Context' },
];

export interface InspectorProps {
  tab: InspectorTabName;
  onTab(tab: InspectorTabName): void;
  sessionId: string | null;
  /** Bumps when the session's records changed. */
  version: string;
  records: SessionRecord[];
  /** Events of the live run when it belongs to the shown session, else null. */
  liveEvents: LiveEvent[] | null;
  runActive: boolean;
  onCompacted(): void;
  trace: TraceData;
  traceSearch: string;
  onTraceSearch(search: string): void;
  selectedCall: number | null;
  onOpenCall(index: number): void;
}

export function Inspector(props: InspectorProps) {
  const { tab, onTab, sessionId, version, records, liveEvents, runActive, onCompacted } = props;
  const baseId = useId();
  const tabRefs = useRef(new Map<InspectorTabName, HTMLButtonElement>());
  const audit = useMemo(
    () =>
      collectAudit(
        records,
        (liveEvents ?? []).map((entry) => entry.event),
      ),
    [records, liveEvents],
  );

  const contextVersion = liveVersion(version, liveEvents);

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    const index = TABS.findIndex((entry) => entry.name === tab);
    let next = -1;
    if (event.key === 'ArrowRight') next = (index + 1) % TABS.length;
    else if (event.key === 'ArrowLeft') next = (index - 1 + TABS.length) % TABS.length;
    else if (event.key === 'Home') next = 0;
    else if (event.key === 'End') next = TABS.length - 1;
    const target = TABS[next];
    if (target === undefined) return;
    event.preventDefault();
    onTab(target.name);
    tabRefs.current.get(target.name)?.focus();
  }

  return (
    <div className="inspector">
      <div className="tabs" role="tablist" aria-label="Inspector" onKeyDown={onKeyDown} id="inspector-tabs" tabIndex={-1}>
        {TABS.map((entry) => (
          <button
            key={entry.name}
            ref={(element) => {
              if (element) tabRefs.current.set(entry.name, element);
            }}
            type="button"
            role="tab"
            id={`${baseId}-tab-${entry.name}`}
            aria-selected={tab === entry.name}
            aria-controls={`${baseId}-panel-${entry.name}`}
            tabIndex={tab === entry.name ? 0 : -1}
            className={tab === entry.name ? 'tab selected' : 'tab'}
            onClick={() => onTab(entry.name)}
          >
            {entry.label}
            {entry.name === 'audit' && audit.rows.length > 0 && <span className="tab-count">{audit.rows.length}</span>}
          </button>
        ))}
      </div>
      <div className="tab-panel" role="tabpanel" id={`${baseId}-panel-${tab}`} aria-labelledby={`${baseId}-tab-${tab}`} tabIndex={0}>
        {tab === 'debug' && (
          <DebugTab
            sessionId={sessionId}
            trace={props.trace}
            search={props.traceSearch}
            onSearch={props.onTraceSearch}
            records={records}
            liveEvents={liveEvents}
            selectedCall={props.selectedCall}
            onOpenCall={props.onOpenCall}
          />
        )}
        {tab === 'audit' && <AuditTab rows={audit.rows} calls={audit.calls} />}
        {tab === 'session' && <SessionTab sessionId={sessionId} version={version} />}
        {tab === 'context' && (
          <ContextTab
            sessionId={sessionId}
            version={contextVersion}
            runActive={runActive}
            onCompacted={onCompacted}
            onOpenCall={props.onOpenCall}
          />
        )}
      </div>
    </div>
  );
}
