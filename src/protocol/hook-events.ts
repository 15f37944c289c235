// One hook run (docs/permissions.md, "Hooks"): what it was given on stdin, what it printed, how it
// ended and what that meant. A run event the loop emits, the session keeps as an audit record (all
// of it: a hook's input and output are the audit), the faces show and the trace spans.

import { z } from 'zod';
import { HOOK_EVENTS, HOOK_OUTCOMES, CONFIG_SOURCES } from './enumerations.js';
import { amountSchema } from './usage.js';

export const hookRanSchema = z.object({
  type: z.literal('hook_ran'),
  event: z.enum(HOOK_EVENTS),
  source: z.enum(CONFIG_SOURCES),
  /** The config file the hook is written in, and where in it (`hooks.PreToolUse[0].hooks[1]`). */
  file: z.string(),
  entry: z.string(),
  command: z.string(),
  /** The tool call it ran for (PreToolUse, PostToolUse); absent for the other events. */
  callId: z.string().optional(),
  toolName: z.string().optional(),
  /** The JSON the hook read on stdin. */
  input: z.string(),
  stdout: z.string(),
  stderr: z.string(),
  /** null when it did not exit by itself (a signal, a timeout, never started). */
  exitCode: z.number().int().nullable(),
  timedOut: z.boolean(),
  durationMs: amountSchema,
  /** Ran in the sandbox (a project's hooks always do). */
  sandboxed: z.boolean(),
  outcome: z.enum(HOOK_OUTCOMES),
  /** Why, in words: the hook's reason, its stderr, or what failed. */
  reason: z.string().nullable(),
});

export type HookRanEvent = z.infer<typeof hookRanSchema>;
