// `glassbox serve`: the HTTP + SSE API of docs/api.md and the workbench files.

export { createServer, type GlassboxServer, type ListeningAddress } from './create-server.js';
export {
  RunManager,
  ManagedRun,
  type CancelOutcome,
  type RunManagerOptions,
  type RunParameters,
  type RunStatus,
  type RunSummary,
  type TurnHooks,
  type TurnStarter,
} from './run-manager.js';
export { RunEventLog, type EventSubscriber, type NumberedEvent } from './run-event-log.js';
export { formatSseFrame } from './sse-response.js';
export { generateAccessToken, accessTokenProblem, TOKEN_COOKIE } from './access-token.js';
export { hostAllowed } from './request-guard.js';
export { approvalPolicyWithin, clampToCaps, sandboxWithin, type RunPolicy, type ServerSettings } from './server-settings.js';
export { MAX_BODY_BYTES } from './json-body.js';
