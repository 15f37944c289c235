// The closed union of runtime events. Defined once: `exec --json` prints them one per line, the
// session store records the audit-worthy ones, and the server streams the same objects over SSE.

import type { FinishReason, Usage, WireApi } from '../model/index.js';
import type {
  ApprovalRequestedEvent,
  ApprovalResolvedEvent,
  HistoryCompactedEvent,
  RunErrorInfo,
  StagedUsage,
  ToolFinishedEvent,
  ToolPermissionDecidedEvent,
  ToolStartedEvent,
  UsageStage,
} from '../protocol/index.js';

// The events that are stored or shared as they are (tool events, compactions, usage, errors) are
// protocol/'s shapes, derived from its schemas; the others are written here.
export type {
  ApprovalDecisionKind,
  ApprovalRequestedEvent,
  ApprovalResolvedEvent,
  HistoryCompactedEvent,
  PermissionDecisionKind,
  RunErrorInfo,
  StagedUsage,
  ToolFinishedEvent,
  ToolPermissionDecidedEvent,
  ToolStartedEvent,
  UsageStage,
} from '../protocol/index.js';

export type RunEvent =
  | { type: 'run_started'; sessionId: string; runId: string; model: string; wireApi: WireApi; resumed: boolean }
  | { type: 'model_requested'; round: number; stage: UsageStage; messageCount: number; toolCount: number }
  | { type: 'model_retry'; round: number; attempt: number; delayMs: number; error: RunErrorInfo }
  /**
   * The round's stream broke after it had started (STREAM_INTERRUPTED). Nothing of it was
   * committed; what it streamed (`discardedChars` of text and reasoning) is void, UIs drop it, and
   * the round is asked again after `delayMs`. `attempt` of `maxAttempts` retries.
   */
  | {
      type: 'stream_retry';
      round: number;
      attempt: number;
      maxAttempts: number;
      delayMs: number;
      discardedChars: number;
      error: RunErrorInfo;
    }
  | { type: 'assistant_delta'; round: number; delta: string }
  /** Readable reasoning (a summary, or raw reasoning text) as it streams; recorded as a `reasoning` item at commit. */
  | { type: 'reasoning_delta'; round: number; delta: string }
  | {
      type: 'model_completed';
      round: number;
      stage: UsageStage;
      usage: Usage | null;
      finishReason: FinishReason;
      durationMs: number;
    }
  | { type: 'tool_requested'; round: number; callId: string; name: string; arguments: string }
  | ToolPermissionDecidedEvent
  | ApprovalRequestedEvent
  | ApprovalResolvedEvent
  | ToolStartedEvent
  | ToolFinishedEvent
  | HistoryCompactedEvent
  | { type: 'warning'; code: string; message: string }
  | { type: 'run_succeeded'; answer: string; usage: StagedUsage; rounds: number }
  | { type: 'run_failed'; error: RunErrorInfo; usage: StagedUsage; rounds: number }
  | { type: 'run_cancelled'; reason: string; usage: StagedUsage; rounds: number };

export type RunEventType = RunEvent['type'];
export type TerminalRunEvent = Extract<RunEvent, { type: 'run_succeeded' | 'run_failed' | 'run_cancelled' }>;

export function isTerminalEvent(event: RunEvent): event is TerminalRunEvent {
  return event.type === 'run_succeeded' || event.type === 'run_failed' || event.type === 'run_cancelled';
}

export type RunEventListener = (event: RunEvent) => void;
