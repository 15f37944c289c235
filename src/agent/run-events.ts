// The closed union of runtime events. Written once, in protocol/run-events.ts (a zod schema with
// the types derived): `exec --json` prints them one per line, the session store records the
// audit-worthy ones, and the server streams the same objects over SSE. The agent core emits them.

import type { RunEvent } from '../protocol/index.js';

export { isTerminalEvent } from '../protocol/index.js';

export type {
  ApprovalDecisionKind,
  ApprovalRequestedEvent,
  ApprovalResolvedEvent,
  HistoryCompactedEvent,
  PermissionDecisionKind,
  RunErrorInfo,
  RunEvent,
  RunEventType,
  StagedUsage,
  TerminalRunEvent,
  ToolFinishedEvent,
  ToolPermissionDecidedEvent,
  ToolStartedEvent,
  UsageStage,
} from '../protocol/index.js';

export type RunEventListener = (event: RunEvent) => void;
