// A plan call's plan as a checklist under its line, always open: the plan is what the user reads
// the call for, not a detail to expand. The steps are the model's text, shown as text.

import type { Checklist } from '../../views/index.js';

const STEP_LABEL = { completed: 'done', in_progress: 'in progress', pending: 'to do' } as const;
const STEP_ICON = { completed: '✔', in_progress: '◐', pending: '□' } as const;

export function PlanChecklist({ plan }: { plan: Checklist }) {
  return (
    <div className="plan-checklist">
      {plan.explanation !== null && <p className="plan-explanation muted">{plan.explanation}</p>}
      <ol aria-label="Plan">
        {plan.steps.map((step, index) => (
          // Steps have no identity but their place: the model sends the whole plan each time.
          <li key={index} className={`plan-step plan-${step.status}`} data-status={step.status}>
            <span className="plan-step-icon" aria-hidden="true">
              {STEP_ICON[step.status]}
            </span>
            <span className="visually-hidden">{STEP_LABEL[step.status]}: </span>
            {step.step}
          </li>
        ))}
      </ol>
    </div>
  );
}
