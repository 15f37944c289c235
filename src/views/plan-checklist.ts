// A plan call's arguments read as a checklist, without zod so the web bundle runs it (the tool
// validates them with protocol's schema; a face only draws what arrived).

import type { PlanStepStatus } from '../protocol/index.js';
import type { Checklist, ChecklistStep } from './tool-presentation.js';

const STATUSES: readonly string[] = ['pending', 'in_progress', 'completed'] satisfies PlanStepStatus[];

/** The checklist in a plan call's arguments, or null when they hold none. */
export function checklistOf(args: Record<string, unknown>): Checklist | null {
  if (!Array.isArray(args.plan)) return null;
  const steps: ChecklistStep[] = [];
  for (const entry of args.plan as unknown[]) {
    if (entry === null || typeof entry !== 'object') return null;
    const { step, status } = entry as { step?: unknown; status?: unknown };
    if (typeof step !== 'string' || typeof status !== 'string' || !STATUSES.includes(status)) return null;
    steps.push({ step, status: status as PlanStepStatus });
  }
  if (steps.length === 0) return null;
  const explanation = typeof args.explanation === 'string' && args.explanation.trim() !== '' ? args.explanation : null;
  return { explanation, steps };
}

/** One line per step, as plain text: `[x] done`, `[>] doing`, `[ ] to do`. */
export function checklistLines(plan: Checklist): string[] {
  const mark = { completed: '[x]', in_progress: '[>]', pending: '[ ]' } as const;
  return [...(plan.explanation === null ? [] : [plan.explanation]), ...plan.steps.map((step) => `${mark[step.status]} ${step.step}`)];
}
