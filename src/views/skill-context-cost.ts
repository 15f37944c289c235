// What skills cost in a session's context, read from its history: the list in the system message
// (sent on every request) and each skill body the model loaded (a `skill` call's output, sent on
// every request after it until compaction drops it). One reading for every face: `/status` in
// the terminal (through runner/) and the workbench's Context view (the server sends it). Estimates:
// the chars/4 count compaction's fast path uses (compaction/'s `cheapTokenEstimate`, which this
// file cannot run: views/ runs only its own files), not the provider's tokenizer.

import type { ResponseItem } from '../agent/index.js';
import type { SkillContextCost } from '../protocol/index.js';

/** The tag around the skill list in the system message (runner/'s system prompt writes it). */
export const SKILL_LIST_TAG = 'available_skills';
/** The tool that loads a skill's body or one of its files (tools/skill). */
export const SKILL_TOOL_NAME = 'skill';

const LIST_BLOCK = new RegExp(`<${SKILL_LIST_TAG}>\\n[\\s\\S]*?\\n</${SKILL_LIST_TAG}>`);

/** chars/4, rounded up: compaction's `cheapTokenEstimate` (test/views pins the two together). */
export function skillTokenEstimate(text: string): number {
  return Math.ceil(text.length / 4);
}

/** The `<available_skills>` block of the history's system message, or null. */
export function systemSkillList(items: readonly ResponseItem[]): string | null {
  for (const item of items) {
    if (item.type === 'message' && item.role === 'system') {
      const match = LIST_BLOCK.exec(item.content);
      if (match) return match[0];
    }
  }
  return null;
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
      if (call !== undefined) loaded.push({ ...call, tokens: skillTokenEstimate(item.output) });
    }
  }
  return {
    listTokens: list === null ? 0 : skillTokenEstimate(list),
    listed: list === null ? 0 : list.split('\n').filter((line) => line.startsWith('- ')).length,
    loaded,
  };
}
