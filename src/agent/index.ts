export * from './response-items.js';
export * from './items-to-messages.js';
export * from './run-events.js';
export * from './tool.js';
export * from './run-observer.js';
