// The closed union of runtime events. Defined once: `exec --json` prints them one per line, the
// session store records the audit-worthy ones, and the server streams the same objects over SSE.

import type { FinishReason, Usage, WireApi } from '../model/index.js';

/** A usage total labelled with what the model call was for. */
export type UsageStage = 'turn' | 'compaction';

export interface StagedUsage {
  /** Sum over every model call in the run. */
  total: Usage;
  /** Per-stage sums, e.g. `{ turn: …, compaction: … }`. */
  byStage: Partial<Record<UsageStage, Usage>>;
  calls: number;
}

export type PermissionDecisionKind = 'allow' | 'ask' | 'deny';
export type ApprovalDecisionKind = 'approve' | 'approve_session' | 'deny';

export interface RunErrorInfo {
  code: string;
  message: string;
}

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
  | {
      type: 'tool_permission_decided';
      callId: string;
      name: string;
      decision: PermissionDecisionKind;
      reason: string;
      /** Which rule decided, e.g. `policy:untrusted`, `classifier:safe`, `session-approval`. */
      rule: string;
    }
  | { type: 'approval_requested'; callId: string; name: string; summary: string; reason: string; arguments: string }
  | {
      type: 'approval_resolved';
      callId: string;
      name: string;
      decision: ApprovalDecisionKind;
      /** Who decided: `user` (TTY/web), `timeout`, `no-tty`, `cancelled`. */
      by: string;
      message: string | null;
    }
  | { type: 'tool_started'; callId: string; name: string }
  | {
      type: 'tool_finished';
      callId: string;
      name: string;
      isError: boolean;
      output: string;
      durationMs: number;
    }
  | {
      type: 'history_compacted';
      compactionId: string;
      trigger: 'auto' | 'manual' | 'overflow';
      phase: 'pre_turn' | 'mid_turn' | 'manual';
      kind: 'summary' | 'prune';
      tokensBefore: number;
      tokensAfter: number;
      itemsRemoved: number;
      itemsKept: number;
      reason: string;
      summary: string;
      estimated: boolean;
    }
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
