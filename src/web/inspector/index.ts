export { Inspector, type InspectorProps, type InspectorTabName } from './inspector.js';
export { chartGeometry, compactionPositions, niceStep, type ChartGeometry, type ChartInput } from './context-geometry.js';
export { collectAudit, isAuditEvent, type AuditRow } from './audit-rows.js';
export { groupDeltas, type EventRow, type NumberedEvent } from './event-rows.js';
