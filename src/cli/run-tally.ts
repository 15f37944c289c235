// What `exec` reports about a whole run when it ends, as scripts read it from other agents' final
// result (Claude Code's `session_id`, `total_cost_usd`, `duration_ms`): the session to resume, the
// cost at the model catalog's list prices, and the wall-clock time.

import type { RunEvent } from '../agent/index.js';
import { estimateCost, type ModelPricing, type Usage } from '../model/index.js';

export interface RunTotals {
  sessionId: string | null;
  /** USD at catalog prices (with config.json's `models` overrides); null when any call cannot be priced. */
  totalCostUsd: number | null;
  durationMs: number;
}

/** Anthropic reports cache writes only in its own usage object, and bills them at their own rate. */
function cacheWriteTokens(usage: Usage): number | null {
  const raw = usage.raw as Record<string, unknown> | null | undefined;
  const value = raw?.cache_creation_input_tokens;
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

export class RunTally {
  private sessionId: string | null = null;
  private costUsd = 0;
  private costKnown = true;
  /** Undefined until the runner has resolved the model (the catalog entry with its overrides). */
  private pricing: ModelPricing | null | undefined;

  constructor(
    private readonly startedAt: number = performance.now(),
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The price list of the run's model; null: the catalog has no price for it. */
  setPricing(pricing: ModelPricing | null): void {
    this.pricing = pricing;
  }

  observe(event: RunEvent): void {
    if (event.type === 'run_started') this.sessionId = event.sessionId;
    else if (event.type === 'model_completed') {
      // Each call priced by itself: tiered prices apply per request, not to a sum.
      const cost =
        event.usage === null || !this.pricing
          ? null
          : estimateCost({ ...event.usage, cacheWriteInputTokens: cacheWriteTokens(event.usage) }, { pricing: this.pricing });
      if (cost === null) this.costKnown = false;
      else this.costUsd += cost.total;
    }
  }

  totals(): RunTotals {
    // No model call at all (cancelled before the first): nothing was spent.
    const totalCostUsd = this.costKnown ? this.costUsd : null;
    return { sessionId: this.sessionId, totalCostUsd, durationMs: Math.round(this.now() - this.startedAt) };
  }
}
