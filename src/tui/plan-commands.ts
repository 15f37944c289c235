// /plan, /accept and /reject: plan mode in the interactive session. /plan runs a turn in plan
// mode (the runner makes it read-only: read-only sandbox, no writing tools) — the task given, or
// the next prompt typed; once the model has proposed a plan, /accept carries it out in the
// session's sandbox (or the one named, as /sandbox would set it) and /reject drops it. Any other
// prompt moves on without it.

import type { SessionController, SandboxModeName } from './session-controller.js';

/** What an accepted plan's turn says to the model (shown to the user as "accepted the plan"). */
export const ACCEPTED_PLAN_PROMPT =
  'The user accepted the plan. Carry it out now, step by step, keeping it current with update_plan as steps finish.';

interface PlanContext {
  controller: SessionController;
}

export async function planCommand({ controller }: PlanContext, task: string): Promise<void> {
  if (task.trim() === '') {
    controller.planNextPrompt();
    return controller.note({
      kind: 'notice',
      tone: 'info',
      text: 'plan mode: the next prompt runs read-only, and the model proposes a plan',
    });
  }
  await controller.sendPrompt(task, task, 'plan');
}

export async function acceptPlan({ controller }: PlanContext, sandbox: string): Promise<void> {
  if (!controller.hasProposedPlan) {
    return controller.note({ kind: 'notice', tone: 'warning', text: 'no plan to accept: /plan <task> asks the model for one' });
  }
  const wanted = sandbox.trim();
  if (wanted !== '') {
    const modes = controller.options.sandboxModes;
    if (!modes.includes(wanted as SandboxModeName)) {
      return controller.note({ kind: 'notice', tone: 'error', text: `unknown sandbox "${wanted}": ${modes.join(' | ')}` });
    }
    await controller.changeSettings({ sandbox: wanted as SandboxModeName });
  }
  const mode = controller.getSnapshot().sandbox;
  controller.note({ kind: 'notice', tone: 'success', text: `plan accepted: carrying it out in the ${mode} sandbox` });
  await controller.sendPrompt(ACCEPTED_PLAN_PROMPT, 'accepted the plan');
}

export function rejectPlan({ controller }: PlanContext): void {
  if (!controller.hasProposedPlan) {
    controller.note({ kind: 'notice', tone: 'warning', text: 'no plan to reject' });
    return;
  }
  controller.dropProposedPlan();
  controller.note({ kind: 'notice', tone: 'info', text: 'plan rejected: nothing was changed' });
}
