import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  DEFAULT_MODEL_LIMITS,
  estimateCost,
  lookupModel,
  lookupModelLimits,
  modelCatalogEntries,
  modelOverrideSchema,
  resolveModel,
  type CostEstimate,
  type ModelOverride,
  type Usage,
} from '../../src/model/index.js';

function close(actual: CostEstimate | null, expected: CostEstimate): void {
  assert.ok(actual !== null, 'expected a cost');
  for (const key of Object.keys(expected) as Array<keyof CostEstimate>) {
    assert.ok(Math.abs(actual[key] - expected[key]) < 1e-12, `${key}: ${actual[key]} != ${expected[key]}`);
  }
}

function usage(inputTokens: number, cachedInputTokens: number | null, outputTokens: number): Usage {
  return { inputTokens, cachedInputTokens, outputTokens, reasoningTokens: 0, totalTokens: inputTokens + outputTokens, raw: null };
}

function override(value: unknown): ModelOverride {
  return modelOverrideSchema.parse(value);
}

describe('model catalog lookup', () => {
  test('knows common OpenAI, Anthropic and open models, by longest prefix', () => {
    const cases: Array<[string, number]> = [
      ['gpt-5', 400_000],
      ['gpt-5-mini', 400_000],
      ['gpt-5-chat-latest', 128_000],
      ['gpt-4.1-mini-2025-04-14', 1_047_576],
      ['gpt-4o-2024-08-06', 128_000],
      ['gpt-4o-mini', 128_000],
      ['o3', 200_000],
      ['o4-mini', 200_000],
      ['claude-sonnet-4-20250514', 200_000],
      ['claude-3-5-haiku-latest', 200_000],
      ['meta-llama/Llama-3.1-8B-Instruct', 131_072],
      ['llama3.2:3b', 131_072],
      ['qwen2.5-coder:32b', 32_768],
      ['qwen3:8b', 40_960],
      ['mistral-large-latest', 131_072],
      ['mistral:7b', 32_768],
      ['deepseek-chat', 131_072],
      ['gemma3:12b', 131_072],
      ['gemma2:9b', 8_192],
    ];
    for (const [name, window] of cases) {
      const lookup = lookupModelLimits(name);
      assert.equal(lookup.limits.contextWindow, window, name);
      assert.notEqual(lookup.matched, null, name);
    }
    assert.equal(lookupModelLimits('claude-opus-4-1').limits.maxOutputTokens, 32_000);
    assert.equal(lookupModelLimits('claude-sonnet-4-5').limits.maxOutputTokens, 64_000);
    assert.equal(lookupModelLimits('gpt-4o').limits.maxOutputTokens, 16_384);
  });

  test('an unknown model gets the documented default, with nothing else claimed', () => {
    const lookup = lookupModel('my-private-model');
    assert.equal(lookup.matched, null);
    assert.deepEqual(lookup.limits, DEFAULT_MODEL_LIMITS);
    assert.equal(DEFAULT_MODEL_LIMITS.contextWindow, 128_000);
    assert.equal(lookup.entry.pricing, null);
    assert.equal(lookup.entry.reasoning, null);
    assert.equal(lookup.entry.promptCaching, null);
    assert.equal(lookup.entry.source, 'default');
  });

  test('provider paths, resource prefixes, dated snapshots and aliases find the priced entry', () => {
    const cases: Array<[string, string, number]> = [
      ['openai/gpt-5-mini', 'gpt-5-mini', 0.25],
      ['gpt-5-mini-2025-08-07', 'gpt-5-mini', 0.25],
      ['GPT-5', 'gpt-5', 1.25],
      ['anthropic/claude-sonnet-4-5', 'claude-sonnet-4-5', 3],
      ['claude-sonnet-4-5-20250929', 'claude-sonnet-4-5', 3],
      ['claude-opus-4-0', 'claude-opus-4-0', 15],
      ['claude-opus-4-20250514', 'claude-opus-4', 15],
      ['claude-3-5-haiku-latest', 'claude-3-5-haiku', 0.8],
      ['deepseek-chat', 'deepseek-chat', 0.14],
      ['gemini-2.5-pro', 'gemini-2.5-pro', 1.25],
      ['models/gemini-2.5-flash', 'gemini-2.5-flash', 0.3],
      ['google/gemini-2.5-flash-lite-preview-09-2025', 'gemini-2.5-flash-lite', 0.1],
      ['mistral-large-2411', 'mistral-large-2411', 2],
      ['codestral-latest', 'codestral', 0.3],
      ['grok-4.20-0309-reasoning', 'grok-4.20-0309-reasoning', 1.25],
      ['qwen3-coder-plus-2025-09-23', 'qwen3-coder-plus', 1],
    ];
    for (const [name, matched, input] of cases) {
      const lookup = lookupModel(name);
      assert.equal(lookup.matched, matched, name);
      assert.equal(lookup.exact, true, name);
      assert.equal(lookup.entry.pricing?.inputPerMillion, input, name);
    }
  });

  test('a family match gives the family limits but no price: a newer or smaller model costs something else', () => {
    for (const [name, family] of [
      ['gpt-5.5', 'gpt-5'],
      ['o3-mini', 'o3'],
      ['gpt-5-codex', 'gpt-5'],
      ['grok-4-fast-reasoning', 'grok-4'],
      ['claude-opus-4-7', 'claude-opus-4'],
      ['gemini-2.5-flash-image', 'gemini-2.5-flash'],
      ['mistral-large-latest', 'mistral-large'],
    ] as const) {
      const lookup = lookupModel(name);
      assert.equal(lookup.matched, family, name);
      assert.equal(lookup.entry.pricing, null, name);
    }
    assert.equal(lookupModel('gpt-5.5').limits.contextWindow, 400_000);
  });

  test('lookups hand out copies: changing one does not change the catalog', () => {
    const first = lookupModel('gemini-2.5-pro');
    first.entry.contextWindow = 1;
    first.entry.pricing!.tiers![0]!.inputPerMillion = 99;
    const second = lookupModel('gemini-2.5-pro');
    assert.equal(second.entry.contextWindow, 1_048_576);
    assert.equal(second.entry.pricing?.tiers?.[0]!.inputPerMillion, 2.5);
  });

  test('every entry is well formed and says where its numbers come from', () => {
    const names = new Set<string>();
    for (const entry of modelCatalogEntries()) {
      assert.equal(entry.name, entry.name.toLowerCase(), entry.name);
      assert.ok(!names.has(entry.name), `duplicate ${entry.name}`);
      names.add(entry.name);
      for (const value of [entry.contextWindow, entry.maxOutputTokens, entry.maxInputTokens ?? 1])
        assert.ok(Number.isSafeInteger(value) && value > 0, entry.name);
      assert.ok(entry.maxOutputTokens <= entry.contextWindow, entry.name);
      assert.ok(entry.source.length > 0, entry.name);
      assert.match(entry.asOf, /^\d{4}-\d{2}$/, entry.name);
      const pricing = entry.pricing;
      if (pricing === null) continue;
      let previous = 0;
      for (const rates of [pricing, ...(pricing.tiers ?? [])]) {
        for (const value of [rates.inputPerMillion, rates.cachedInputPerMillion, rates.outputPerMillion, rates.cacheWritePerMillion ?? 0])
          assert.ok(value >= 0, entry.name);
        assert.ok(rates.cachedInputPerMillion <= rates.inputPerMillion, `${entry.name}: cached input costs more than input`);
      }
      for (const tier of pricing.tiers ?? []) {
        assert.ok(
          tier.aboveInputTokens > previous && tier.aboveInputTokens < entry.contextWindow,
          `${entry.name}: tiers ascend inside the window`,
        );
        previous = tier.aboveInputTokens;
      }
      if (entry.promptCaching === 'explicit')
        assert.ok(pricing.cacheWritePerMillion !== undefined, `${entry.name}: explicit caching needs a write rate`);
    }
    // The providers the catalog promises to cover all have priced entries.
    const priced = new Set(
      modelCatalogEntries()
        .filter((entry) => entry.pricing !== null)
        .map((entry) => entry.provider),
    );
    for (const provider of ['openai', 'anthropic', 'google', 'deepseek', 'xai', 'mistral', 'alibaba'])
      assert.ok(priced.has(provider as never), provider);
  });
});

describe('model overrides', () => {
  test('fields are merged over the built-in entry; the rest stays', () => {
    const resolved = resolveModel('claude-sonnet-4-5-20250929', { 'claude-sonnet-4-5': override({ contextWindow: 1_000_000 }) });
    assert.equal(resolved.overrideKey, 'claude-sonnet-4-5');
    assert.equal(resolved.matched, 'claude-sonnet-4-5');
    assert.equal(resolved.entry.contextWindow, 1_000_000);
    assert.equal(resolved.entry.maxOutputTokens, 64_000);
    assert.equal(resolved.entry.pricing?.outputPerMillion, 15);
    assert.equal(resolved.entry.promptCaching, 'explicit');
  });

  test('an override can define a model the catalog does not know', () => {
    const resolved = resolveModel('acme/coder-7b', {
      'coder-7b': override({ contextWindow: 16_000, maxOutputTokens: 4_000, reasoning: 'none' }),
    });
    assert.equal(resolved.matched, null);
    assert.equal(resolved.entry.name, 'coder-7b');
    assert.equal(resolved.entry.source, 'config');
    assert.equal(resolved.entry.contextWindow, 16_000);
    assert.equal(resolved.entry.reasoning, 'none');
    assert.equal(resolved.entry.pricing, null);
  });

  test('a configured price replaces the built-in one; a missing cached rate means no discount; null removes it', () => {
    const priced = resolveModel('gpt-5', {
      'gpt-5': override({
        pricing: {
          inputPerMillion: 1,
          outputPerMillion: 4,
          tiers: [
            { aboveInputTokens: 300_000, inputPerMillion: 2, outputPerMillion: 8 },
            { aboveInputTokens: 100_000, inputPerMillion: 1.5, cachedInputPerMillion: 0.1, outputPerMillion: 6 },
          ],
        },
      }),
    });
    assert.deepEqual(priced.entry.pricing, {
      inputPerMillion: 1,
      cachedInputPerMillion: 1,
      outputPerMillion: 4,
      tiers: [
        { aboveInputTokens: 100_000, inputPerMillion: 1.5, cachedInputPerMillion: 0.1, outputPerMillion: 6 },
        { aboveInputTokens: 300_000, inputPerMillion: 2, cachedInputPerMillion: 2, outputPerMillion: 8 },
      ],
    });
    assert.equal(resolveModel('gpt-5', { 'gpt-5': override({ pricing: null }) }).entry.pricing, null);
    assert.equal(lookupModel('gpt-5').entry.pricing?.inputPerMillion, 1.25, 'the catalog itself is unchanged');
  });

  test('the exact configured name wins over a shorter configured prefix', () => {
    const overrides = { qwen3: override({ contextWindow: 10_000 }), 'qwen3-coder:30b': override({ contextWindow: 32_768 }) };
    assert.equal(resolveModel('qwen3-coder:30b', overrides).entry.contextWindow, 32_768);
    assert.equal(resolveModel('qwen3:8b', overrides).entry.contextWindow, 10_000);
  });
});

describe('estimateCost', () => {
  test('cached input at the cached rate, the rest of the input at the input rate, output at the output rate', () => {
    const gpt5 = lookupModel('gpt-5').entry;
    // 1M input of which 400k cached, 100k output: 600k × 1.25 + 400k × 0.125 + 100k × 10 (per million).
    close(estimateCost(usage(1_000_000, 400_000, 100_000), gpt5), { input: 0.75, cachedInput: 0.05, cacheWrite: 0, output: 1, total: 1.8 });
    // Unknown cached tokens: all input at the input rate.
    close(estimateCost(usage(1_000_000, null, 0), gpt5), { input: 1.25, cachedInput: 0, cacheWrite: 0, output: 0, total: 1.25 });
  });

  test('no price, no estimate', () => {
    assert.equal(estimateCost(usage(1_000, 0, 1_000), lookupModel('llama3.2:3b').entry), null);
    assert.equal(estimateCost(usage(1_000, 0, 1_000), lookupModel('my-private-model').entry), null);
    assert.equal(estimateCost(usage(1_000, 0, 1_000), { pricing: null }), null);
  });

  test('cache writes at the write rate, or at the input rate when the model has none', () => {
    const sonnet = lookupModel('claude-sonnet-4-5').entry;
    // 100k input: 50k read from cache, 20k written, 30k fresh; 10k output.
    close(estimateCost({ ...usage(100_000, 50_000, 10_000), cacheWriteInputTokens: 20_000 }, sonnet), {
      input: 0.09,
      cachedInput: 0.015,
      cacheWrite: 0.075,
      output: 0.15,
      total: 0.33,
    });
    close(
      estimateCost(
        { inputTokens: 1_000_000, cachedInputTokens: 0, cacheWriteInputTokens: 1_000_000, outputTokens: 0 },
        lookupModel('gpt-4o').entry,
      ),
      {
        input: 0,
        cachedInput: 0,
        cacheWrite: 2.5,
        output: 0,
        total: 2.5,
      },
    );
  });

  test('a long request is billed whole at its tier', () => {
    const pro = lookupModel('gemini-2.5-pro').entry;
    close(estimateCost(usage(200_000, 0, 1_000), pro), { input: 0.25, cachedInput: 0, cacheWrite: 0, output: 0.01, total: 0.26 });
    close(estimateCost(usage(300_000, 100_000, 1_000), pro), { input: 0.5, cachedInput: 0.025, cacheWrite: 0, output: 0.015, total: 0.54 });
  });

  test('inconsistent reports cannot produce negative costs', () => {
    const entry = lookupModel('gpt-4o-mini').entry;
    close(estimateCost({ ...usage(1_000_000, 2_000_000, -5), cacheWriteInputTokens: 7 }, entry), {
      input: 0,
      cachedInput: 0.075,
      cacheWrite: 0,
      output: 0,
      total: 0.075,
    });
    close(estimateCost(usage(0, 0, 0), lookupModel('glassbox-demo').entry), {
      input: 0,
      cachedInput: 0,
      cacheWrite: 0,
      output: 0,
      total: 0,
    });
  });
});

test('Claude 5 models get their 1M window and 128K output (the anthropic wire defaults to claude-sonnet-5-5)', async () => {
  const { resolveModel } = await import('../../src/model/index.js');
  for (const name of ['claude-sonnet-5-5', 'anthropic/claude-sonnet-5.5', 'claude-opus-5-5', 'claude-sonnet-5']) {
    const { entry } = resolveModel(name);
    assert.equal(entry.contextWindow, 1_000_000, name);
    assert.equal(entry.maxOutputTokens, 128_000, name);
  }
});

describe('model names written with dots or dashes (OpenRouter ids)', () => {
  // OpenRouter writes Anthropic's versions with dots (https://openrouter.ai/anthropic/claude-haiku-4.5:
  // "anthropic/claude-haiku-4.5"), Anthropic with dashes (claude-haiku-4-5-20251001).
  test('find the entry of the same model, whichever way the version is written', () => {
    const cases: Array<[string, string, boolean]> = [
      ['anthropic/claude-haiku-4.5', 'claude-haiku-4-5', true],
      ['claude-haiku-4-5-20251001', 'claude-haiku-4-5', true],
      ['anthropic/claude-sonnet-4.5', 'claude-sonnet-4-5', true],
      ['anthropic/claude-opus-4.1', 'claude-opus-4-1', true],
      ['anthropic/claude-3.5-haiku', 'claude-3-5-haiku', true],
      ['anthropic/claude-3.7-sonnet', 'claude-3-7-sonnet', true],
      ['openai/gpt-4.1-mini', 'gpt-4.1-mini', true],
      ['gpt-5.1', 'gpt-5.1', true],
      ['x-ai/grok-4.20', 'grok-4.20', true],
      ['google/gemini-2.5-flash', 'gemini-2.5-flash', true],
      ['qwen2.5-coder:7b', 'qwen2.5', false],
    ];
    for (const [name, matched, exact] of cases) {
      const found = lookupModel(name);
      assert.equal(found.matched, matched, name);
      assert.equal(found.exact, exact, name);
    }
    assert.equal(lookupModel('anthropic/claude-haiku-4.5').entry.pricing?.inputPerMillion, 1);
  });

  test('a version number does not run on into another one', () => {
    // gpt-4-1106-preview is a GPT-4 Turbo snapshot, not GPT-4.1 (compared as gpt-4-1…).
    assert.equal(lookupModel('gpt-4-1106-preview').matched, 'gpt-4');
    assert.equal(lookupModel('claude-haiku-45').matched, 'claude-');
  });

  test('config overrides match the same way', () => {
    const found = resolveModel('anthropic/claude-haiku-4.5', { 'claude-haiku-4-5': override({ contextWindow: 123_456 }) });
    assert.equal(found.overrideKey, 'claude-haiku-4-5');
    assert.equal(found.entry.contextWindow, 123_456);
  });

  test('knows Kimi K2.5, GLM-4.7 and MiniMax-M2.1, as their makers and OpenRouter name them', () => {
    const cases: Array<[string, number, number]> = [
      ['kimi-k2.5', 262_144, 32_768],
      ['moonshotai/kimi-k2.5', 262_144, 32_768],
      ['glm-4.7', 200_000, 128_000],
      ['z-ai/glm-4.7', 200_000, 128_000],
      ['MiniMax-M2.1', 204_800, 131_072],
      ['minimax/minimax-m2.1', 204_800, 131_072],
    ];
    for (const [name, window, output] of cases) {
      const found = lookupModel(name);
      assert.notEqual(found.matched, null, name);
      assert.equal(found.limits.contextWindow, window, name);
      assert.equal(found.limits.maxOutputTokens, output, name);
    }
  });
});
