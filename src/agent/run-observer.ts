// Persistence, compaction and UIs hang off the loop through this interface instead of living in
// it. `onCommit` is awaited: a round's items are durable before the loop moves on.

import type { FinishReason, ModelRequest, Usage } from '../model/index.js';
import type { ResponseItem } from './response-items.js';
import type { RunEvent, UsageStage } from './run-events.js';

export interface ModelCallRecord {
  round: number;
  stage: UsageStage;
  /** The IR request exactly as handed to the gateway. */
  request: ModelRequest;
  usage: Usage | null;
  finishReason: FinishReason | null;
  durationMs: number;
  /** Set when the call failed; the round then committed nothing. */
  error: { code: string; message: string } | null;
}

export interface RunObserver {
  onEvent?(event: RunEvent): void;
  /** Items committed to history, in order. Awaited before the loop continues. */
  onCommit?(items: readonly ResponseItem[]): void | Promise<void>;
  onModelCall?(call: ModelCallRecord): void | Promise<void>;
}

/**
 * An event sink that never throws. Observers are UIs and recorders: a bug in one (or a broken
 * output stream behind it) must not turn into a failed tool call or a call left without its
 * output. The error is reported as an `OBSERVER_FAILED` warning through the same sink, best
 * effort: if that throws too, it is dropped rather than looping.
 */
export function containedEmit(emit: (event: RunEvent) => void): (event: RunEvent) => void {
  return (event) => {
    try {
      emit(event);
    } catch (error) {
      const message = (error as Error)?.message ?? String(error);
      try {
        emit({ type: 'warning', code: 'OBSERVER_FAILED', message: `An event observer threw while handling ${event.type}: ${message}` });
      } catch {
        // See above: the observer is broken; the run goes on without it.
      }
    }
  };
}
