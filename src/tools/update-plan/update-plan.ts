// update_plan: the model's plan, shown to the user as a checklist. It touches nothing: the plan
// lives in the call's arguments, which the session stores and every face folds (views'
// `latestPlan`), so a resumed or replayed session shows the same plan without a record of its own.
// The output tells the model what it now holds, so a malformed plan is corrected on the next call.

import { builtInSchema, loadToolDescription, ToolError, type Tool, type ToolContext, type ToolResult } from '../../agent/index.js';
import { PLAN_TOOL_NAME, planUpdateSchema, type PlanUpdate } from '../../protocol/index.js';

export const UPDATE_PLAN_TOOL_NAME = PLAN_TOOL_NAME;

export type UpdatePlanArgs = PlanUpdate;

const updatePlanSchema = builtInSchema(UPDATE_PLAN_TOOL_NAME, planUpdateSchema);

export function createUpdatePlanTool(): Tool<UpdatePlanArgs> {
  return {
    name: UPDATE_PLAN_TOOL_NAME,
    description: loadToolDescription(new URL('./update-plan.md', import.meta.url)),
    schema: updatePlanSchema,
    readOnly: true,
    strict: false,
    access: () => ({ kind: 'none' }),
    async execute(args: UpdatePlanArgs, context: ToolContext): Promise<ToolResult> {
      context.signal.throwIfAborted();
      const active = args.plan.filter((step) => step.status === 'in_progress');
      if (active.length > 1) {
        const names = active.map((step) => `"${step.step}"`).join(', ');
        throw new ToolError('INVALID_PLAN', `At most one step can be in_progress; ${active.length} are: ${names}. Send the plan again.`);
      }
      const blank = args.plan.findIndex((step) => step.step.trim() === '');
      if (blank !== -1) throw new ToolError('INVALID_PLAN', `Step ${blank + 1} has no text. Send the plan again.`);
      const completed = args.plan.filter((step) => step.status === 'completed').length;
      const current = active[0] === undefined ? '' : ` In progress: ${active[0].step}.`;
      return { output: `Plan updated: ${completed} of ${args.plan.length} steps completed.${current}` };
    },
  };
}
