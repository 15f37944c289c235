// Prices of recorded model calls, from the model catalog with `<home>/config.json`'s `models`
// overrides over it (the same resolution a run uses). A model without a known price gives null,
// never a guess: the workbench then says the price is unknown.

import { readCompactionConfig } from '../compaction/index.js';
import { estimateCost, resolveModel, type ModelPricing, type Usage } from '../model/index.js';

/** `priceKnown` false: the model has no list price; `costUsd` null also when no usage was reported. */
export interface CallCost {
  costUsd: number | null;
  priceKnown: boolean;
}

export type CallPricer = (model: string, usage: Usage | null) => CallCost;

/** Anthropic reports cache writes only in its own usage object; they are billed at their own rate. */
function cacheWriteTokens(usage: Usage): number | null {
  const raw = usage.raw as Record<string, unknown> | null | undefined;
  const value = raw?.cache_creation_input_tokens;
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** A pricer for one request: reads the config once, resolves each model once. */
export async function createCallPricer(home: string): Promise<CallPricer> {
  let overrides = {};
  try {
    overrides = (await readCompactionConfig(home)).models;
  } catch {
    // A broken config.json is reported by the routes that need it; prices fall back to the catalog.
  }
  const cache = new Map<string, ModelPricing | null>();
  return (model, usage) => {
    let pricing = cache.get(model);
    if (pricing === undefined) {
      pricing = resolveModel(model, overrides).entry.pricing;
      cache.set(model, pricing);
    }
    if (usage === null || pricing === null) return { costUsd: null, priceKnown: pricing !== null };
    const cost = estimateCost({ ...usage, cacheWriteInputTokens: cacheWriteTokens(usage) }, { pricing });
    return { costUsd: cost === null ? null : cost.total, priceKnown: true };
  };
}
