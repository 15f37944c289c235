// A turn's hooks: which run for what, with which input, and what their answers mean together.
// For a tool call (docs/permissions.md, "Hooks and permission rules"): a call the gate denies
// runs no hook; any hook that denies, blocks or fails denies the call (a hook's deny wins over
// every allow); a hook's ask makes an allowed call ask; a hook's allow answers only the approval
// policy's own ask — never a deny, an `ask` rule from a config file, or an ask that guards the
// sandbox (an escalation, a secret or protected path), and the call still runs as the gate said
// (sandboxed, secrets masked).

import type { GateDecision, HookedCall, RunEvent, ToolHookContext, ToolHooks } from '../agent/index.js';
import { claudeCodeToolNames } from '../permissions/index.js';
import type { HookEventName, HookRanEvent } from '../protocol/index.js';
import { hookToolFields } from './claude-tool-input.js';
import { type HookDefinition, hookMatches } from './hook-config.js';
import { type HookVerdict, interpretHook } from './hook-result.js';
import { type HookProcessSettings, runHook } from './run-hook.js';

export interface HookRunnerSettings extends HookProcessSettings {
  hooks: readonly HookDefinition[];
  sessionId: string;
  /** The session's file, when the store keeps one (`transcript_path`); null otherwise. */
  transcriptPath: string | null;
}

/** The gate's asks a hook's allow may answer: those of the approval policy alone, whose call still runs as decided. */
const ANSWERABLE_ASKS: ReadonlySet<string> = new Set([
  'policy-untrusted',
  'sandboxed',
  'workspace-write',
  'danger-full-access',
  'known-safe',
  'read-inside-root',
  'mcp-tool',
  'mcp-read-only',
  'mcp-trusted',
]);

interface HookRun {
  hook: HookDefinition;
  verdict: HookVerdict;
}

export interface PromptHooksResult {
  /** Why a hook blocked the prompt; null: it goes on. */
  blocked: string | null;
  /** Text the hooks added for the model. */
  context: string[];
}

/** Why a session ended, in Claude Code's words (`SessionEnd`'s `reason`). */
export type SessionEndReason = 'clear' | 'logout' | 'prompt_input_exit' | 'other';

/** What the model was told to go on with when a `Stop` hook blocked the end of its turn. */
export interface StopHooksResult {
  /** The hooks' reasons, for the model; null: the turn ends. */
  goOn: string | null;
}

export interface HookRunner {
  readonly toolHooks: ToolHooks;
  /**
   * SessionStart (`startup` or `resume`; null: this session started earlier in this process, so
   * none), then UserPromptSubmit: may block the prompt or add context.
   */
  beforePrompt(prompt: string, source: 'startup' | 'resume' | null, context: ToolHookContext): Promise<PromptHooksResult>;
  /** Stop: the model answered without a tool call. A hook that blocks makes the turn go on with its reason. */
  onStop(answer: string, stopHookActive: boolean, context: ToolHookContext): Promise<StopHooksResult>;
  /**
   * PreCompact, before an automatic (`auto`) or a requested (`manual`) compaction: why a hook
   * blocked it, or null. The caller decides what a block can stop (docs/permissions.md).
   */
  beforeCompact(trigger: 'auto' | 'manual', instructions: string | null, context: ToolHookContext): Promise<string | null>;
  /**
   * Notification: Glassbox is waiting for a person — an approval (`permission_prompt`), or the
   * next prompt after a minute of quiet (`idle_prompt`). Nothing a hook says changes that.
   */
  notify(notificationType: NotificationType, message: string, context: ToolHookContext): Promise<void>;
  /** SessionEnd: the session is left (the face closed it); nothing a hook says changes that. */
  endSession(reason: SessionEndReason, context: ToolHookContext): Promise<void>;
  /** Whether any hook of the event is configured (a caller skips the work of offering it otherwise). */
  has(event: HookEventName): boolean;
}

/** Claude Code's Notification matchers that Glassbox sends. */
export type NotificationType = 'permission_prompt' | 'idle_prompt';

function label(hook: HookDefinition): string {
  return `${hook.event} hook \`${hook.command}\` (${hook.file}, ${hook.entry})`;
}

export function createHookRunner(settings: HookRunnerSettings): HookRunner {
  const common = (event: HookEventName) => ({
    session_id: settings.sessionId,
    transcript_path: settings.transcriptPath,
    cwd: settings.root,
    hook_event_name: event,
  });

  /** Runs the event's matching hooks in config order; a PreToolUse run stops at the first that stops the call. */
  async function run(
    event: HookEventName,
    names: readonly string[] | null,
    fields: Record<string, unknown>,
    context: ToolHookContext,
    call?: HookedCall,
  ): Promise<HookRun[]> {
    const runs: HookRun[] = [];
    for (const hook of settings.hooks) {
      if (hook.event !== event || (names !== null && !hookMatches(hook, names))) continue;
      const input = JSON.stringify({ ...common(event), ...fields });
      const result = await runHook(hook, input, settings, context.signal);
      const verdict = interpretHook(event, result);
      const ran: HookRanEvent = {
        type: 'hook_ran',
        event,
        source: hook.source,
        file: hook.file,
        entry: hook.entry,
        command: hook.command,
        ...(call ? { callId: call.callId, toolName: call.tool.name } : {}),
        input,
        stdout: result.stdout,
        stderr: result.stderr,
        exitCode: result.exitCode,
        timedOut: result.timedOut,
        durationMs: Math.round(result.durationMs),
        sandboxed: result.sandboxed,
        outcome: verdict.outcome,
        reason: verdict.reason,
      };
      context.emit(ran as RunEvent);
      runs.push({ hook, verdict });
      if (event === 'PreToolUse' && (verdict.outcome === 'deny' || verdict.outcome === 'failed')) break;
    }
    return runs;
  }

  const toolNames = (call: HookedCall): string[] => [call.tool.name, ...claudeCodeToolNames(call.tool.name, call.access.kind)];

  const toolHooks: ToolHooks = {
    async beforeCall(call, decision, context) {
      const runs = await run('PreToolUse', toolNames(call), hookToolFields(call.tool.name, call.args, settings.root), context, call);
      return combine(decision, runs);
    },
    async afterCall(call, result, context) {
      const runs = await run(
        'PostToolUse',
        toolNames(call),
        { ...hookToolFields(call.tool.name, call.args, settings.root), tool_response: { output: result.output, is_error: result.isError } },
        context,
        call,
      );
      // The call has run; a block (exit 2, decision "block") or a failure is told to the model.
      const said = runs
        .filter((ran) => ran.verdict.outcome === 'block' || ran.verdict.outcome === 'failed')
        .map((ran) => `[${label(ran.hook)} ${ran.verdict.outcome === 'block' ? 'says' : 'failed'}: ${ran.verdict.reason ?? ''}]`);
      return said.length === 0 ? null : said.join('\n');
    },
  };

  const stops = (runs: readonly HookRun[]): HookRun[] =>
    runs.filter((ran) => ran.verdict.outcome === 'block' || ran.verdict.outcome === 'deny');

  return {
    toolHooks,
    has: (event) => settings.hooks.some((hook) => hook.event === event),
    async beforePrompt(prompt, source, context) {
      const added: string[] = [];
      if (source !== null)
        for (const ran of await run('SessionStart', [source], { source }, context))
          if (ran.verdict.context) added.push(ran.verdict.context);
      // Claude Code's matchers do not apply to UserPromptSubmit: every one runs.
      for (const ran of await run('UserPromptSubmit', null, { prompt }, context)) {
        if (ran.verdict.outcome === 'block' || ran.verdict.outcome === 'deny' || ran.verdict.outcome === 'failed') {
          return { blocked: `${label(ran.hook)} blocked the prompt: ${ran.verdict.reason ?? ''}`, context: added };
        }
        if (ran.verdict.context) added.push(ran.verdict.context);
      }
      return { blocked: null, context: added };
    },
    async onStop(answer, stopHookActive, context) {
      // Claude Code's matchers do not apply to Stop. A hook that fails does not keep the turn
      // going (that could never end); its run shows as failed.
      const runs = await run('Stop', null, { stop_hook_active: stopHookActive, last_assistant_message: answer }, context);
      const blocking = stops(runs);
      if (blocking.length === 0) return { goOn: null };
      return { goOn: blocking.map((ran) => ran.verdict.reason ?? `${label(ran.hook)} blocked the end of the turn`).join('\n\n') };
    },
    async beforeCompact(trigger, instructions, context) {
      const runs = await run('PreCompact', [trigger], { trigger, custom_instructions: instructions ?? '' }, context);
      const blocking = stops(runs);
      return blocking.length === 0 ? null : blocking.map((ran) => `${label(ran.hook)}: ${ran.verdict.reason ?? 'blocked'}`).join('; ');
    },
    async notify(notificationType, message, context) {
      await run('Notification', [notificationType], { message, notification_type: notificationType }, context);
    },
    async endSession(reason, context) {
      await run('SessionEnd', [reason], { reason }, context);
    },
  };
}

/** The decision that stands after the gate's and the hooks' (see the file's comment). */
export function combine(decision: GateDecision, runs: readonly HookRun[]): GateDecision {
  if (decision.decision === 'deny') return decision;
  const stop = runs.find((ran) => ran.verdict.outcome === 'deny' || ran.verdict.outcome === 'failed');
  if (stop !== undefined) {
    const why =
      stop.verdict.outcome === 'failed'
        ? `failed, so the call is blocked (hooks fail closed): ${stop.verdict.reason}`
        : `denied it: ${stop.verdict.reason ?? ''}`;
    return { ...decision, decision: 'deny', rule: 'hook-deny', reason: `${label(stop.hook)} ${why}`, configRule: undefined };
  }
  const ask = runs.find((ran) => ran.verdict.outcome === 'ask');
  if (ask !== undefined) {
    const reason = `${label(ask.hook)} asks for approval${ask.verdict.reason ? `: ${ask.verdict.reason}` : ''}`;
    return decision.decision === 'ask' ? decision : { ...decision, decision: 'ask', rule: 'hook-ask', reason, configRule: undefined };
  }
  const allow = runs.find((ran) => ran.verdict.outcome === 'allow');
  if (allow !== undefined && decision.decision === 'ask' && ANSWERABLE_ASKS.has(decision.rule)) {
    const reason = `${label(allow.hook)} allowed it${allow.verdict.reason ? `: ${allow.verdict.reason}` : ''}`;
    return { ...decision, decision: 'allow', rule: 'hook-allow', reason, configRule: undefined };
  }
  return decision;
}
