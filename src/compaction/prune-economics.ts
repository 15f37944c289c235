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
// model without prompt caching (p_c = p_in) passes that test, since a miss there costs nothing.
//
// At a threshold crossing the alternative to eliding is not "keep everything" but a summary, which
// follows when the cheap pass declines, and both only postpone the next crossing. So the pass must
// also beat the summary per round, in the long run: T_p the pruned history, T_s what a summarized
// one starts with (system, kept user messages, a summary at its length cap O), Θ the threshold,
// p_out the output price:
//
//   prune    = (T_p + R × g / 2) × p_c + miss cost / R        its R rounds ride near the threshold
//   summary  = (T_s + Θ) / 2 × p_c + C / L                    a cycle of L = (Θ − T_s) / g rounds
//   C        = Θ × p_c + O × p_out + T_s × (p_miss − p_c)     the summary call, then its first request
//   prune  ⇔  saving > miss cost  and  prune < summary
//
// Measured on 100-round sessions (docs/benchmarks.md, "Context economy: cache and cost"), eliding
// at every crossing cost 1.21–1.34× summarizing live; this rule is what keeps it from doing so.

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
  /** When a summary is the alternative (it is, unless the pass is a fallback). */
  summaryAlternative?: {
    /** T_p: the pruned history's tokens. */
    prunedTokens: number;
    /** T_s: the tokens a summarized history would start with. */
    summarizedTokens: number;
    /** Θ: the compaction threshold. */
    thresholdTokens: number;
    /** O: the summary's length cap (its output tokens, at most). */
    summaryOutputTokens: number;
  };
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
  // Output is billed at several times input on every priced model; 5× when no price is known.
  let outputPrice = 5;
  const priced = input.pricing !== null;
  if (input.pricing !== null) {
    const rates = ratesFor(input.pricing, input.requestTokens);
    inputPrice = rates.inputPerMillion / 1_000_000;
    cachedPrice = rates.cachedInputPerMillion / 1_000_000;
    outputPrice = rates.outputPerMillion / 1_000_000;
    missPrice = input.promptCaching === 'explicit' ? (rates.cacheWritePerMillion ?? rates.inputPerMillion) / 1_000_000 : inputPrice;
  }
  if (input.promptCaching === 'none') cachedPrice = inputPrice;
  const missCost = Math.max(0, input.missedTokens) * Math.max(0, missPrice - cachedPrice);
  const saving = Math.max(0, input.savedTokens) * horizonRounds * cachedPrice;
  const paysForMiss = input.promptCaching === 'none' ? horizonRounds > 0 || input.savedTokens > 0 : saving > missCost;
  const unit = priced ? 'USD' : 'input-token units';
  const rounds = `${horizonRounds} round${horizonRounds === 1 ? '' : 's'}`;
  const figures = `saving ${format(saving)} over ${rounds} against a cache miss of ${format(missCost)} ${unit}`;
  const base = { horizonRounds, missCost, saving };
  if (!paysForMiss) return { ...base, prune: false, reason: `Eliding would not pay for its cache miss (${figures}).` };
  const alternative = input.summaryAlternative;
  if (alternative === undefined) return { ...base, prune: true, reason: `Eliding pays for its cache miss (${figures}).` };
  const missRate = Math.max(0, missPrice - cachedPrice);
  const summarized = Math.max(0, alternative.summarizedTokens);
  const threshold = Math.max(summarized + growth, alternative.thresholdTokens);
  const pruneCost =
    (Math.max(0, alternative.prunedTokens) + (horizonRounds * growth) / 2) * cachedPrice + missCost / Math.max(1, horizonRounds);
  const cycleRounds = Math.max(1, (threshold - summarized) / growth);
  const summaryCall = threshold * cachedPrice + Math.max(0, alternative.summaryOutputTokens) * outputPrice + summarized * missRate;
  const summaryCost = ((summarized + threshold) / 2) * cachedPrice + summaryCall / cycleRounds;
  const against = `${format(pruneCost)} against ${format(summaryCost)} ${unit} per round for a summary`;
  return pruneCost < summaryCost
    ? { ...base, prune: true, reason: `Eliding pays for its cache miss (${figures}) and costs less than a summary (${against}).` }
    : { ...base, prune: false, reason: `Eliding would cost more than a summary (${against}).` };
}

function format(value: number): string {
  return value >= 100 ? String(Math.round(value)) : value.toPrecision(3);
}
