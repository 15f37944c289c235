// The transcript as data: turns of entries (assistant text, reasoning, tool call groups,
// compactions, notices). One reducer (transcript-reducer.ts) builds it from replayed records and
// from live events alike, for the web and the terminal.

import type { RunEvent } from '../agent/index.js';
import type { ApprovalDecisionKind, PermissionDecisionKind, UsageStage } from '../protocol/index.js';

export type ToolCallStatus = 'requested' | 'awaiting_approval' | 'running' | 'succeeded' | 'failed' | 'denied' | 'cancelled';

export interface PermissionView {
  decision: PermissionDecisionKind;
  reason: string;
  rule: string;
}

export interface ApprovalView {
  summary: string;
  reason: string;
  resolution: { decision: ApprovalDecisionKind; by: string; message: string | null } | null;
}

export interface ToolCallState {
  callId: string;
  name: string;
  arguments: string;
  status: ToolCallStatus;
  /** The tool began executing: a call cancelled before that never ran, and is worded so. */
  started: boolean;
  output: string | null;
  isError: boolean;
  durationMs: number | null;
  permission: PermissionView | null;
  approval: ApprovalView | null;
}

export interface CompactionView {
  compactionId: string;
  trigger: string | null;
  phase: string | null;
  kind: string | null;
  tokensBefore: number | null;
  tokensAfter: number | null;
  itemsRemoved: number | null;
  itemsKept: number | null;
  reason: string;
  summary: string;
  estimated: boolean;
}

/**
 * `streaming`: text arriving now; `partial`: text that was streaming when the run was cancelled
 * or failed, never committed, so the model never saw it and later requests do not carry it.
 */
export type AssistantRole = 'working' | 'final' | 'streaming' | 'partial';

/**
 * When a message appeared (ISO): from a record, when it was written; live, when the page received
 * the event that began it. Absent when not known.
 */
export type Stamp = { at?: string };

export type TranscriptEntry =
  | ({ kind: 'assistant'; key: string; text: string; role: AssistantRole } & Stamp)
  /** What the model showed of its reasoning (empty when the provider keeps it hidden), shown collapsed. */
  | { kind: 'reasoning'; key: string; text: string; streaming: boolean }
  /** `round` is known live; records do not say, so there it is null. */
  | { kind: 'tools'; key: string; round: number | null; calls: ToolCallState[] }
  | { kind: 'compaction'; key: string; compaction: CompactionView }
  /** `cause`: the fact it reports, for a face that words notices its own way (the terminal). */
  | { kind: 'notice'; key: string; tone: 'info' | 'warning'; title: string; text: string; cause: NoticeCause }
  | ({ kind: 'user'; key: string; text: string } & Stamp);

/** What a notice reports: a retried model call or stream, a warning, or a hook run. */
export type NoticeCause = Extract<RunEvent, { type: 'model_retry' | 'stream_retry' | 'warning' | 'hook_ran' }>;

export type RunningPhase = 'waiting' | 'streaming' | 'tools' | 'approval' | 'compacting';

export type TurnOutcome =
  | { status: 'running'; phase: RunningPhase }
  | { status: 'succeeded'; rounds: number | null; totalTokens: number | null }
  | { status: 'failed'; code: string; message: string }
  | { status: 'cancelled'; reason: string }
  /** No end record: the run was interrupted, or is still going in another process. */
  | { status: 'incomplete' };

export interface TranscriptTurn {
  key: string;
  turn: number | null;
  runId: string | null;
  prompt: string;
  /** When the prompt was sent (see `Stamp`); null when not known. */
  startedAt: string | null;
  entries: TranscriptEntry[];
  outcome: TurnOutcome;
  /** What the current model call is for; deltas of a compaction call are not the answer. */
  stage: UsageStage | null;
  /** The last thing added was a tool call: a following call of the same batch joins its group. */
  callsOpen: boolean;
}
