// The shapes of the HTTP API (docs/api.md). The bodies, run events, records, summaries and
// enumerations are protocol/'s (the server validates and types its answers with the same ones);
// the model-call traces and the change preview are the server's own types, imported as types
// only so no server code reaches the bundle.

import type { ApprovalPreviewAnswer } from '../../server/run-routes.js';
import type { TraceCall, TraceCallPage, TraceDetail } from '../../server/trace-scan.js';
import { APPROVAL_POLICIES, SANDBOX_MODES, WIRE_APIS, type CompactAnswer, type WireApi } from '../../protocol/index.js';

export { TERMINAL_EVENT_TYPES } from '../../protocol/index.js';

export type {
  ApprovalDecisionKind as ApprovalDecision,
  ApprovalList,
  ApprovalPolicy,
  ContextPoint,
  ContextView as ContextInfo,
  Health,
  ModelCallPayloads,
  ModelInfo,
  ModelsInfo,
  PendingApproval,
  RecordLine,
  ResolveAnswer,
  RunInfo,
  RunList,
  RunEvent,
  RunStatus,
  SandboxMode,
  SessionList,
  SessionPage,
  SessionRecord,
  SessionStats,
  SessionStatus,
  SessionSummary,
  SkillContextCost,
  StartRunRequest,
  Usage,
  WireApi,
} from '../../protocol/index.js';
export type { ApprovalPreviewAnswer, TraceCall, TraceCallPage, TraceDetail };

/** What a pending file write would change, worked out by the server against the files on disk. */
export type ChangePreview = NonNullable<ApprovalPreviewAnswer['preview']>;

/** Least to most permissive: the server's setting is a cap, a run may only pick one at or before it. */
export const SANDBOX_ORDER = SANDBOX_MODES;
export const APPROVAL_ORDER = APPROVAL_POLICIES;
/** The wire APIs a run may pick (protocol/'s list, not a copy). */
export const WIRE_API_NAMES: readonly WireApi[] = WIRE_APIS;

/** A page cursor as the server gave it (the client only hands it back). */
export type Cursor = string | number;

export type CompactionPayload = CompactAnswer['compaction'];
