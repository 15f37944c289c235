// A turn's hooks (hooks/), wired where the loop offers seams: PreToolUse and PostToolUse through
// the tool runtime's `ToolHooks`, SessionStart and UserPromptSubmit in the loop's `beforeTurn`
// (after the prompt is committed, before the first model call), so the loop itself stays as it
// was. The hooks module is loaded only when a config file mentions hooks.

import { homedir } from 'node:os';
import { join } from 'node:path';
import { type CompactionHooks, userMessage } from '../agent/index.js';
import type { HookDefinition, HookRunner } from '../hooks/index.js';
import type { SandboxDetector, SandboxSettings } from '../sandbox/index.js';
import type { SandboxMode } from '../workspace/index.js';
import { readProjectFile } from '../workspace/index.js';
import type { StartupWarning } from './run-extensions.js';

export interface TurnHooks {
  hooks: readonly HookDefinition[];
  warnings: StartupWarning[];
  module: typeof import('../hooks/index.js') | null;
}

/** Events that are read and checked but not run yet (docs/permissions.md, "Hooks"). */
const NOT_RUN: ReadonlySet<string> = new Set(['Stop', 'SessionEnd', 'PreCompact', 'Notification']);

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
  const warnings = [...loaded.warnings];
  const idle = [...new Set(loaded.hooks.filter((hook) => NOT_RUN.has(hook.event)).map((hook) => hook.event))];
  if (idle.length > 0)
    warnings.push({
      code: 'HOOK_EVENT_NOT_RUN',
      message: `Hooks for ${idle.join(', ')} are configured but Glassbox does not run them yet.`,
    });
  return { hooks: loaded.hooks, warnings, module };
}

export interface TurnHookSettings {
  root: string;
  home: string;
  sandbox: SandboxMode;
  sessionId: string;
  transcriptPath: string | null;
  detectSandbox: SandboxDetector;
}

export function toolHooksFor(turnHooks: TurnHooks, settings: TurnHookSettings): HookRunner | null {
  if (turnHooks.module === null || turnHooks.hooks.length === 0) return null;
  return turnHooks.module.createHookRunner({
    hooks: turnHooks.hooks,
    root: settings.root,
    env: process.env,
    sessionId: settings.sessionId,
    transcriptPath: settings.transcriptPath,
    // A project's hooks run in the sandbox whatever the turn's mode: writable only when the turn's
    // tools may write, never with the network, secrets masked.
    sandbox: async (): Promise<SandboxSettings | { unavailable: string }> => {
      const availability = await settings.detectSandbox();
      if (!availability.available || availability.path === null) return { unavailable: availability.reason };
      return {
        bwrapPath: availability.path,
        mode: settings.sandbox === 'read-only' ? 'read-only' : 'workspace-write',
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

/** The compaction hooks with the prompt's hooks run first in `beforeTurn`; unchanged without hooks. */
export function promptHooks(
  runner: HookRunner | null,
  prompt: string,
  source: 'startup' | 'resume',
  compaction: CompactionHooks | undefined,
): CompactionHooks | undefined {
  if (runner === null) return compaction;
  return {
    ...compaction,
    async beforeTurn(state) {
      const result = await runner.beforePrompt(prompt, source, { signal: state.signal, emit: state.emit });
      if (result.blocked !== null) throw new PromptBlockedError(result.blocked);
      // Claude Code adds a hook's stdout to the context; here it follows the prompt as a message of its own.
      if (result.context.length > 0) await state.commit([userMessage(`Context from hooks:\n${result.context.join('\n\n')}`)]);
      await compaction?.beforeTurn?.(state);
    },
  };
}
