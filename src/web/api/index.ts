export { api, ApiError, describeError, loadAllModelCalls, loadAllRecords, onConnectivity, reportConnectivity } from './api-client.js';
export { readRunEvents, RunStream, type RunStreamHandlers, type RunStreamOptions } from './run-stream.js';
export { SseParser, readSseFrames, type SseFrame } from './sse-parser.js';
export * from './api-types.js';
