// The one rule for the environment variables glassbox reads: set to the empty string (or only
// spaces) means unset. `FOO=` is how shells and env files blank a variable, and a blank value is
// never a useful setting; before this, `GLASSBOX_WIRE_API=` was an error while `GLASSBOX_MODEL=`
// fell back to the default. Kept free of heavy imports: `main` loads it for `--help` too.

import type { Command } from 'commander';

/** Variables read directly, not through a commander option's `.env()`. */
export const DIRECT_ENV_VARS: readonly string[] = [
  'OPENAI_API_KEY',
  'OPENAI_BASE_URL',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_BASE_URL',
  'GLASSBOX_DEBUG',
  'NO_COLOR',
  // The helpers' paths (sandbox/'s trusted-program.ts reads them).
  'GLASSBOX_BWRAP',
  'GLASSBOX_GIT',
  'GLASSBOX_RG',
  'GLASSBOX_BASH',
];

/** A variable's value, or undefined when it is unset or blank. */
export function envValue(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value;
}

/** Every variable the command tree reads: each option's `.env()` name, and the direct ones. */
export function cliEnvVars(program: Command): string[] {
  const names = new Set<string>(DIRECT_ENV_VARS);
  const visit = (command: Command): void => {
    for (const option of command.options) if (option.envVar) names.add(option.envVar);
    for (const sub of command.commands) visit(sub);
  };
  visit(program);
  return [...names].sort();
}

/**
 * Deletes the blank ones among `names` from `env`. Commander's `.env()` takes any value that is
 * present, blank included, so removing them before parsing is what makes "blank means unset"
 * hold for every option without each one handling it. Returns the names removed.
 */
export function unsetBlankEnv(names: readonly string[], env: NodeJS.ProcessEnv = process.env): string[] {
  const removed = names.filter((name) => env[name] !== undefined && envValue(name, env) === undefined);
  for (const name of removed) delete env[name];
  return removed;
}
