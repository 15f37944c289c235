export {
  openRunner,
  runTurn,
  glassboxVersion,
  toolSchemaTokens,
  type Runner,
  type RunnerSettings,
  type ToolPolicySettings,
  type TurnRequest,
  type TurnResult,
} from './agent-runner.js';
export { compactSession, type CompactSessionOptions } from './compact-session.js';
export { createPermissionGate, type GateSettings } from './permission-gate.js';
export { SessionRecorder, toAuditEvent } from './session-recorder.js';
