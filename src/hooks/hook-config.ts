// The `hooks` section of a config file, in Claude Code's shape so a pasted block works unchanged:
// `{"PreToolUse": [{"matcher": "shell|Write", "hooks": [{"type": "command", "command": "…", "timeout": 30}]}]}`.
// Parsing is strict: a hook we cannot read exactly is an error naming the file and the entry,
// never a hook quietly dropped (a PreToolUse hook that guards calls must not vanish on a typo).

import { HOOK_EVENTS, type HookEventName, type ConfigSource } from '../protocol/index.js';

export interface HookDefinition {
  event: HookEventName;
  /** As written; null or `*` or empty: every call (or every occasion of the event). */
  matcher: string | null;
  /** The matcher as a whole-name regular expression; null matches everything. */
  pattern: RegExp | null;
  command: string;
  timeoutSec: number;
  source: ConfigSource;
  file: string;
  /** Where it is written: `hooks.PreToolUse[0].hooks[1]`. */
  entry: string;
}

/** A hook entry that cannot be read: the message names the file and the entry. Exit code 2, like a bad permission rule. */
export class HookConfigError extends Error {
  readonly exitCode = 2;
  constructor(message: string) {
    super(message);
    this.name = 'HookConfigError';
  }
}

/** Claude Code's default: a hook runs at most a minute. */
export const DEFAULT_HOOK_TIMEOUT_SEC = 60;
const MAX_HOOK_TIMEOUT_SEC = 3600;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The hooks in a parsed config object (`config.hooks`); none when it has no `hooks`. */
export function parseHooksSection(config: unknown, file: string, source: ConfigSource): HookDefinition[] {
  if (!isObject(config) || !Object.hasOwn(config, 'hooks')) return [];
  const section = config.hooks;
  const fail = (where: string, why: string): never => {
    throw new HookConfigError(`${file}: ${where} ${why}`);
  };
  if (!isObject(section)) fail('hooks', 'must be an object mapping event names (PreToolUse, PostToolUse, …) to lists of matchers');
  const hooks: HookDefinition[] = [];
  for (const [event, groups] of Object.entries(section as Record<string, unknown>)) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event))
      fail(`hooks.${event}`, `is not a hook event; expected one of ${HOOK_EVENTS.join(', ')}`);
    if (!Array.isArray(groups)) fail(`hooks.${event}`, 'must be a list of {"matcher": …, "hooks": […]} entries');
    for (const [index, group] of (groups as unknown[]).entries()) {
      const at = `hooks.${event}[${index}]`;
      if (!isObject(group)) fail(at, 'must be an object with "matcher" and "hooks"');
      const { matcher, hooks: commands } = group as Record<string, unknown>;
      if (matcher !== undefined && typeof matcher !== 'string')
        fail(`${at}.matcher`, 'must be a string (a regular expression over tool names)');
      let pattern: RegExp | null = null;
      if (typeof matcher === 'string' && matcher !== '' && matcher !== '*') {
        try {
          pattern = new RegExp(`^(?:${matcher})$`);
        } catch (error) {
          fail(`${at}.matcher`, `${JSON.stringify(matcher)} is not a regular expression: ${(error as Error).message}`);
        }
      }
      if (!Array.isArray(commands)) fail(`${at}.hooks`, 'must be a list of {"type": "command", "command": …} hooks');
      for (const [position, hook] of (commands as unknown[]).entries()) {
        const where = `${at}.hooks[${position}]`;
        if (!isObject(hook)) fail(where, 'must be an object {"type": "command", "command": …}');
        const { type, command, timeout } = hook as Record<string, unknown>;
        if (type !== 'command') fail(`${where}.type`, `is ${JSON.stringify(type)}; only "command" hooks are supported`);
        if (typeof command !== 'string' || command.trim() === '') fail(`${where}.command`, 'must be a non-empty string');
        if (
          timeout !== undefined &&
          (typeof timeout !== 'number' || !Number.isFinite(timeout) || timeout <= 0 || timeout > MAX_HOOK_TIMEOUT_SEC)
        )
          fail(`${where}.timeout`, `must be a number of seconds between 0 and ${MAX_HOOK_TIMEOUT_SEC}`);
        hooks.push({
          event: event as HookEventName,
          matcher: typeof matcher === 'string' ? matcher : null,
          pattern,
          command: command as string,
          timeoutSec: (timeout as number | undefined) ?? DEFAULT_HOOK_TIMEOUT_SEC,
          source,
          file,
          entry: where,
        });
      }
    }
  }
  return hooks;
}

/** Whether a hook's matcher selects `names` (a tool's name and its Claude Code names, or an event's occasion). */
export function hookMatches(hook: HookDefinition, names: readonly string[]): boolean {
  return hook.pattern === null || names.some((name) => hook.pattern!.test(name));
}
