// The shapes of the HTTP API (docs/api.md). Run events, records and summaries are the app's own
// types, imported as types only so no server code reaches the bundle.

import type { Usage, WireApi } from '../../model/ir.js';
import type { RunEvent } from '../../agent/run-events.js';
import type { SessionMetaRecord, SessionRecord } from '../../sessions/session-records.js';
import type { SessionSummary } from '../../sessions/session-summary.js';
import type { SessionStats, SessionStatus } from '../../server/session-stats.js';
import type { TraceCall, TraceDetail } from '../../server/trace-scan.js';
import type { ApprovalPreviewAnswer } from '../../server/run-routes.js';

export type {
  ApprovalPreviewAnswer,
  RunEvent,
  SessionRecord,
  SessionStats,
  SessionStatus,
  SessionSummary,
  TraceCall,
  TraceDetail,
  Usage,
  WireApi,
};

/** What a pending file write would change, worked out by the server against the files on disk. */
export type ChangePreview = NonNullable<ApprovalPreviewAnswer['preview']>;

export type SandboxMode = 'read-only' | 'workspace-write' | 'danger-full-access';
export type ApprovalPolicy = 'untrusted' | 'on-request' | 'never';
export type ApprovalDecision = 'approve' | 'approve_session' | 'deny';
export type RunStatus = 'running' | 'succeeded' | 'failed' | 'cancelled';

/** Least to most permissive: the server's setting is a cap, a run may only pick one at or before it. */
export const SANDBOX_ORDER: readonly SandboxMode[] = ['read-only', 'workspace-write', 'danger-full-access'];
export const APPROVAL_ORDER: readonly ApprovalPolicy[] = ['untrusted', 'on-request', 'never'];
export const WIRE_API_NAMES: readonly WireApi[] = ['chat', 'responses', 'anthropic'];

export interface Health {
  ok: boolean;
  version: string;
  model: string;
  wireApi: WireApi;
  demo: boolean;
  root: string;
}

export interface ModelInfo {
  id: string;
  contextWindow: number | null;
  maxOutputTokens: number | null;
}

export interface ModelsInfo {
  models: ModelInfo[];
  defaults: { model: string; wireApi: WireApi; sandbox: SandboxMode; approvalPolicy: ApprovalPolicy };
  caps: { sandbox: SandboxMode; approvalPolicy: ApprovalPolicy };
}

export interface StartRunRequest {
  prompt: string;
  sessionId?: string;
  model?: string;
  wireApi?: WireApi;
  sandbox?: SandboxMode;
  approvalPolicy?: ApprovalPolicy;
  compactAt?: number | string;
}

export interface RunInfo {
  runId: string;
  sessionId: string;
  status: RunStatus;
  startedAt: string;
  prompt: string;
}

export interface PendingApproval {
  runId: string;
  /** null while the run has not named its session yet. */
  sessionId: string | null;
  callId: string;
  toolName: string;
  summary: string;
  reason: string;
  arguments: string;
  requestedAt: string;
  expiresAt: string | null;
}

export type Cursor = string | number;

export interface SessionList {
  sessions: SessionSummary[];
  /** Status, tokens and price per listed session (missing for one that could not be read). */
  stats: Record<string, SessionStats>;
  nextCursor: Cursor | null;
  problems: unknown[];
}

export interface RecordLine {
  line: number;
  record: SessionRecord;
}

export interface SessionPage {
  /** null when the server's index does not (yet) list the session. */
  summary: SessionSummary | null;
  meta: SessionMetaRecord | null;
  records: RecordLine[];
  problems: unknown[];
  nextCursor: Cursor | null;
}

export interface TraceCallPage {
  calls: TraceCall[];
  nextCursor: Cursor | null;
  total: number;
}

export type HistoryCompacted = Extract<RunEvent, { type: 'history_compacted' }>;
export type CompactionPayload = Omit<HistoryCompacted, 'type'> & { type?: string };

export interface ContextPoint {
  turn: number;
  round: number;
  callIndex: number;
  tokens: number;
  estimated: boolean;
}

export interface ContextInfo {
  window: number | null;
  threshold: number | null;
  points: ContextPoint[];
  /** Compaction record payloads (turn, compactionId, trigger, tokensBefore…); read leniently. */
  compactions: Array<Record<string, unknown>>;
}
