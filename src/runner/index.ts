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
export { offersSkills, skillContextCost, toolsOffered, type SkillContextCost } from './skill-context.js';
export { compactSession, type CompactSessionOptions } from './compact-session.js';
export { endSession, notifyIdle, type IdleNotificationOptions, type SessionEndOptions, type SessionEndReason } from './session-end.js';
export { createPermissionGate, type GateSettings } from './permission-gate.js';
export { SessionRecorder, toAuditEvent } from './session-recorder.js';
// The approval preview (a dry run of a file-writing call) for the server and the terminal UI,
// which reach the tools only through the runner.
export type { EditorFiles } from '../tools/index.js';
export { previewChange, type ChangePreview, type FilePreview, type PreviewLine } from '../tools/index.js';
// Runs dispatched to worker processes through PostgreSQL (issue 29); loads `pg` only when opened.
export { PgRunQueue, type ClaimedRun, type PgRunQueueOptions, type QueuedRun, type QueuedRunState } from './pg-run-queue.js';
