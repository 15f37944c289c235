export { openRunner, runTurn, glassboxVersion, type Runner, type RunnerSettings, type TurnRequest, type TurnResult } from './agent-runner.js';
export { createPermissionGate, type GateSettings } from './permission-gate.js';
export { SessionRecorder, toAuditEvent } from './session-recorder.js';
