// The plan the model keeps with the update_plan tool, as Codex's: ordered steps, each pending, in
// progress or completed, and an optional note on why it changed. The tool's arguments are this
// shape; the session stores it as that call's arguments (no record of its own), and the faces
// (views' `latestPlan`), OpenTelemetry and ACP's `plan` update read it back from there.

import { z } from 'zod';

/** The plan tool's name: the layers that read a plan from a call without its presentation (OpenTelemetry) match on it. */
export const PLAN_TOOL_NAME = 'update_plan';

export const PLAN_STEP_STATUSES = ['pending', 'in_progress', 'completed'] as const;
export type PlanStepStatus = (typeof PLAN_STEP_STATUSES)[number];

export const planStepSchema = z.object({
  step: z.string().min(1).describe('A short sentence.'),
  status: z.enum(PLAN_STEP_STATUSES),
});

export const planUpdateSchema = z.object({
  // The tool's description says what these mean; describing them again here cost bytes on every request.
  explanation: z.string().optional(),
  plan: z.array(planStepSchema).min(1).max(50),
});

export type PlanStep = z.infer<typeof planStepSchema>;
export type PlanUpdate = z.infer<typeof planUpdateSchema>;
