// Plan mode (`--plan`, `/plan`): a turn in which the model looks and proposes, and changes
// nothing. Three things make it so, each enforced here rather than asked of the model: the
// sandbox is read-only (a shell command cannot write, whatever the session's policy), the tools
// that write files are not offered (only read-only tools and the shell, which the read-only
// sandbox confines), and the prompt says what is wanted: a plan, kept with update_plan.

import type { AnyTool } from '../agent/index.js';
import { PLAN_TOOL_NAME } from '../protocol/index.js';
import type { SandboxMode } from '../workspace/index.js';

export type TurnMode = 'plan' | undefined;

/** What a plan-mode prompt carries after the user's words. */
export const PLAN_MODE_INSTRUCTIONS = `<plan_mode>
This turn is in plan mode: do not change anything (files cannot be written and commands run in a read-only sandbox). Look at what you need, then propose a plan for the request above: call ${PLAN_TOOL_NAME} with the steps (all pending), and answer with a short summary of the plan. The user will accept it, and you will then carry it out, or reject it.
</plan_mode>`;

/** The prompt a turn sends: the user's, with the plan-mode instructions in plan mode. */
export function planPrompt(prompt: string, mode: TurnMode): string {
  return mode === 'plan' ? `${prompt}\n\n${PLAN_MODE_INSTRUCTIONS}` : prompt;
}

/** Plan mode runs in the read-only sandbox; approvals and network stay as the turn's policy says. */
export function planPolicy<Policy extends { sandbox: SandboxMode }>(policy: Policy, mode: TurnMode): Policy {
  return mode === 'plan' ? { ...policy, sandbox: 'read-only' } : policy;
}

/** The tools a plan-mode turn offers: those that only look, and the shell under the read-only sandbox. */
export function planTools(tools: AnyTool[], mode: TurnMode): AnyTool[] {
  return mode === 'plan' ? tools.filter((tool) => tool.readOnly || tool.name === 'shell') : tools;
}
