export { Inspector, liveVersion, TAB_NAMES, type InspectorProps, type InspectorTabName } from './inspector.js';
export { chartGeometry, compactionPositions, niceStep, type ChartGeometry, type ChartInput } from './context-geometry.js';
export { collectAudit, isAuditEvent, type AuditRow } from './audit-rows.js';
export { groupDeltas, type EventRow, type NumberedEvent } from './event-rows.js';
export { CallView } from './call-view.js';
export { useTrace, type TraceData } from './use-trace.js';
export { costLine } from './debug-tab.js';
export { totalOf, type CostTotal } from './trace-rows.js';
