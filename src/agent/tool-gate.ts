// The loop asks two injected collaborators about every tool call: a permission gate (pure policy,
// implemented in `permissions/`) and an approval broker (a person at a TTY, a web page, or nobody).
// Keeping them as interfaces here keeps the agent layer free of policy and UI code.

import type { AnyTool, ToolAccess } from './tool.js';
import type { ApprovalDecisionKind, PermissionDecisionKind, RunEvent } from './run-events.js';
import type { DecidingConfigRuleShape } from '../protocol/index.js';

export interface GateRequest {
  tool: AnyTool;
  args: unknown;
  access: ToolAccess;
}

export interface GateDecision {
  decision: PermissionDecisionKind;
  reason: string;
  rule: string;
  /** The config file's rule that decided, and where it is written; recorded with the decision. */
  configRule?: DecidingConfigRuleShape;
  /** How the call runs if allowed (or once approved); opaque to the loop, handed to the tool. */
  execution: unknown;
}

export interface PermissionGate {
  /** May be async: deciding on a shell command loads the bash parser on first use. */
  decide(request: GateRequest): GateDecision | Promise<GateDecision>;
  /** Remember an approve-for-session decision so similar calls are allowed without asking. */
  grantForSession(request: GateRequest): void;
  /** What `grantForSession` would grant for this call, one readable line each (shown before a person picks it). */
  describeSessionGrant?(request: GateRequest): string[];
  /** Tools the model may see and call under the current settings. */
  isVisible(tool: AnyTool): boolean;
  /**
   * How a call runs once a person approved it (e.g. secret files no longer masked); absent: as
   * decided.
   */
  approvedExecution?(decision: GateDecision, request: GateRequest): unknown;
}

/** A call the hooks are asked about: the gate's request and the call's id. */
export interface HookedCall extends GateRequest {
  callId: string;
}

export interface ToolHookContext {
  signal: AbortSignal;
  /** Each hook run is reported as a `hook_ran` event (recorded, shown, traced). */
  emit: (event: RunEvent) => void;
}

/**
 * User hooks around tool calls (implemented in `hooks/`, docs/permissions.md "Hooks"). The loop
 * only calls them at two points; what a hook's answer means for the decision is theirs to say.
 */
export interface ToolHooks {
  /**
   * Before a call the gate did not deny: resolves to the decision that stands (a hook may deny it,
   * make it ask, or answer the gate's ask). Never rejects: a hook that fails denies the call.
   */
  beforeCall(call: HookedCall, decision: GateDecision, context: ToolHookContext): Promise<GateDecision>;
  /** After the call ran: what to add to the output the model sees (a hook's block reason), or null. */
  afterCall(call: HookedCall, result: { output: string; isError: boolean }, context: ToolHookContext): Promise<string | null>;
}

export interface ApprovalRequest {
  runId: string;
  callId: string;
  toolName: string;
  /** One line a person can read: the command, or the file and action. */
  summary: string;
  reason: string;
  arguments: string;
  /** What "approve for this session" would cover (`shell: npm test`), when the gate can say. */
  sessionScope?: readonly string[];
}

export interface ApprovalResolution {
  decision: ApprovalDecisionKind;
  /** `user`, `timeout`, `no-tty`, `cancelled`… */
  by: string;
  message: string | null;
}

export interface ApprovalBroker {
  /** Resolves when someone decides; must honour `signal` (reject or resolve `deny` by `cancelled`). */
  request(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalResolution>;
}

/** A gate for trusted contexts: everything allowed, nothing sandboxed. */
export const ALLOW_ALL_GATE: PermissionGate = {
  decide: () => ({
    decision: 'allow',
    reason: 'no permission policy configured',
    rule: 'allow-all',
    // No policy: the tools apply their own unrestricted default.
    execution: undefined,
  }),
  grantForSession: () => {},
  isVisible: () => true,
};

/** A broker with nobody to ask: every request is denied and the model is told why. */
export const NO_APPROVER: ApprovalBroker = {
  request: async () => ({
    decision: 'deny',
    by: 'no-approver',
    message: 'No one is available to approve this action (non-interactive run).',
  }),
};
