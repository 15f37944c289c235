// The plan a successful update_plan call set, on its execute_tool span: how many steps and how
// far along as attributes (always: counts say nothing private), and a `glassbox.plan.update`
// event whose steps and explanation — the model's words — are sent only with content tracing, and
// redacted like every content attribute.

import { planUpdateSchema } from '../protocol/index.js';

// trace-builder.ts's `Attributes` and `SpanHandle`, written out: it imports this file.
type Attributes = Record<string, string | number | boolean | string[]>;
interface SpanHandle {
  set(attributes: Attributes): void;
  event(name: string, atMs: number, attributes?: Attributes): void;
}

export function planUpdate(span: SpanHandle, rawArguments: string, atMs: number, content: ((text: string) => string) | null): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawArguments);
  } catch {
    return;
  }
  const plan = planUpdateSchema.safeParse(parsed);
  if (!plan.success) return;
  const steps = plan.data.plan;
  const count = (status: string) => steps.filter((step) => step.status === status).length;
  const attributes: Attributes = {
    'glassbox.plan.steps': steps.length,
    'glassbox.plan.completed': count('completed'),
    'glassbox.plan.in_progress': count('in_progress'),
    'glassbox.plan.pending': count('pending'),
  };
  span.set(attributes);
  const detail: Attributes = { ...attributes };
  if (content !== null) {
    detail['glassbox.plan.step_texts'] = steps.map((step) => content(step.step));
    detail['glassbox.plan.step_statuses'] = steps.map((step) => step.status);
    if (plan.data.explanation) detail['glassbox.plan.explanation'] = content(plan.data.explanation);
  }
  span.event('glassbox.plan.update', atMs, detail);
}
