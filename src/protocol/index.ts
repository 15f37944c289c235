// Protocol: the browser-safe ground floor. Every shape that crosses a layer or a process is
// written here once, as a zod schema with its TypeScript type derived from it (response items,
// usage, run events, compaction entries, session records, the HTTP API's bodies), and every
// closed set of names as a plain `as const` array. Imports nothing but zod; every layer may import
// it, the web bundle included (at run time).

export * from './enumerations.js';
export * from './usage.js';
export * from './response-item.js';
export * from './tool-events.js';
export * from './hook-events.js';
export * from './run-events.js';
export * from './compaction-entry.js';
export * from './session-records.js';
export * from './session-summary.js';
export * from './http-api.js';
export * from './plan.js';
