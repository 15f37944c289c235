// Skills in a session's history: whether its turns offer the skill tool, and what the skills cost
// in its context (views/'s `skillContextCost`, the one reading `/status` and the workbench's
// Context view share).

import type { ResponseItem } from '../agent/index.js';
import type { SkillContextCost } from '../protocol/index.js';
import { SKILL_TOOL_NAME } from '../tools/index.js';
import { skillContextCost, systemSkillList } from '../views/index.js';

export type { SkillContextCost };

/** The session's system message lists skills, so its turns offer the skill tool. */
export function offersSkills(items: readonly ResponseItem[]): boolean {
  return systemSkillList(items) !== null;
}

/**
 * The tools a turn offers, given its history: the skill tool only when the session's system
 * message lists skills. One rule for the turn and for the server that rebuilds its requests.
 */
export function toolsOffered<T extends { name: string }>(tools: readonly T[], items: readonly ResponseItem[]): T[] {
  const skills = offersSkills(items);
  return tools.filter((tool) => skills || tool.name !== SKILL_TOOL_NAME);
}

export { skillContextCost };
