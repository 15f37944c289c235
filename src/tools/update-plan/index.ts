export { createUpdatePlanTool, UPDATE_PLAN_TOOL_NAME } from './update-plan.js';
export type { UpdatePlanArgs } from './update-plan.js';
