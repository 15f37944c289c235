// A turn's hooks (hooks/), wired where the loop offers seams: PreToolUse and PostToolUse through
// the tool runtime's `ToolHooks`, SessionStart and UserPromptSubmit in the loop's `beforeTurn`
// (after the prompt is committed, before the first model call), so the loop itself stays as it
// was. The hooks module is loaded only when a config file mentions hooks.

import { homedir } from 'node:os';
import { join } from 'node:path';
import { type ApprovalBroker, type CompactionHooks, type LoopState, type RunEvent, userMessage } from '../agent/index.js';
import type { HookDefinition, HookRunner } from '../hooks/index.js';
import { detectSandbox, type SandboxDetector, type SandboxSettings } from '../sandbox/index.js';
import { JsonlSessionStore, type SessionStore } from '../sessions/index.js';
import type { SandboxMode } from '../workspace/index.js';
import { readProjectFile } from '../workspace/index.js';
import type { StartupWarning } from './run-extensions.js';

export interface TurnHooks {
  hooks: readonly HookDefinition[];
  warnings: StartupWarning[];
  module: typeof import('../hooks/index.js') | null;
}

/** Both config files' hooks; a malformed hook rejects (exit 2) before any session is opened. */
export async function readTurnHooks(home: string, root: string): Promise<TurnHooks> {
  const texts = await Promise.all(
    [readProjectFile(join(home, 'config.json'), { root: null }), readProjectFile(join(root, '.glassbox', 'config.json'), { root })].map(
      (read) =>
        read.then(
          (text) => text ?? '',
          () => '"hooks"',
        ),
    ),
  );
  if (!texts.some((text) => text.includes('"hooks"'))) return { hooks: [], warnings: [], module: null };
  const module = await import('../hooks/index.js');
  const loaded = await module.readHooks(home, root);
  return { hooks: loaded.hooks, warnings: [...loaded.warnings], module };
}

/** What of a runner the hooks need (a `Runner` is one; named here so this file does not import it back). */
export interface HookHost {
  root: string;
  store: SessionStore;
  settings: { home: string; detectSandbox?: SandboxDetector };
}

/**
 * The hook runner for one session of `runner`: its project, home, sandbox probe and the session's
 * file (`transcript_path`, when the store keeps one). `sandbox` is the turn's mode; outside a turn
 * (SessionEnd, a manual PreCompact) callers pass `read-only`, the tightest.
 */
export function toolHooksFor(turnHooks: TurnHooks, runner: HookHost, sessionId: string, sandbox: SandboxMode): HookRunner | null {
  if (turnHooks.module === null || turnHooks.hooks.length === 0) return null;
  const { settings, store } = runner;
  const detect = settings.detectSandbox ?? detectSandbox;
  return turnHooks.module.createHookRunner({
    hooks: turnHooks.hooks,
    root: runner.root,
    env: process.env,
    sessionId,
    transcriptPath: store instanceof JsonlSessionStore ? store.sessionPath(sessionId) : null,
    // A project's hooks run in the sandbox whatever the turn's mode: writable only when the turn's
    // tools may write, never with the network, secrets masked.
    sandbox: async (): Promise<SandboxSettings | { unavailable: string }> => {
      const availability = await detect();
      if (!availability.available || availability.path === null) return { unavailable: availability.reason };
      return {
        bwrapPath: availability.path,
        mode: sandbox === 'read-only' ? 'read-only' : 'workspace-write',
        network: false,
        secretsApproved: false,
        homeDir: homedir(),
        glassboxHome: settings.home,
      };
    },
  });
}

/** A prompt a UserPromptSubmit hook blocked: the turn fails with this code, before any model call. */
class PromptBlockedError extends Error {
  readonly code = 'PROMPT_BLOCKED';
}

/** Claude Code ends a turn after this many `Stop` blocks in a row, and so do we. */
export const MAX_STOP_CONTINUATIONS = 8;

/**
 * Sessions whose SessionStart hooks have run in this process, by store and session id: a face that
 * opens another runner for the same session (a /model switch) does not start it again.
 */
const startedSessions = new Set<string>();

export interface PromptHookTurn {
  prompt: string;
  /** `${store location}\0${session id}`: the key of "this session has started in this process". */
  sessionKey: string;
  resumed: boolean;
  /**
   * A turn taken over from a worker that died (`continueRun`): its prompt passed the hooks in the
   * first attempt, so neither SessionStart nor UserPromptSubmit runs again.
   */
  continued: boolean;
}

/**
 * The loop's hooks with the user's hooks added: SessionStart (the session's first turn in this
 * process) and UserPromptSubmit first in `beforeTurn`, Stop in `afterAnswer`; the compaction hooks
 * as they were. Unchanged without hooks.
 */
export function promptHooks(
  runner: HookRunner | null,
  turn: PromptHookTurn,
  compaction: CompactionHooks | undefined,
): CompactionHooks | undefined {
  if (runner === null) return compaction;
  let continued = 0;
  return {
    ...compaction,
    async beforeTurn(state) {
      if (!turn.continued) {
        const source = startedSessions.has(turn.sessionKey) ? null : turn.resumed ? 'resume' : 'startup';
        const result = await runner.beforePrompt(turn.prompt, source, { signal: state.signal, emit: state.emit });
        if (result.blocked !== null) throw new PromptBlockedError(result.blocked);
        // Claude Code adds a hook's stdout to the context; here it follows the prompt as a message of its own.
        if (result.context.length > 0) await state.commit([userMessage(`Context from hooks:\n${result.context.join('\n\n')}`)]);
        // Only now: a blocked first prompt leaves no context behind, so the next turn starts the session again.
        startedSessions.add(turn.sessionKey);
      }
      await compaction?.beforeTurn?.(state);
    },
    ...(runner.has('Stop')
      ? {
          async afterAnswer(state, answer) {
            const { goOn } = await runner.onStop(answer, continued > 0, { signal: state.signal, emit: state.emit });
            if (goOn === null) return null;
            if (continued >= MAX_STOP_CONTINUATIONS) {
              state.emit({
                type: 'warning',
                code: 'STOP_HOOK_LIMIT',
                message: `Stop hooks blocked the end of this turn ${continued + 1} times in a row; it ends here (at most ${MAX_STOP_CONTINUATIONS} continuations a turn). Their last reason: ${goOn}`,
              });
              return null;
            }
            continued += 1;
            return `Stop hook feedback (the turn goes on):\n${goOn}`;
          },
        }
      : {}),
  };
}

/** Notification hooks still running for a turn: `settle` stops and awaits them when the turn ends. */
export interface NotifyingApprovals {
  broker: ApprovalBroker;
  settle(): Promise<void>;
}

/**
 * An approval broker that also runs the Notification hooks (`permission_prompt`) while a person
 * is asked. A request answered at once (no terminal to ask: denied without anyone waiting) notifies
 * nobody.
 */
export function notifyingApprovals(
  runner: HookRunner | null,
  approvals: ApprovalBroker,
  emit: (event: RunEvent) => void,
): NotifyingApprovals {
  if (runner === null || !runner.has('Notification')) return { broker: approvals, settle: async () => {} };
  const running = new Set<Promise<void>>();
  const stop = new AbortController();
  return {
    broker: {
      async request(request, signal) {
        let settled = false;
        const answer = approvals.request(request, signal).finally(() => {
          settled = true;
        });
        // A broker that answers without asking does so before the next turn of the event loop.
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (settled) return answer;
        // Alongside the question, never in its way: the answer does not wait for the hook.
        const message = `Glassbox needs your permission to use ${request.toolName}: ${request.summary}`;
        const notified = runner
          .notify('permission_prompt', message, { signal: stop.signal, emit })
          .catch(() => {})
          .finally(() => running.delete(notified));
        running.add(notified);
        return answer;
      },
    },
    async settle() {
      // A hook still running when the turn ends is stopped, so its run is recorded in the turn.
      if (running.size > 0) stop.abort();
      await Promise.all([...running]);
    },
  };
}

/** PreCompact for the automatic compactions of a turn (`CompactionDeps.beforeCompact`). */
export function preCompactHook(
  runner: HookRunner | null,
): ((state: LoopState, trigger: 'auto' | 'overflow') => Promise<string | null>) | undefined {
  if (runner === null || !runner.has('PreCompact')) return undefined;
  return (state) => runner.beforeCompact('auto', null, { signal: state.signal, emit: state.emit });
}
