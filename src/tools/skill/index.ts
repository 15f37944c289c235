export { createSkillTool, SKILL_TOOL_NAME } from './skill.js';
export type { SkillArgs, SkillToolOptions } from './skill.js';
