export { Inspector, type InspectorProps, type InspectorTabName } from './inspector.js';
export { chartGeometry, compactionPositions, niceStep, type ChartGeometry, type ChartInput } from './context-geometry.js';
