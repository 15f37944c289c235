// The plan a session holds: the arguments of its latest plan call (a tool whose presentation has
// `checklist`), folded from the transcript, so replayed records and live events give the same
// plan. A call that failed (a second in_progress step, say), was denied or cancelled changed
// nothing and is skipped; one still running shows already, as the model meant it.

import type { Checklist } from './tool-presentation.js';
import { presentationOf } from './tool-presentations.js';
import { argumentsObject } from './tool-arguments.js';
import type { ToolCallState, TranscriptTurn } from './transcript-types.js';

/** The checklist a call sets, when its tool keeps a plan and the call did not fail. */
export function callChecklist(call: Pick<ToolCallState, 'name' | 'arguments' | 'status'>): Checklist | null {
  const { checklist } = presentationOf(call.name);
  if (checklist === undefined) return null;
  if (call.status === 'failed' || call.status === 'denied' || call.status === 'cancelled') return null;
  const args = argumentsObject(call.arguments);
  return args === null ? null : checklist(args);
}

/** The plan as the transcript stands: the last plan call's, across turns; null when none was set. */
export function latestPlan(turns: readonly TranscriptTurn[]): Checklist | null {
  for (let t = turns.length - 1; t >= 0; t--) {
    const entries = turns[t]!.entries;
    for (let e = entries.length - 1; e >= 0; e--) {
      const entry = entries[e]!;
      if (entry.kind !== 'tools') continue;
      for (let c = entry.calls.length - 1; c >= 0; c--) {
        const plan = callChecklist(entry.calls[c]!);
        if (plan !== null) return plan;
      }
    }
  }
  return null;
}

/** What a plan tracker reads of run events: a call's arguments, and whether it went through. */
type PlanEvent =
  | { type: 'tool_requested'; callId: string; name: string; arguments: string }
  | { type: 'tool_finished'; callId: string; isError: boolean }
  | { type: string };

/**
 * The plan as a live run sets it, for a face that reads events rather than the transcript (exec,
 * ACP): `observe` returns the new plan when a plan call finished without error, else null.
 */
export function planTracker(): { observe(event: PlanEvent): Checklist | null; current(): Checklist | null } {
  const pending = new Map<string, Checklist>();
  let plan: Checklist | null = null;
  return {
    observe(event) {
      if (event.type === 'tool_requested' && 'arguments' in event) {
        const set = callChecklist({ name: event.name, arguments: event.arguments, status: 'requested' });
        if (set !== null) pending.set(event.callId, set);
        return null;
      }
      if (event.type === 'tool_finished' && 'isError' in event) {
        const set = pending.get(event.callId);
        pending.delete(event.callId);
        if (set === undefined || event.isError) return null;
        plan = set;
        return set;
      }
      return null;
    },
    current: () => plan,
  };
}
