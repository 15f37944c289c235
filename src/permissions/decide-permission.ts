// The permission decision: a pure function of what a call will touch (ToolAccess), the command
// classifier's verdict and the session's settings. docs/permissions.md lays the rules out as a
// matrix; test/permissions/decide-permission.test.ts checks it cell by cell.

import { isAbsolute, relative } from 'node:path';
import type { ToolAccess } from '../agent/index.js';
import type { ExecutionPolicy } from '../workspace/index.js';
import { isInside } from '../workspace/index.js';
import type { ConfigRule } from './config-rule.js';
import { findConfigRule } from './match-config-rules.js';
import type { ApprovalPolicy, PermissionDecision, PermissionInput, PermissionRule, PermissionSettings } from './permission-types.js';
import { describeProtectedWrite, protectedWriteReason } from './protected-write-reason.js';
import { isSecretPath } from '../workspace/index.js';

export const SANDBOX_UNAVAILABLE_HINT = 'install bubblewrap (apt-get install bubblewrap) or run with --sandbox danger-full-access';

/** Tools known to run shell commands, for callers that cannot say so themselves. */
export const COMMAND_TOOL_NAMES: ReadonlySet<string> = new Set(['shell']);

type ExecAccess = Extract<ToolAccess, { kind: 'exec' }>;

/** How a known-safe command runs under danger-full-access + untrusted: it needs nothing more. */
const SANDBOXED_READ_ONLY: ExecutionPolicy = Object.freeze({ mode: 'read-only', sandboxed: true, network: false, secretsApproved: false });

function execution(settings: PermissionSettings, sandboxed: boolean): ExecutionPolicy {
  // Outside the sandbox nothing restricts the network, so say so rather than pretend.
  return { mode: settings.sandbox, sandboxed, network: sandboxed ? settings.network : true, secretsApproved: false };
}

function decision(kind: PermissionDecision['decision'], rule: PermissionRule, reason: string, policy: ExecutionPolicy): PermissionDecision {
  return { decision: kind, rule, reason, execution: policy };
}

/** Ask, unless the policy is `never`: then deny with the reason the model gets instead. */
function approvalNeeded(
  policy: ApprovalPolicy,
  rule: PermissionRule,
  askReason: string,
  denyReason: string,
  how: ExecutionPolicy,
): PermissionDecision {
  return policy === 'never' ? decision('deny', rule, denyReason, how) : decision('ask', rule, askReason, how);
}

function requireAbsolute(path: string, what: string): void {
  if (!isAbsolute(path)) throw new TypeError(`decidePermission: ${what} must be an absolute path, got ${JSON.stringify(path)}`);
}

function outsideRoot(paths: readonly string[], settings: PermissionSettings, how: ExecutionPolicy): PermissionDecision | null {
  const outside = paths.find((path) => !isInside(settings.root, path));
  if (outside === undefined) return null;
  return decision(
    'deny',
    'path-outside-root',
    `PATH_OUTSIDE_ROOT: ${outside} is outside the project root ${settings.root}. Use a path inside the root.`,
    how,
  );
}

function decideRead(paths: readonly string[], settings: PermissionSettings): PermissionDecision {
  const how = execution(settings, false);
  const outside = outsideRoot(paths, settings, how);
  if (outside !== null) return outside;
  const secrets = paths.filter((path) => isSecretPath(relative(settings.root, path)));
  if (secrets.length > 0) {
    const list = secrets.join(', ');
    return approvalNeeded(
      settings.approvalPolicy,
      'secret-file',
      `${list} looks like a secret file; reading it needs approval.`,
      `${list} looks like a secret file, and reading it needs approval, which the 'never' policy does not allow. Work without its contents.`,
      how,
    );
  }
  return decision('allow', 'read-inside-root', 'reads inside the project root', how);
}

function decideWrite(paths: readonly string[], settings: PermissionSettings): PermissionDecision {
  const how = execution(settings, false);
  const outside = outsideRoot(paths, settings, how);
  if (outside !== null) return outside;
  const { approvalPolicy: policy, sandbox } = settings;
  for (const path of paths) {
    const protectedReason = protectedWriteReason(path, settings.root, settings.glassboxHome);
    if (protectedReason === null) continue;
    const what = `${path} ${describeProtectedWrite(protectedReason)}`;
    return approvalNeeded(
      policy,
      'protected-path',
      `${what}; writing it needs approval.`,
      `${what}; writing it needs approval, which the 'never' policy does not allow. Leave it unchanged.`,
      how,
    );
  }
  if (sandbox === 'read-only') {
    return approvalNeeded(
      policy,
      'sandbox-read-only',
      'the sandbox is read-only; writing files needs approval.',
      "the sandbox is read-only and the 'never' policy allows no approvals, so files cannot be written. Describe the change instead of making it.",
      how,
    );
  }
  if (policy === 'untrusted') return decision('ask', 'policy-untrusted', "the 'untrusted' policy asks before every write.", how);
  return sandbox === 'danger-full-access'
    ? decision('allow', 'danger-full-access', 'writes are allowed in danger-full-access mode', how)
    : decision('allow', 'workspace-write', 'writes inside the project root are allowed in workspace-write mode', how);
}

/**
 * A command that reads a secret file by name needs approval where nothing masks it, as
 * `read_file` on it does: the sandbox masks the file itself (so `cat .env` there reads nothing),
 * but not the repository's copy (`git show HEAD:.env`), and without a sandbox nothing is masked.
 * Approving lets the call see it (`secretsApproved`).
 */
function decideExec(access: ExecAccess, input: PermissionInput, settings: PermissionSettings): PermissionDecision {
  // An allow rule stands where a person's approval would; the checks below still apply after it.
  const result = allowedByRule(decideExecWithoutSecrets(access, input, settings), input, settings);
  // Where planted git metadata may have been missed, a git on the host could run what a command
  // planted: a command that runs git there, or one whose programs cannot be read off it, asks.
  const commands = input.commandSafety?.commands ?? [];
  const literal = input.commandSafety !== null && (input.commandSafety.safe || input.commandSafety.unsafePrefixes !== null);
  if (settings.projectUnverified && result.decision === 'allow' && !result.execution.sandboxed && (!literal || commands.includes('git'))) {
    return approvalNeeded(
      settings.approvalPolicy,
      'project-unverified',
      'the project could not be fully checked for planted git metadata, and this command may run git outside the sandbox; it needs approval until a person has looked.',
      "the project could not be fully checked for planted git metadata, so git outside the sandbox needs approval, which the 'never' policy does not allow. Run it inside the sandbox, or ask the user to check the project.",
      result.execution,
    );
  }
  const secrets = (input.commandSafety?.secretReads ?? []).filter((read) => read.from === 'repository' || !result.execution.sandboxed);
  if (result.decision !== 'allow' || secrets.length === 0) return result;
  const list = secrets.map(({ path }) => `\`${path}\``).join(', ');
  return approvalNeeded(
    settings.approvalPolicy,
    'secret-file',
    `the command reads ${list}, which looks like a secret file; reading it needs approval.`,
    `the command reads ${list}, which looks like a secret file, and reading it needs approval, which the 'never' policy does not allow. Work without its contents.`,
    result.execution,
  );
}

function decideExecWithoutSecrets(access: ExecAccess, input: PermissionInput, settings: PermissionSettings): PermissionDecision {
  const unsandboxed = execution(settings, false);
  const outside = outsideRoot([access.workdir], settings, unsandboxed);
  if (outside !== null) return outside;
  const { approvalPolicy: policy } = settings;
  const safe = input.commandSafety?.safe === true;
  const why = input.commandSafety?.reason ?? 'the command was not classified';
  const justified = access.justification !== null && access.justification.trim() !== '';
  const missingJustification = decision(
    'deny',
    'escalation-needs-justification',
    'escalate: true needs a justification saying why the command must run outside the sandbox. Retry with one, or without escalate.',
    unsandboxed,
  );

  if (settings.sandbox === 'danger-full-access') {
    // Known safe skips the approval, never the sandbox: where 'untrusted' would otherwise ask, a
    // known-safe command runs without asking only inside a read-only, offline sandbox (or, with no
    // sandbox on this machine, only if it is on the short list judged for running without one).
    if (safe && policy === 'untrusted' && settings.sandboxAvailable) {
      return decision('allow', 'known-safe', `${why}; runs in a read-only sandbox`, SANDBOXED_READ_ONLY);
    }
    if (safe) return decision('allow', 'known-safe', why, unsandboxed);
    if (policy === 'untrusted')
      return decision('ask', 'policy-untrusted', `${why}; the 'untrusted' policy asks before it runs.`, unsandboxed);
    return decision('allow', 'danger-full-access', `runs without a sandbox in danger-full-access mode (${why})`, unsandboxed);
  }

  if (!settings.sandboxAvailable) {
    // The fail-closed floor: with no sandbox, only the short list of literal read-only commands
    // (the classifier's verdict for running outside the sandbox) runs without a person.
    if (safe) return decision('allow', 'known-safe', `${why}; runs unsandboxed because the sandbox is unavailable`, unsandboxed);
    if (policy === 'untrusted') {
      return decision('ask', 'sandbox-unavailable', `${why}; the sandbox is unavailable, so if approved it runs unsandboxed.`, unsandboxed);
    }
    if (policy === 'on-request' && access.escalate) {
      if (!justified) return missingJustification;
      return decision('ask', 'escalation', `asks to run outside the sandbox: ${access.justification}`, unsandboxed);
    }
    return decision(
      'deny',
      'sandbox-unavailable',
      `${why}. The OS sandbox is unavailable, so only known-safe read-only commands (ls, cat, grep, ...) can run. To run others: ${SANDBOX_UNAVAILABLE_HINT}.`,
      unsandboxed,
    );
  }

  const sandboxed = execution(settings, true);
  if (access.escalate) {
    if (!justified) return missingJustification;
    if (policy === 'never') {
      return decision(
        'deny',
        'escalation-denied',
        "running outside the sandbox needs approval, which the 'never' policy does not allow. Run the command without escalate (inside the sandbox) or find another way.",
        unsandboxed,
      );
    }
    return decision('ask', 'escalation', `asks to run outside the sandbox: ${access.justification}`, unsandboxed);
  }
  if (safe) return decision('allow', 'known-safe', why, sandboxed);
  if (policy === 'untrusted') return decision('ask', 'policy-untrusted', `${why}; the 'untrusted' policy asks before it runs.`, sandboxed);
  return decision('allow', 'sandboxed', `runs inside the ${settings.sandbox} sandbox (${why})`, sandboxed);
}

type McpAccess = Extract<ToolAccess, { kind: 'mcp' }>;

/**
 * An MCP tool can do anything its server can, and the server runs outside our sandbox: it needs a
 * person unless the user's own config trusts it, or the server marks it read-only and the policy
 * lets read-only actions run freely (not `untrusted`). The annotation is the server's word: only a
 * server the user configured is asked for it.
 */
function decideMcp(access: McpAccess, settings: PermissionSettings): PermissionDecision {
  const how = execution(settings, false);
  const what = `the MCP tool "${access.tool}" of server "${access.server}"`;
  if (access.trusted) return decision('allow', 'mcp-trusted', `${what} is trusted in the user's config`, how);
  const policy = settings.approvalPolicy;
  if (access.readOnly && policy !== 'untrusted') return decision('allow', 'mcp-read-only', `${what} is annotated read-only`, how);
  if (policy === 'untrusted')
    return decision('ask', 'policy-untrusted', `${what} runs outside the sandbox; the 'untrusted' policy asks before it runs.`, how);
  return approvalNeeded(
    policy,
    'mcp-tool',
    `${what} runs outside the sandbox and may change things; calling it needs approval.`,
    `${what} may change things and needs approval, which the 'never' policy does not allow. Do without it, or ask the user to trust it in their config.`,
    how,
  );
}

function decideWithoutGrants(input: PermissionInput, settings: PermissionSettings): PermissionDecision {
  const { access } = input;
  switch (access.kind) {
    case 'none':
      return decision('allow', 'no-access', 'touches no files and runs no commands', execution(settings, false));
    case 'read':
      return allowedByRule(decideRead(access.paths, settings), input, settings);
    case 'write':
      return allowedByRule(decideWrite(access.paths, settings), input, settings);
    case 'exec':
      return decideExec(access, input, settings);
    case 'mcp':
      return allowedByRule(decideMcp(access, settings), input, settings);
  }
}

/**
 * What an allow rule may stand in for: the policy's own reasons to ask (or, under 'never', to
 * deny for want of an approval). Not a protected path, a secret file, an unverified project, an
 * escalation out of the sandbox or a read-only sandbox: those still need a person, whatever the
 * files say, so a broad rule (`Edit(**)`) cannot reach `.git/hooks` or `.env`.
 */
const ALLOW_RULE_COVERS: ReadonlySet<PermissionRule> = new Set(['policy-untrusted', 'sandbox-unavailable', 'mcp-tool']);

function byRule(result: PermissionDecision, rule: ConfigRule, kind: PermissionDecision['decision'], reason: string): PermissionDecision {
  return {
    ...result,
    decision: kind,
    rule: `config-${rule.list}`,
    reason,
    configRule: { text: rule.text, list: rule.list, file: rule.file, line: rule.line },
  };
}

function where(rule: ConfigRule): string {
  return `${rule.text} (${rule.file}:${rule.line})`;
}

function allowedByRule(result: PermissionDecision, input: PermissionInput, settings: PermissionSettings): PermissionDecision {
  const rules = settings.configRules;
  if (rules === undefined || rules.length === 0 || result.decision === 'allow' || !ALLOW_RULE_COVERS.has(result.rule)) return result;
  const rule = findConfigRule(rules, 'allow', input, settings.root);
  return rule === null ? result : byRule(result, rule, 'allow', `allowed by the rule ${where(rule)}; without it: ${result.reason}`);
}

/** Deny rules win over everything; ask rules over everything but a denial. */
function constrainedByRules(result: PermissionDecision, input: PermissionInput, settings: PermissionSettings): PermissionDecision {
  const rules = settings.configRules;
  if (rules === undefined || rules.length === 0) return result;
  const deny = findConfigRule(rules, 'deny', input, settings.root);
  if (deny !== null) {
    return byRule(
      result,
      deny,
      'deny',
      `denied by the rule ${where(deny)} in the permission settings. Do not retry it; choose another approach or ask the user.`,
    );
  }
  if (result.decision === 'deny') return result;
  const ask = findConfigRule(rules, 'ask', input, settings.root);
  if (ask === null) return result;
  if (settings.approvalPolicy === 'never') {
    return byRule(
      result,
      ask,
      'deny',
      `the rule ${where(ask)} asks before this runs, and the 'never' policy allows no approvals. Find another way.`,
    );
  }
  return byRule(result, ask, 'ask', `the rule ${where(ask)} asks before this runs.`);
}

/**
 * The input as the decision sees it: a command that would run outside the sandbox (no sandbox,
 * danger-full-access, or an escalation) is judged by the classifier's verdict for that case,
 * which is stricter where a command is known safe only because the sandbox contains it (git).
 * Session grants are keyed on the same verdict, so callers recording a grant use this too.
 */
export function effectivePermissionInput(input: PermissionInput, settings: PermissionSettings): PermissionInput {
  const { access, commandSafety } = input;
  if (access.kind !== 'exec' || commandSafety?.outsideSandbox === undefined) return input;
  // danger-full-access + untrusted runs known-safe commands in a sandbox when there is one.
  const fullAccess = settings.sandbox === 'danger-full-access' && !(settings.approvalPolicy === 'untrusted' && settings.sandboxAvailable);
  const unsandboxed = fullAccess || !settings.sandboxAvailable || access.escalate;
  return unsandboxed ? { ...input, commandSafety: commandSafety.outsideSandbox } : input;
}

export function decidePermission(original: PermissionInput, settings: PermissionSettings): PermissionDecision {
  requireAbsolute(settings.root, 'settings.root');
  requireAbsolute(settings.glassboxHome, 'settings.glassboxHome');
  const { access } = original;
  if (access.kind === 'read' || access.kind === 'write') for (const path of access.paths) requireAbsolute(path, `${access.kind} path`);
  if (access.kind === 'exec') requireAbsolute(access.workdir, 'exec workdir');
  const input = effectivePermissionInput(original, settings);
  const result = constrainedByRules(decideWithoutGrants(input, settings), input, settings);
  // A grant only stands in for a person's approval: it never overrides a denial, nor an ask rule
  // (which asks every time).
  if (result.decision === 'ask' && result.rule !== 'config-ask' && settings.sessionGrants.matches(input)) {
    return {
      decision: 'allow',
      rule: 'session-grant',
      reason: `approved for this session earlier (${result.reason})`,
      execution: { ...result.execution, secretsApproved: true },
    };
  }
  return result;
}

export interface ToolVisibilityInfo {
  name: string;
  readOnly: boolean;
  /** The tool runs shell commands (its calls are exec access). Defaults to a lookup by name. */
  runsCommands?: boolean;
  /** The access every call declares, when it does not depend on the arguments (MCP tools). */
  fixedAccess?: ToolAccess;
}

/**
 * Hide a tool when every call to it would be denied, so the model does not waste turns on it:
 * file-writing tools under the read-only sandbox with the 'never' policy, and MCP tools that
 * would ask (not trusted, not read-only) under 'never'. Shell tools stay, since commands still
 * run inside the sandbox.
 */
export function isToolVisible(tool: ToolVisibilityInfo, settings: Pick<PermissionSettings, 'sandbox' | 'approvalPolicy'>): boolean {
  if (tool.readOnly) return true;
  const fixed = tool.fixedAccess;
  // An MCP tool is denied outright only under 'never', and only when nobody trusted it.
  if (fixed?.kind === 'mcp') return fixed.trusted || fixed.readOnly || settings.approvalPolicy !== 'never';
  if (tool.runsCommands ?? COMMAND_TOOL_NAMES.has(tool.name)) return true;
  return !(settings.sandbox === 'read-only' && settings.approvalPolicy === 'never');
}
