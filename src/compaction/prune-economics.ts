// Whether the cheap pass pays for itself. Eliding old outputs changes the history in the middle,
// so the next request is a prompt-cache miss from the first elided output to its end: those tokens
// are billed once at the input rate (or the cache-write rate) instead of the cached rate. What it
// buys is a shorter request on every round until the context reaches the threshold again, when a
// summary replaces everything anyway. So, with S the tokens elided, U the tokens from the first
// elided output to the end (after eliding), g the tokens a round adds, R = ⌊S / g⌋ the rounds
// the saving lasts, p_in / p_c / p_w the input / cached / cache-write prices:
//
//   miss cost = U × (p_miss − p_c)   p_miss = p_w on an explicit cache (Anthropic), else p_in
//   saving    = S × R × p_c          the elided tokens would have been cached tokens
//   prune  ⇔  saving > miss cost
//
// Without a known price the common automatic-cache discount is assumed (p_c = 0.1 × p_in); a
// model without prompt caching (p_c = p_in) always passes, since a miss there costs nothing.

import { ratesFor, type ModelPricing, type PromptCaching } from '../model/index.js';

/** Cached input relative to input when the catalog has no price: OpenAI's, DeepSeek's, Gemini's 90 % discount. */
export const ASSUMED_CACHED_INPUT_RATIO = 0.1;

export interface PruneEconomicsInput {
  /** S: tokens the pass removes from every later request. */
  savedTokens: number;
  /** U: tokens from the first elided output to the end of the pruned history, re-sent uncached once. */
  missedTokens: number;
  /** g: tokens a round adds (the median of the recent rounds). */
  growthPerRound: number;
  /** Size of the request, for tiered prices. */
  requestTokens: number;
  pricing: ModelPricing | null;
  promptCaching: PromptCaching | null;
}

export interface PruneEconomics {
  prune: boolean;
  /** R: rounds the saving lasts before the threshold is reached again. */
  horizonRounds: number;
  /** In USD when the price is known, else in input-token units. */
  missCost: number;
  saving: number;
  /** One sentence for the compaction record and the event. */
  reason: string;
}

export function pruneEconomics(input: PruneEconomicsInput): PruneEconomics {
  const growth = Math.max(1, input.growthPerRound);
  const horizonRounds = Math.floor(Math.max(0, input.savedTokens) / growth);
  let inputPrice = 1;
  let cachedPrice = ASSUMED_CACHED_INPUT_RATIO;
  let missPrice = 1;
  const priced = input.pricing !== null;
  if (input.pricing !== null) {
    const rates = ratesFor(input.pricing, input.requestTokens);
    inputPrice = rates.inputPerMillion / 1_000_000;
    cachedPrice = rates.cachedInputPerMillion / 1_000_000;
    missPrice = input.promptCaching === 'explicit' ? (rates.cacheWritePerMillion ?? rates.inputPerMillion) / 1_000_000 : inputPrice;
  }
  if (input.promptCaching === 'none') cachedPrice = inputPrice;
  const missCost = Math.max(0, input.missedTokens) * Math.max(0, missPrice - cachedPrice);
  const saving = Math.max(0, input.savedTokens) * horizonRounds * cachedPrice;
  const prune = input.promptCaching === 'none' ? horizonRounds > 0 || input.savedTokens > 0 : saving > missCost;
  const unit = priced ? 'USD' : 'input-token units';
  const figures = `saving ${format(saving)} over ${horizonRounds} round${horizonRounds === 1 ? '' : 's'} against a cache miss of ${format(missCost)} ${unit}`;
  return {
    prune,
    horizonRounds,
    missCost,
    saving,
    reason: prune ? `Eliding pays for its cache miss (${figures}).` : `Eliding would not pay for its cache miss (${figures}).`,
  };
}

function format(value: number): string {
  return value >= 100 ? String(Math.round(value)) : value.toPrecision(3);
}
