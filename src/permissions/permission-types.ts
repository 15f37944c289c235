// Inputs and outputs of the permission decision. The decision is a pure function of these, so
// every cell of the rule matrix (docs/permissions.md) can be tested without running anything.

import type { ToolAccess } from '../agent/index.js';
import type { ApprovalPolicy, PermissionDecisionKind } from '../protocol/index.js';
import type { ExecutionPolicy, SandboxMode } from '../workspace/index.js';
import type { CommandClassification } from './command-classification.js';
import type { CommandRuleView } from './command-classification.js';
import type { ConfigRule, RuleList } from './config-rule.js';

/**
 * The approval policies (one of protocol/'s enumerations, least to most permissive):
 * - `untrusted`: ask for everything except known-safe commands and reads inside the root.
 * - `on-request` (default): act freely inside the sandbox; ask only for escalations, writes the
 *   sandbox mode forbids, protected paths and secret files.
 * - `never`: never ask; what would need approval is denied with a reason the model can act on.
 */
export { APPROVAL_POLICIES, type ApprovalPolicy } from '../protocol/index.js';

export interface PermissionInput {
  toolName: string;
  /** From `tool.access(args)`: absolute lexical paths, or the command to run. */
  access: ToolAccess;
  /** For exec: the classifier's verdict, computed by the caller so this stays pure. */
  commandSafety: CommandClassification | null;
  /** For exec, when config rules exist: the command as permission rules read it (`CommandRuleView`). */
  commandRules?: CommandRuleView | null;
}

/** What the decision needs of the session's grants. */
export interface GrantLookup {
  /** True when earlier approve-for-session grants cover everything this call needs approval for. */
  matches(input: PermissionInput): boolean;
}

export interface PermissionSettings {
  /** Real path of the project root. */
  root: string;
  approvalPolicy: ApprovalPolicy;
  sandbox: SandboxMode;
  /** bubblewrap is usable on this machine. */
  sandboxAvailable: boolean;
  /** Network allowed inside the sandbox. */
  network: boolean;
  /** Glassbox's own home (config, sessions): writes to it are protected. */
  glassboxHome: string;
  /** Approvals remembered for the session (`SessionGrants`): only consulted, never changed, here. */
  sessionGrants: GrantLookup;
  /**
   * A check for planted git metadata could not finish in this project (src/sandbox/
   * unverified-tree.ts): until a person has looked, git outside the sandbox needs approval.
   */
  projectUnverified?: boolean;
  /**
   * Rules from `permissions` in the config files (deny, ask, allow; a project's allow rules only
   * once the user pinned them): consulted before the policy, docs/permissions.md "Permission rules".
   */
  configRules?: readonly ConfigRule[];
}

/** Which rule decided; recorded with every decision so the audit log says why. */
export type PermissionRule =
  | 'no-access'
  | 'path-outside-root'
  | 'read-inside-root'
  | 'secret-file'
  | 'protected-path'
  | 'sandbox-read-only'
  | 'workspace-write'
  | 'danger-full-access'
  | 'policy-untrusted'
  | 'known-safe'
  | 'sandboxed'
  | 'escalation'
  | 'escalation-denied'
  | 'escalation-needs-justification'
  | 'sandbox-unavailable'
  | 'project-unverified'
  | 'session-grant'
  | 'mcp-trusted'
  | 'mcp-read-only'
  | 'mcp-tool'
  | 'config-deny'
  | 'config-ask'
  | 'config-allow';

/** The configured rule a decision rests on, and where it is written. */
export interface DecidingConfigRule {
  text: string;
  list: RuleList;
  file: string;
  line: number;
}

export interface PermissionDecision {
  decision: PermissionDecisionKind;
  reason: string;
  rule: PermissionRule;
  /**
   * How the call runs if allowed, or once approved. `secretsApproved` is false unless the
   * decision itself stands on an approval (a session grant); after a person approves an `ask`,
   * the caller sets it to true for that call.
   */
  execution: ExecutionPolicy;
  /** Set when a rule from a config file decided (`config-deny`, `config-ask`, `config-allow`). */
  configRule?: DecidingConfigRule;
}
