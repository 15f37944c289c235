// What `exec` reports about a whole run when it ends, as scripts read it from other agents' final
// result (Claude Code's `session_id`, `total_cost_usd`, `duration_ms`): the session to resume, the
// cost at the model catalog's list prices, and the wall-clock time.

import type { RunEvent } from '../agent/index.js';
import { addUsage, emptyUsage, MODEL_FALLBACK_WARNING, usageCost, type ModelPricing, type Usage } from '../model/index.js';

export interface RunTotals {
  sessionId: string | null;
  /** USD at catalog prices (with config.json's `models` overrides); null when any call cannot be priced. */
  totalCostUsd: number | null;
  durationMs: number;
  /** Tokens of every model call of the run (with `--output-schema`, its retry turn too). */
  totalUsage: Usage;
}

export class RunTally {
  private sessionId: string | null = null;
  private costUsd = 0;
  private costKnown = true;
  /** Undefined until the runner has resolved the model (the catalog entry with its overrides). */
  private pricing: ModelPricing | null | undefined;
  /** `--fallback-model`'s price list, which applies once the run has switched to it. */
  private fallbackPricing: ModelPricing | null | undefined;
  private usage: Usage = emptyUsage();

  constructor(
    private readonly startedAt: number = performance.now(),
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The price list of the run's model; null: the catalog has no price for it. */
  setPricing(pricing: ModelPricing | null): void {
    this.pricing = pricing;
  }

  setFallbackPricing(pricing: ModelPricing | null): void {
    this.fallbackPricing = pricing;
  }

  observe(event: RunEvent): void {
    if (event.type === 'run_started') this.sessionId = event.sessionId;
    else if (event.type === 'warning' && event.code === MODEL_FALLBACK_WARNING) this.pricing = this.fallbackPricing;
    else if (event.type === 'model_completed') {
      if (event.usage !== null) this.usage = addUsage(this.usage, event.usage);
      // Each call priced by itself: tiered prices apply per request, not to a sum.
      if (event.usage === null || !this.pricing) this.costKnown = false;
      else this.costUsd += usageCost(event.usage, this.pricing);
    }
  }

  totals(): RunTotals {
    // No model call at all (cancelled before the first): nothing was spent.
    const totalCostUsd = this.costKnown ? this.costUsd : null;
    return { sessionId: this.sessionId, totalCostUsd, durationMs: Math.round(this.now() - this.startedAt), totalUsage: { ...this.usage } };
  }
}
