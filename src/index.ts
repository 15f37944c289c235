// The `glassbox` package entry: run the coding agent in a session from your own program. The
// layers underneath have their own entries: `glassbox/model` (gateways, the IR, errors, the model
// catalog), `glassbox/agent` (the reusable loop, tool contract, run events) and
// `glassbox/testing` (the scripted fake provider). docs/library.md shows them in use.

export {
  compactSession,
  createPermissionGate,
  glassboxVersion,
  openRunner,
  runTurn,
  type CompactSessionOptions,
  type GateSettings,
  type Runner,
  type RunnerSettings,
  type TurnRequest,
  type TurnResult,
} from './runner/index.js';
export {
  JsonlSessionStore,
  MemorySessionStore,
  forkSession,
  replaySession,
  resumeSession,
  type SessionRecord,
  type SessionStore,
} from './sessions/index.js';
export {
  createEditingTools,
  createReadOnlyTools,
  createShellTool,
  createToolSessionState,
  executionPolicy,
  toolSessionState,
  type ToolSessionState,
} from './tools/index.js';
export {
  APPROVAL_POLICIES,
  decidePermission,
  loadCommandClassifier,
  type ApprovalPolicy,
  type PermissionDecision,
} from './permissions/index.js';
export { SANDBOX_MODES, UNRESTRICTED_EXECUTION, type ExecutionPolicy, type SandboxMode } from './workspace/index.js';
