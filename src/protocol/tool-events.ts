// The run events about one tool call: what the permission gate decided, the approval asked and
// its answer, the call starting and finishing. Run events carry them (agent/run-events.ts), the
// session stores them as audit records (`tool_finished` without its output: the response item
// has it), the server streams them and the web folds them. The types are derived from the schemas.

import { z } from 'zod';
import { hookRanSchema } from './hook-events.js';
import { amountSchema } from './usage.js';
import { APPROVAL_DECISIONS, PERMISSION_DECISIONS } from './enumerations.js';

/** A rule from a config file that decided, and where it is written (docs/permissions.md, "Permission rules"). */
export const decidingConfigRuleSchema = z.object({
  text: z.string(),
  /** The rule's list: a permission decision's own values. */
  list: z.enum(PERMISSION_DECISIONS),
  file: z.string(),
  line: z.number().int().positive(),
});

export const toolPermissionDecidedSchema = z.object({
  type: z.literal('tool_permission_decided'),
  callId: z.string(),
  name: z.string(),
  decision: z.enum(PERMISSION_DECISIONS),
  reason: z.string(),
  /** Which rule decided, e.g. `policy:untrusted`, `classifier:safe`, `session-approval`. */
  rule: z.string(),
  /** Present when a rule from `permissions` in a config file decided (`config-deny`, `config-ask`, `config-allow`). */
  configRule: decidingConfigRuleSchema.optional(),
});

export const approvalRequestedSchema = z.object({
  type: z.literal('approval_requested'),
  callId: z.string(),
  name: z.string(),
  summary: z.string(),
  reason: z.string(),
  arguments: z.string(),
});

export const approvalResolvedSchema = z.object({
  type: z.literal('approval_resolved'),
  callId: z.string(),
  name: z.string(),
  decision: z.enum(APPROVAL_DECISIONS),
  /** Who decided: `user` (TTY/web), `timeout`, `no-tty`, `cancelled`. */
  by: z.string(),
  message: z.string().nullable(),
});

export const toolStartedSchema = z.object({ type: z.literal('tool_started'), callId: z.string(), name: z.string() });

export const toolFinishedSchema = z.object({
  type: z.literal('tool_finished'),
  callId: z.string(),
  name: z.string(),
  isError: z.boolean(),
  output: z.string(),
  durationMs: amountSchema,
});

export type DecidingConfigRuleShape = z.infer<typeof decidingConfigRuleSchema>;
export type ToolPermissionDecidedEvent = z.infer<typeof toolPermissionDecidedSchema>;
export type ApprovalRequestedEvent = z.infer<typeof approvalRequestedSchema>;
export type ApprovalResolvedEvent = z.infer<typeof approvalResolvedSchema>;
export type ToolStartedEvent = z.infer<typeof toolStartedSchema>;
export type ToolFinishedEvent = z.infer<typeof toolFinishedSchema>;

/** The tool events worth keeping for audit, as a session stores them. */
export const auditEventSchema = z.union([
  toolPermissionDecidedSchema,
  approvalRequestedSchema,
  approvalResolvedSchema,
  toolStartedSchema,
  toolFinishedSchema.omit({ output: true }),
  hookRanSchema,
]);
export type AuditEvent = z.infer<typeof auditEventSchema>;
