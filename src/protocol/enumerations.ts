// Every closed set of names that crosses a layer or a process, written once. Plain `as const`
// arrays (no schema library), so the web bundle can use them at run time for the price of the
// strings; the schemas in this folder are built from them (`z.enum(WIRE_APIS)`), and the layers
// that named them first (`model/`, `workspace/`, `permissions/`, `agent/`, …) re-export them.
// test/protocol/enumeration-copies.test.ts fails when one is written out again anywhere in src/.

/** The wire dialects a model is spoken to in (`--wire-api`, `wireApi` in sessions and the API). */
export const WIRE_APIS = ['chat', 'responses', 'anthropic'] as const;
export type WireApi = (typeof WIRE_APIS)[number];

/** `--reasoning-effort`: how hard a reasoning model thinks. */
export const REASONING_EFFORTS = ['minimal', 'low', 'medium', 'high'] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

/** Least to most permissive: a server's setting is a cap, a run may pick one at or before it. */
export const SANDBOX_MODES = ['read-only', 'workspace-write', 'danger-full-access'] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** Least to most permissive, as SANDBOX_MODES. */
export const APPROVAL_POLICIES = ['untrusted', 'on-request', 'never'] as const;
export type ApprovalPolicy = (typeof APPROVAL_POLICIES)[number];

/** What the permission gate decided about a tool call. */
export const PERMISSION_DECISIONS = ['allow', 'ask', 'deny'] as const;
export type PermissionDecisionKind = (typeof PERMISSION_DECISIONS)[number];

/** What a person (or a timeout) answered to an approval. */
export const APPROVAL_DECISIONS = ['approve', 'approve_session', 'deny'] as const;
export type ApprovalDecisionKind = (typeof APPROVAL_DECISIONS)[number];

/** What a model call was for. */
export const USAGE_STAGES = ['turn', 'compaction'] as const;
export type UsageStage = (typeof USAGE_STAGES)[number];

/** Why a successful response ended. Errors (length, content filter, refusal) never get here. */
export const FINISH_REASONS = ['stop', 'tool_calls'] as const;
export type FinishReason = (typeof FINISH_REASONS)[number];

/** An assistant message said while working (followed by tool calls) or as the turn's answer. */
export const RUNTIME_ROLES = ['working_message', 'final_response'] as const;
export type RuntimeRole = (typeof RUNTIME_ROLES)[number];

/** What started a compaction: the threshold, a person (`/compact`), or a context overflow. */
export const COMPACTION_TRIGGERS = ['auto', 'manual', 'overflow'] as const;
export type CompactionTrigger = (typeof COMPACTION_TRIGGERS)[number];

/** When a compaction ran: before a turn, between its rounds, or on its own. */
export const COMPACTION_PHASES = ['pre_turn', 'mid_turn', 'manual'] as const;
export type CompactionPhase = (typeof COMPACTION_PHASES)[number];

/** Full replacement by a summary, or the cheap pass that elides old tool outputs. */
export const COMPACTION_KINDS = ['summary', 'prune'] as const;
export type CompactionKind = (typeof COMPACTION_KINDS)[number];

/** The run events that end a run: exactly one, last. */
export const TERMINAL_EVENT_TYPES = ['run_succeeded', 'run_failed', 'run_cancelled'] as const;
export type TerminalEventType = (typeof TERMINAL_EVENT_TYPES)[number];

/** `GET /api/sessions/:id/model-calls?payloads=`: with each call's rebuilt request, or without. */
export const MODEL_CALL_PAYLOADS = ['all', 'none'] as const;
export type ModelCallPayloads = (typeof MODEL_CALL_PAYLOADS)[number];

/** A run the server started over HTTP. */
export const RUN_STATUSES = ['running', 'succeeded', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** How a listed session's last turn stands (`incomplete`: started, never ended; `empty`: no turn). */
export const SESSION_STATUSES = ['running', 'succeeded', 'failed', 'cancelled', 'incomplete', 'empty'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

/** The events a hook runs on: Claude Code's names, so a pasted `hooks` block works (docs/permissions.md, "Hooks"). */
export const HOOK_EVENTS = [
  'PreToolUse',
  'PostToolUse',
  'UserPromptSubmit',
  'Stop',
  'SessionStart',
  'SessionEnd',
  'PreCompact',
  'Notification',
] as const;
export type HookEventName = (typeof HOOK_EVENTS)[number];

/** What one hook run came to: its effect on the call or prompt, or `failed` (crash, timeout, other exit code, bad JSON). */
export const HOOK_OUTCOMES = ['continue', 'allow', 'ask', 'deny', 'block', 'failed'] as const;
export type HookOutcome = (typeof HOOK_OUTCOMES)[number];

/**
 * Whose config file a setting is written in: the user's own (`<home>/config.json`) or the
 * project's (`.glassbox/config.json`, trusted less: its MCP servers and hooks run only once pinned).
 */
export const CONFIG_SOURCES = ['user', 'project'] as const;
export type ConfigSource = (typeof CONFIG_SOURCES)[number];
