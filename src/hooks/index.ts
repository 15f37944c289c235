// Hooks: the user's commands around tool calls and prompts, in Claude Code's `hooks` format
// (docs/permissions.md, "Hooks"). Read from the config files (a project's only once pinned), run
// as real processes with the tools' allowlisted environment (a project's in the sandbox), their
// answers folded into the permission gate's decision, every run reported as a `hook_ran` event.

export { DEFAULT_HOOK_TIMEOUT_SEC, HookConfigError, hookMatches, parseHooksSection, type HookDefinition } from './hook-config.js';
export { projectHooksFingerprint, readHooks, type HookNotice, type LoadedHooks } from './hook-files.js';
export { interpretHook, type HookEnding, type HookVerdict } from './hook-result.js';
export { HOOK_OUTPUT_LIMIT, runHook, type HookProcessResult, type HookProcessSettings } from './run-hook.js';
export {
  combine as combineHookDecisions,
  createHookRunner,
  type HookRunner,
  type HookRunnerSettings,
  type NotificationType,
  type PromptHooksResult,
  type SessionEndReason,
  type StopHooksResult,
} from './hook-runner.js';
