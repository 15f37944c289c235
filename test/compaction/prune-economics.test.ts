// The cheap pass's cost rule (issue 23 item 12) at catalog prices: gpt-5 (automatic caching,
// $1.25 input / $0.125 cached per million, openai.com/api/pricing) and claude-sonnet-4-5 (explicit
// caching, $3 input / $0.30 cache read / $3.75 cache write, platform.claude.com/docs/en/about-claude/pricing),
// as model-catalog-entries.ts records them.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ASSUMED_CACHED_INPUT_RATIO, pruneEconomics } from '../../src/compaction/index.js';
import { lookupModel } from '../../src/model/index.js';

const gpt5 = lookupModel('gpt-5').entry;
const sonnet = lookupModel('claude-sonnet-4-5').entry;

describe('prune economics', () => {
  test('miss cost U × (p_in − p_c) against saving S × ⌊S / g⌋ × p_c, at gpt-5 prices', () => {
    const verdict = pruneEconomics({
      savedTokens: 30_000,
      missedTokens: 10_000,
      growthPerRound: 2_000,
      requestTokens: 60_000,
      pricing: gpt5.pricing,
      promptCaching: gpt5.promptCaching,
    });
    assert.equal(verdict.horizonRounds, 15);
    assert.ok(Math.abs(verdict.missCost - (10_000 * (1.25 - 0.125)) / 1e6) < 1e-12);
    assert.ok(Math.abs(verdict.saving - (30_000 * 15 * 0.125) / 1e6) < 1e-12);
    assert.equal(verdict.prune, true);
  });

  test('a prune whose outputs come back within a few rounds, with most of the history after it, does not pay', () => {
    const verdict = pruneEconomics({
      savedTokens: 8_000,
      missedTokens: 50_000,
      growthPerRound: 4_000,
      requestTokens: 100_000,
      pricing: gpt5.pricing,
      promptCaching: gpt5.promptCaching,
    });
    assert.equal(verdict.horizonRounds, 2);
    assert.equal(verdict.prune, false);
    assert.match(verdict.reason, /^Eliding would not pay for its cache miss \(saving .* USD\)\.$/);
  });

  test('on an explicit cache the miss is billed at the write price (Anthropic 1.25×), so the same prune can pay on gpt-5 and not on Sonnet', () => {
    // S × R = 10 U: gpt-5 needs S × R > U × (1.25 − 0.125) / 0.125 = 9 U; Sonnet needs 11.5 U.
    const input = { savedTokens: 20_000, missedTokens: 20_000, growthPerRound: 2_000, requestTokens: 80_000 };
    const onGpt5 = pruneEconomics({ ...input, pricing: gpt5.pricing, promptCaching: gpt5.promptCaching });
    const onSonnet = pruneEconomics({ ...input, pricing: sonnet.pricing, promptCaching: sonnet.promptCaching });
    assert.equal(onGpt5.horizonRounds, 10);
    assert.equal(onGpt5.prune, true);
    assert.equal(onSonnet.prune, false);
    assert.ok(Math.abs(onSonnet.missCost - (20_000 * (3.75 - 0.3)) / 1e6) < 1e-12);
  });

  test('no price known: the common 90 % cache discount is assumed; no prompt caching: a miss costs nothing', () => {
    const input = { savedTokens: 8_000, missedTokens: 50_000, growthPerRound: 4_000, requestTokens: 100_000 };
    const unknown = pruneEconomics({ ...input, pricing: null, promptCaching: null });
    assert.equal(unknown.missCost, 50_000 * (1 - ASSUMED_CACHED_INPUT_RATIO));
    assert.equal(unknown.prune, false);
    assert.equal(pruneEconomics({ ...input, pricing: null, promptCaching: 'none' }).prune, true);
  });

  test('at a crossing the pass must also cost less per round than the summary that follows if it declines', () => {
    // The first test's prune pays for its miss, but its 15 rounds ride a 60k history, where a
    // summary would cycle from 12k up to the 80k threshold.
    const input = {
      savedTokens: 30_000,
      missedTokens: 10_000,
      growthPerRound: 2_000,
      requestTokens: 60_000,
      pricing: gpt5.pricing,
      promptCaching: gpt5.promptCaching,
    };
    const alternative = { prunedTokens: 60_000, summarizedTokens: 12_000, thresholdTokens: 80_000, summaryOutputTokens: 8_000 };
    const againstSummary = pruneEconomics({ ...input, summaryAlternative: alternative });
    // Per million: prune (60k + 15k) × 0.125 + 11,250 / 15; summary (12k + 80k) / 2 × 0.125 +
    // (80k × 0.125 + 8k × 10 + 12k × 1.125) / 34.
    const pruneCost = ((60_000 + 15_000) * 0.125 + (10_000 * 1.125) / 15) / 1e6;
    const summaryCost = (46_000 * 0.125 + (80_000 * 0.125 + 8_000 * 10 + 12_000 * 1.125) / 34) / 1e6;
    assert.ok(pruneCost > summaryCost, `${pruneCost} > ${summaryCost}`);
    assert.equal(againstSummary.prune, false);
    assert.match(againstSummary.reason, /^Eliding would cost more than a summary \(.* USD per round for a summary\)\.$/);
    // A summary that would leave almost the threshold (a huge kept prompt): eliding wins.
    const crowded = pruneEconomics({ ...input, summaryAlternative: { ...alternative, prunedTokens: 40_000, summarizedTokens: 70_000 } });
    assert.equal(crowded.prune, true);
    assert.match(crowded.reason, /costs less than a summary/);
    // Without the alternative (a fallback after a failed summary) only the miss rule applies.
    assert.equal(pruneEconomics(input).prune, true);
  });
});
