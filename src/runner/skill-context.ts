// What skills cost in a session's context, read from its history: the list in the system message
// (sent on every request) and each skill body the model loaded (a `skill` call's output, sent on
// every request after it until compaction drops it). `/status` and the workbench show these, so
// a skill that is expensive to carry is visible. Estimates: the same chars/4 count compaction's
// fast path uses, not the provider's tokenizer.

import type { ResponseItem } from '../agent/index.js';
import { cheapTokenEstimate } from '../compaction/index.js';
import { SKILL_TOOL_NAME } from '../tools/index.js';
import { SKILL_LIST_TAG } from './system-prompt.js';

export interface SkillContextCost {
  /** The `<available_skills>` block of the system message; 0 when it lists none. */
  listTokens: number;
  /** How many skills the list names. */
  listed: number;
  /** Each load (or supporting file read) still in the history, in order. */
  loaded: { name: string; file: string | null; tokens: number }[];
}

const LIST_BLOCK = new RegExp(`<${SKILL_LIST_TAG}>\\n[\\s\\S]*?\\n</${SKILL_LIST_TAG}>`);

function systemSkillList(items: readonly ResponseItem[]): string | null {
  for (const item of items) {
    if (item.type === 'message' && item.role === 'system') {
      const match = LIST_BLOCK.exec(item.content);
      if (match) return match[0];
    }
  }
  return null;
}

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

function argumentsOf(text: string): { name: string; file: string | null } {
  try {
    const parsed = JSON.parse(text) as { name?: unknown; file?: unknown };
    return {
      name: typeof parsed.name === 'string' ? parsed.name : '?',
      file: typeof parsed.file === 'string' && parsed.file !== '' ? parsed.file : null,
    };
  } catch {
    return { name: '?', file: null };
  }
}

export function skillContextCost(items: readonly ResponseItem[]): SkillContextCost {
  const list = systemSkillList(items);
  const calls = new Map<string, { name: string; file: string | null }>();
  const loaded: SkillContextCost['loaded'] = [];
  for (const item of items) {
    if (item.type === 'function_call' && item.name === SKILL_TOOL_NAME) calls.set(item.callId, argumentsOf(item.arguments));
    if (item.type === 'function_call_output' && !item.isError) {
      const call = calls.get(item.callId);
      if (call !== undefined) loaded.push({ ...call, tokens: cheapTokenEstimate(item.output) });
    }
  }
  return {
    listTokens: list === null ? 0 : cheapTokenEstimate(list),
    listed: list === null ? 0 : list.split('\n').filter((line) => line.startsWith('- ')).length,
    loaded,
  };
}
