// What one model call cost, from its usage and the model's list price. An estimate: the provider's
// invoice is the truth (batch and priority tiers, regional uplifts, cache storage and tool fees are
// not modelled). Pure, so a recorded session can be priced again later with other prices.

import type { Usage } from './ir.js';
import type { ModelPricing, PriceRates } from './model-entry.js';

/** The usage fields the estimate needs; a full `Usage` fits. */
export interface CostUsage extends Pick<Usage, 'inputTokens' | 'cachedInputTokens' | 'outputTokens'> {
  /**
   * Input tokens written to an explicit prompt cache (Anthropic's `cache_creation_input_tokens`),
   * counted inside `inputTokens` like the cached ones; absent or null: none.
   */
  cacheWriteInputTokens?: number | null;
}

/** USD; `input` is the uncached, unwritten part of the input. */
export interface CostEstimate {
  input: number;
  cachedInput: number;
  cacheWrite: number;
  output: number;
  total: number;
}

/** The rates for a request of this size: the highest tier it passes, else the base rates. */
export function ratesFor(pricing: ModelPricing, inputTokens: number): PriceRates {
  let chosen: PriceRates = pricing;
  for (const tier of pricing.tiers ?? []) {
    if (inputTokens > tier.aboveInputTokens) chosen = tier;
  }
  return chosen;
}

function count(value: number | null | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

/**
 * The cost of one model call in USD, or null when the model has no known price. `inputTokens` is
 * all input, cached included (as every dialect reports it): cached tokens are billed at the cached
 * rate, cache writes at the write rate (the input rate when the model has none), the rest at the
 * input rate. Output includes reasoning tokens, as the providers bill them. Tiered prices apply
 * per request, so pass the usage of one call, not a sum.
 */
export function estimateCost(usage: CostUsage, entry: { pricing: ModelPricing | null }): CostEstimate | null {
  if (entry.pricing === null) return null;
  const inputTokens = count(usage.inputTokens);
  const rates = ratesFor(entry.pricing, inputTokens);
  // Providers never report more cached or written tokens than input; clamp so a bad report cannot go negative.
  const cached = Math.min(count(usage.cachedInputTokens), inputTokens);
  const written = Math.min(count(usage.cacheWriteInputTokens), inputTokens - cached);
  const fresh = inputTokens - cached - written;
  const perToken = (tokens: number, perMillion: number): number => (tokens * perMillion) / 1_000_000;
  const input = perToken(fresh, rates.inputPerMillion);
  const cachedInput = perToken(cached, rates.cachedInputPerMillion);
  const cacheWrite = perToken(written, rates.cacheWritePerMillion ?? rates.inputPerMillion);
  const output = perToken(count(usage.outputTokens), rates.outputPerMillion);
  return { input, cachedInput, cacheWrite, output, total: input + cachedInput + cacheWrite + output };
}

/** Anthropic reports cache writes only in its own usage object, and bills them at their own rate. */
function cacheWriteTokens(usage: Usage): number | null {
  const raw = usage.raw as Record<string, unknown> | null | undefined;
  const value = raw?.cache_creation_input_tokens;
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** USD of one call's reported usage at `pricing`: what `exec`'s totals and its budget both count. */
export function usageCost(usage: Usage, pricing: ModelPricing): number {
  return estimateCost({ ...usage, cacheWriteInputTokens: cacheWriteTokens(usage) }, { pricing })?.total ?? 0;
}
