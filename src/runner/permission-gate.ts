// Adapts the pure permission rules (`permissions/`) to the loop's `PermissionGate` interface. The
// bash parser behind the command classifier loads on the first shell call, not at start-up.

import { realLocation } from '../workspace/index.js';
import { readUnverifiedTree } from '../sandbox/index.js';
import type { AnyTool, GateDecision, GateRequest, PermissionGate, ToolAccess } from '../agent/index.js';
import type { ExecutionPolicy, SandboxMode } from '../workspace/index.js';
import {
  SessionGrants,
  configRulesHiding,
  decidePermission,
  effectivePermissionInput,
  isToolVisible,
  loadCommandClassifier,
  type ApprovalPolicy,
  type CommandClassification,
  type CommandRuleView,
  type ConfigRule,
  type PermissionSettings,
} from '../permissions/index.js';

export interface GateSettings {
  root: string;
  home: string;
  approvalPolicy: ApprovalPolicy;
  sandbox: SandboxMode;
  /** Probed on the first shell call only: it runs bwrap once. */
  detectSandbox: () => Promise<boolean>;
  network: boolean;
  /** Rules from `permissions` in the config files that apply to this project (runner/permission-rules-files.ts). */
  configRules?: readonly ConfigRule[];
  /**
   * The session's approve-for-session grants. A runner keeps one set per session and hands it to
   * each turn's gate, so `[a]` lasts the session, not only the turn it was given in.
   */
  grants?: SessionGrants;
}

export function createPermissionGate(settings: GateSettings): PermissionGate {
  const grants = settings.grants ?? new SessionGrants();
  const permissionSettings: PermissionSettings = {
    root: settings.root,
    approvalPolicy: settings.approvalPolicy,
    sandbox: settings.sandbox,
    // Only shell calls depend on it; it is filled in before the first exec decision.
    sandboxAvailable: false,
    network: settings.network,
    glassboxHome: settings.home,
    sessionGrants: grants,
    configRules: settings.configRules ?? [],
  };
  const readsCommands = (settings.configRules ?? []).some((rule) => rule.target.kind === 'command' && rule.target.words !== null);
  const ruleViews = new WeakMap<GateRequest, CommandRuleView>();
  // Remembered per request so an approve-for-session grant is keyed on the same parse the
  // decision used (command prefixes like `npm test`), not on the raw command string.
  const classifications = new WeakMap<GateRequest, CommandClassification>();
  const classify = async (request: GateRequest): Promise<CommandClassification | null> => {
    if (request.access.kind !== 'exec') return null;
    const classifier = await loadCommandClassifier();
    const classification = classifier.classify(request.access.command, { root: settings.root, cwd: request.access.workdir });
    classifications.set(request, classification);
    if (readsCommands) ruleViews.set(request, classifier.ruleView(request.access.command));
    return classification;
  };
  // The access a decision was made on, with symlinks followed; reused for the session grant.
  const checkedAccess = new WeakMap<GateRequest, ToolAccess>();
  // What an approve-for-session grant is keyed on: the decision's own parse and resolved paths.
  const grantInput = (request: GateRequest) =>
    effectivePermissionInput(
      {
        toolName: request.tool.name,
        access: checkedAccess.get(request) ?? request.access,
        commandSafety: classifications.get(request) ?? null,
      },
      permissionSettings,
    );
  return {
    async decide(request: GateRequest): Promise<GateDecision> {
      const commandSafety = await classify(request);
      if (request.access.kind === 'exec') {
        const [available, unverified] = await Promise.all([settings.detectSandbox(), readUnverifiedTree(settings.home, settings.root)]);
        permissionSettings.sandboxAvailable = available;
        permissionSettings.projectUnverified = unverified !== null;
      }
      const access = await withRealPaths(request.access);
      checkedAccess.set(request, access);
      const commandRules = ruleViews.get(request) ?? null;
      const decision = decidePermission({ toolName: request.tool.name, access, commandSafety, commandRules }, permissionSettings);
      // A directory search reads files the decision never saw: those a deny or ask rule covers stay out of it.
      const hiddenPath =
        access.kind === 'read' ? configRulesHiding(permissionSettings.configRules ?? [], request.tool.name, settings.root) : null;
      return hiddenPath === null ? decision : { ...decision, execution: { ...decision.execution, hiddenPath } };
    },
    grantForSession(request: GateRequest): void {
      grants.add(grantInput(request));
    },
    describeSessionGrant(request: GateRequest): string[] {
      return grants.describe(grantInput(request));
    },
    isVisible(tool: AnyTool): boolean {
      return isToolVisible(tool, permissionSettings);
    },
    // A person approved this very call, having seen what it touches: secret files it names may be
    // read (the sandbox stops masking them), as docs/permissions.md describes.
    approvedExecution(decision: GateDecision): ExecutionPolicy {
      return { ...(decision.execution as ExecutionPolicy), secretsApproved: true };
    },
  };
}

/**
 * Tools follow symlinks, so rules must see where a path really leads: `notes.txt -> .env` is a
 * secret read and `hooks -> .git/hooks` a protected write. Each path is checked both as written
 * and as resolved (through its nearest existing ancestor for paths not created yet).
 */
async function withRealPaths(access: ToolAccess): Promise<ToolAccess> {
  if (access.kind !== 'read' && access.kind !== 'write') return access;
  const paths = new Set(access.paths);
  for (const path of access.paths) {
    // A path the tool itself could not resolve (e.g. ELOOP) is judged as written; the tool refuses it.
    const real = await realLocation(path).catch(() => null);
    if (real) paths.add(real.absolute);
  }
  return { ...access, paths: [...paths] };
}
