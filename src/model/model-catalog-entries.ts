// The built-in model catalog: limits, reasoning, prompt caching and list prices (USD per million
// tokens, standard tier, no batch discount), with where each number comes from and when it was read.
// Names match by the longest prefix (see model-catalog.ts); a price only applies to the named model
// and its dated snapshots. Where a number could not be confirmed the price is null, never guessed.
//
// Prices are the first-party provider's. Routers and clouds (OpenRouter, Bedrock, Vertex, Azure)
// charge differently: override them in `<home>/config.json`.

import type { ModelEntry, ModelPricing, ModelProvider, PriceRates, PriceTier, PromptCaching, ReasoningSupport } from './model-entry.js';

interface Group {
  provider: ModelProvider;
  source: string;
  asOf: string;
  note?: string;
}

interface Spec {
  reasoning?: ReasoningSupport | null;
  caching?: PromptCaching | null;
  price?: ModelPricing | null;
  maxInputTokens?: number;
  note?: string;
  /** Further names (aliases) with the same numbers. */
  aliases?: string[];
  /** Overrides the group's (a newer page, another date). */
  source?: string;
  asOf?: string;
}

/** Input, cached input and output USD per million tokens, and the cache write rate where there is one. */
function rates(input: number, cachedInput: number, output: number, cacheWrite?: number): PriceRates {
  return {
    inputPerMillion: input,
    cachedInputPerMillion: cachedInput,
    outputPerMillion: output,
    ...(cacheWrite === undefined ? {} : { cacheWritePerMillion: cacheWrite }),
  };
}

function tier(aboveInputTokens: number, base: PriceRates): PriceTier {
  return { aboveInputTokens, ...base };
}

function tiered(base: PriceRates, ...tiers: PriceTier[]): ModelPricing {
  return { ...base, tiers };
}

function models(group: Group, rows: Array<[name: string, contextWindow: number, maxOutputTokens: number, spec?: Spec]>): ModelEntry[] {
  const out: ModelEntry[] = [];
  for (const [name, contextWindow, maxOutputTokens, spec = {}] of rows) {
    const note = spec.note ?? group.note;
    const entry: ModelEntry = {
      name,
      provider: group.provider,
      contextWindow,
      maxOutputTokens,
      ...(spec.maxInputTokens === undefined ? {} : { maxInputTokens: spec.maxInputTokens }),
      reasoning: spec.reasoning ?? null,
      promptCaching: spec.caching ?? null,
      pricing: spec.price ?? null,
      source: spec.source ?? group.source,
      asOf: spec.asOf ?? group.asOf,
      ...(note === undefined ? {} : { note }),
    };
    out.push(entry);
    for (const alias of spec.aliases ?? []) out.push({ ...entry, name: alias });
  }
  return out;
}

const GLASSBOX: Group = {
  provider: 'glassbox',
  source: 'Glassbox: the offline demo is a script, not a model, and costs nothing',
  asOf: '2026-11',
};

const OPENAI: Group = {
  provider: 'openai',
  source: 'OpenAI model pages and pricing (developers.openai.com/api/docs/models/<id>, /api/docs/pricing); cross-checked with models.dev',
  asOf: '2026-11',
};

const ANTHROPIC: Group = {
  provider: 'anthropic',
  source: 'Anthropic pricing and model pages (platform.claude.com/docs/en/about-claude/pricing, /docs/en/models/<id>/overview)',
  asOf: '2026-10',
  note: 'Cache writes are the 5-minute rate (the 1-hour write costs 2x input).',
};

const GOOGLE: Group = {
  provider: 'google',
  source: 'Gemini API pricing and models (ai.google.dev/gemini-api/docs/pricing, /docs/models); cross-checked with models.dev',
  asOf: '2026-06',
  note: 'Text input; audio input and context-cache storage (per hour) are billed separately and not included.',
};

const DEEPSEEK: Group = {
  provider: 'deepseek',
  source: 'DeepSeek models & pricing (api-docs.deepseek.com/quick_start/pricing)',
  asOf: '2026-05',
};

const XAI: Group = {
  provider: 'xai',
  source: 'xAI models (docs.x.ai/developers/models); cross-checked with models.dev before the retirement',
  asOf: '2026-05',
};

const MISTRAL: Group = {
  provider: 'mistral',
  source: 'Mistral pricing and models (mistral.ai/pricing, docs.mistral.ai/getting-started/models); cross-checked with models.dev',
  asOf: '2026-07',
  note: 'No cache discount published; Mistral publishes no output cap separate from the window, 8,192 is a conservative reserve.',
};

const ALIBABA: Group = {
  provider: 'alibaba',
  source:
    'Alibaba Cloud Model Studio pricing, international (alibabacloud.com/help/en/model-studio/model-pricing); cross-checked with models.dev',
  asOf: '2026-08',
};

const OPEN: Group = {
  provider: 'open-weights',
  source: 'model cards (context length as served by default); no price: run locally or priced by the host',
  asOf: '2026-11',
};

// Open-weights models their makers also serve by API. Windows and output caps from the model pages
// as hosts quote them; no price, because the first-party price pages could not be read to confirm
// one (third-party listings disagree): set `pricing` in config for the host you use.
const OPEN_API: Group = {
  provider: 'open-weights',
  source:
    'Moonshot (platform.moonshot.ai), Z.ai (docs.z.ai/guides/llm/glm-4.7) and MiniMax (platform.minimax.io/docs/guides/models-intro) model pages, as quoted by hosts (Vercel AI Gateway, Venice, OpenClaw); prices unconfirmed',
  asOf: '2026-12',
};

const RETIRED_XAI = 'Retired by xAI on 2026-05-15.';
const DEEPSEEK_ALIAS =
  'From 2026-04-26 DeepSeek listed this name as an alias of deepseek-v4-flash (1M context, 384K output) at this price, and scheduled ' +
  'its retirement for 2026-07-24; the later page prices deepseek-flash in CNY by time of day, which is not modelled. The window stays at ' +
  'the 128K the V3 generation, and most hosts serving this name, accept.';

export const BUILT_IN_MODELS: readonly ModelEntry[] = [
  ...models(GLASSBOX, [['glassbox-demo', 128_000, 16_384, { reasoning: 'none', caching: 'none', price: rates(0, 0, 0) }]]),

  ...models(OPENAI, [
    ['gpt-5', 400_000, 128_000, { reasoning: 'effort', caching: 'automatic', maxInputTokens: 272_000, price: rates(1.25, 0.125, 10) }],
    ['gpt-5-mini', 400_000, 128_000, { reasoning: 'effort', caching: 'automatic', maxInputTokens: 272_000, price: rates(0.25, 0.025, 2) }],
    [
      'gpt-5-nano',
      400_000,
      128_000,
      { reasoning: 'effort', caching: 'automatic', maxInputTokens: 272_000, price: rates(0.05, 0.005, 0.4) },
    ],
    ['gpt-5-chat', 128_000, 16_384, { reasoning: 'none', caching: 'automatic', price: rates(1.25, 0.125, 10) }],
    ['gpt-5.1', 400_000, 128_000, { reasoning: 'effort', caching: 'automatic', maxInputTokens: 272_000, price: rates(1.25, 0.125, 10) }],
    ['gpt-5.1-chat', 128_000, 16_384, { reasoning: 'none', caching: 'automatic' }],
    ['gpt-5.2', 400_000, 128_000, { reasoning: 'effort', caching: 'automatic', maxInputTokens: 272_000, price: rates(1.75, 0.175, 14) }],
    ['gpt-5.2-chat', 128_000, 16_384, { reasoning: 'none', caching: 'automatic' }],
    ['gpt-4.1', 1_047_576, 32_768, { reasoning: 'none', caching: 'automatic', price: rates(2, 0.5, 8) }],
    ['gpt-4.1-mini', 1_047_576, 32_768, { reasoning: 'none', caching: 'automatic', price: rates(0.4, 0.1, 1.6) }],
    ['gpt-4.1-nano', 1_047_576, 32_768, { reasoning: 'none', caching: 'automatic', price: rates(0.1, 0.025, 0.4) }],
    ['gpt-4o', 128_000, 16_384, { reasoning: 'none', caching: 'automatic', price: rates(2.5, 1.25, 10) }],
    ['gpt-4o-2024-05-13', 128_000, 4_096, { reasoning: 'none', caching: 'none', price: rates(5, 5, 15) }],
    ['gpt-4o-mini', 128_000, 16_384, { reasoning: 'none', caching: 'automatic', price: rates(0.15, 0.075, 0.6) }],
    ['chatgpt-4o', 128_000, 16_384, { reasoning: 'none' }],
    ['gpt-4-turbo', 128_000, 4_096, { reasoning: 'none' }],
    ['gpt-4.5', 128_000, 16_384, { reasoning: 'none' }],
    ['gpt-4', 8_192, 8_192, { reasoning: 'none' }],
    ['gpt-3.5-turbo', 16_385, 4_096, { reasoning: 'none' }],
    ['o1', 200_000, 100_000, { reasoning: 'effort', caching: 'automatic' }],
    ['o1-mini', 128_000, 65_536, { reasoning: 'always', caching: 'automatic' }],
    ['o3', 200_000, 100_000, { reasoning: 'effort', caching: 'automatic', price: rates(2, 0.5, 8) }],
    ['o4-mini', 200_000, 100_000, { reasoning: 'effort', caching: 'automatic', price: rates(1.1, 0.275, 4.4) }],
    ['codex-mini', 200_000, 100_000, { reasoning: 'effort', caching: 'automatic' }],
  ]),
  ...models(OPEN, [['gpt-oss', 131_072, 32_768, { reasoning: 'effort' }]]),

  ...models(ANTHROPIC, [
    // Any other Claude: the plain-call window; newer models' larger windows need their own entry.
    ['claude-', 200_000, 8_192, { caching: 'explicit' }],
    ['claude-3-haiku', 200_000, 4_096, { reasoning: 'none', caching: 'explicit', price: rates(0.25, 0.03, 1.25, 0.3) }],
    ['claude-3-opus', 200_000, 4_096, { reasoning: 'none', caching: 'explicit', price: rates(15, 1.5, 75, 18.75), note: 'Deprecated.' }],
    ['claude-3-5-haiku', 200_000, 8_192, { reasoning: 'none', caching: 'explicit', price: rates(0.8, 0.08, 4, 1) }],
    ['claude-3-5-sonnet', 200_000, 8_192, { reasoning: 'none', caching: 'explicit', note: 'Retired; no longer on the pricing page.' }],
    [
      'claude-3-7-sonnet',
      200_000,
      64_000,
      { reasoning: 'effort', caching: 'explicit', price: rates(3, 0.3, 15, 3.75), note: 'Deprecated.' },
    ],
    [
      'claude-sonnet-4',
      200_000,
      64_000,
      { reasoning: 'effort', caching: 'explicit', price: rates(3, 0.3, 15, 3.75), aliases: ['claude-sonnet-4-0'] },
    ],
    [
      'claude-sonnet-4-5',
      200_000,
      64_000,
      { reasoning: 'effort', caching: 'explicit', price: rates(3, 0.3, 15, 3.75), note: 'Deprecated; Anthropic retires it on 2026-11-30.' },
    ],
    ['claude-sonnet-4-6', 1_000_000, 64_000, { reasoning: 'effort', caching: 'explicit', price: rates(3, 0.3, 15, 3.75) }],
    [
      'claude-opus-4',
      200_000,
      32_000,
      { reasoning: 'effort', caching: 'explicit', price: rates(15, 1.5, 75, 18.75), aliases: ['claude-opus-4-0'] },
    ],
    ['claude-opus-4-1', 200_000, 32_000, { reasoning: 'effort', caching: 'explicit', price: rates(15, 1.5, 75, 18.75) }],
    ['claude-opus-4-5', 200_000, 64_000, { reasoning: 'effort', caching: 'explicit', price: rates(5, 0.5, 25, 6.25) }],
    ['claude-opus-4-6', 1_000_000, 128_000, { reasoning: 'effort', caching: 'explicit', price: rates(5, 0.5, 25, 6.25) }],
    ['claude-haiku-4', 200_000, 64_000, { reasoning: 'effort', caching: 'explicit' }],
    ['claude-haiku-4-5', 200_000, 64_000, { reasoning: 'effort', caching: 'explicit', price: rates(1, 0.1, 5, 1.25) }],
    // Claude 5 (platform.claude.com model pages, as of 2026-11): 1M window, 128K output, adaptive
    // thinking. Input/output list prices from those pages; cache reads at 0.1× and 5-minute writes
    // at 1.25× of input, Anthropic's standard multipliers. A newer or sibling 5.x model gets the
    // family's limits without a price.
    [
      'claude-sonnet-5',
      1_000_000,
      128_000,
      { reasoning: 'effort', caching: 'explicit', price: rates(2, 0.2, 10, 2.5), note: 'Legacy since Sonnet 5.5.' },
    ],
    [
      'claude-sonnet-5-5',
      1_000_000,
      128_000,
      { reasoning: 'effort', caching: 'explicit', price: rates(2, 0.2, 10, 2.5), aliases: ['claude-sonnet-5.5'] },
    ],
    ['claude-opus-5', 1_000_000, 128_000, { reasoning: 'effort', caching: 'explicit' }],
    [
      'claude-opus-5-5',
      1_000_000,
      128_000,
      { reasoning: 'effort', caching: 'explicit', price: rates(4, 0.4, 20, 5), aliases: ['claude-opus-5.5'] },
    ],
  ]),

  ...models(GOOGLE, [
    ['gemini-1.5', 1_048_576, 8_192, { reasoning: 'none' }],
    ['gemini-2', 1_048_576, 8_192, { reasoning: 'none' }],
    ['gemini-2.5', 1_048_576, 65_536, { reasoning: 'effort', caching: 'automatic' }],
    [
      'gemini-2.5-pro',
      1_048_576,
      65_536,
      { reasoning: 'effort', caching: 'automatic', price: tiered(rates(1.25, 0.125, 10), tier(200_000, rates(2.5, 0.25, 15))) },
    ],
    ['gemini-2.5-flash', 1_048_576, 65_536, { reasoning: 'effort', caching: 'automatic', price: rates(0.3, 0.03, 2.5) }],
    ['gemini-2.5-flash-lite', 1_048_576, 65_536, { reasoning: 'effort', caching: 'automatic', price: rates(0.1, 0.01, 0.4) }],
    ['gemini-3', 1_048_576, 65_536, { reasoning: 'effort', caching: 'automatic' }],
    [
      'gemini-3-pro-preview',
      1_048_576,
      65_536,
      {
        reasoning: 'effort',
        caching: 'automatic',
        price: tiered(rates(2, 0.2, 12), tier(200_000, rates(4, 0.4, 18))),
        note: 'Superseded by gemini-3.1-pro-preview.',
      },
    ],
    ['gemini-3-flash-preview', 1_048_576, 65_536, { reasoning: 'effort', caching: 'automatic', price: rates(0.5, 0.05, 3) }],
  ]),
  ...models(OPEN, [
    ['gemma', 8_192, 8_192],
    ['gemma3', 131_072, 8_192],
    ['gemma-3', 131_072, 8_192],
    ['llama-3', 8_192, 4_096],
    ['llama3', 8_192, 4_096],
    ['llama-3.1', 131_072, 8_192],
    ['llama3.1', 131_072, 8_192],
    ['llama-3.2', 131_072, 8_192],
    ['llama3.2', 131_072, 8_192],
    ['llama-3.3', 131_072, 8_192],
    ['llama3.3', 131_072, 8_192],
    ['llama-4', 1_048_576, 16_384],
    ['llama4', 1_048_576, 16_384],
    ['qwen2.5', 32_768, 8_192],
    ['qwen-2.5', 32_768, 8_192],
    ['qwen3', 40_960, 16_384, { reasoning: 'effort' }],
    ['qwen-3', 40_960, 16_384, { reasoning: 'effort' }],
    ['qwen3-coder', 262_144, 65_536, { reasoning: 'none' }],
    ['mistral', 32_768, 8_192],
    ['mixtral', 32_768, 8_192],
    ['mixtral-8x22b', 65_536, 8_192],
    ['deepseek-r1', 131_072, 32_768, { reasoning: 'always' }],
    ['deepseek-coder', 16_384, 4_096],
    ['deepseek-coder-v2', 131_072, 8_192],
    ['phi-4', 16_384, 4_096],
    ['phi4', 16_384, 4_096],
  ]),

  ...models(OPEN_API, [
    [
      'kimi-k2.5',
      262_144,
      32_768,
      { reasoning: 'effort', caching: 'automatic', note: 'No output cap confirmed: 32,768 is a reserve, not the limit.' },
    ],
    ['glm-4.7', 200_000, 128_000, { reasoning: 'effort', caching: 'automatic' }],
    ['minimax-m2.1', 204_800, 131_072, { reasoning: 'always', caching: 'automatic' }],
  ]),

  ...models(DEEPSEEK, [
    ['deepseek', 131_072, 8_192, { caching: 'automatic' }],
    ['deepseek-chat', 131_072, 8_192, { reasoning: 'none', caching: 'automatic', price: rates(0.14, 0.0028, 0.28), note: DEEPSEEK_ALIAS }],
    [
      'deepseek-reasoner',
      131_072,
      65_536,
      { reasoning: 'always', caching: 'automatic', price: rates(0.14, 0.0028, 0.28), note: DEEPSEEK_ALIAS },
    ],
  ]),

  ...models(XAI, [
    // Requests over 128K were billed at a higher tier whose cached rate could not be confirmed.
    [
      'grok-4',
      256_000,
      64_000,
      { reasoning: 'always', caching: 'automatic', note: `${RETIRED_XAI} No price: the long-context tier is unconfirmed.` },
    ],
    ['grok-3', 131_072, 8_192, { reasoning: 'none', caching: 'automatic', price: rates(3, 0.75, 15), note: RETIRED_XAI }],
    ['grok-code-fast', 256_000, 10_000, { reasoning: 'always', caching: 'automatic' }],
    ['grok-code-fast-1', 256_000, 10_000, { reasoning: 'always', caching: 'automatic', price: rates(0.2, 0.02, 1.5), note: RETIRED_XAI }],
    [
      'grok-4.20',
      1_000_000,
      30_000,
      {
        reasoning: 'always',
        caching: 'automatic',
        price: tiered(rates(1.25, 0.2, 2.5), tier(200_000, rates(2.5, 0.4, 5))),
        aliases: ['grok-4.20-0309-reasoning', 'grok-4.20-reasoning'],
        source: 'xAI model page (docs.x.ai/developers/models/grok-4.20-0309); output cap from models.dev',
        asOf: '2026-07',
      },
    ],
  ]),

  ...models(MISTRAL, [
    // `mistral-large-latest` is Large 3 on the API, `mistral-large` is Large 2 locally: the smaller window, no price.
    ['mistral-large', 131_072, 8_192, { reasoning: 'none', caching: 'none' }],
    ['mistral-large-2411', 131_072, 8_192, { reasoning: 'none', caching: 'none', price: rates(2, 2, 6) }],
    ['mistral-large-2512', 262_144, 8_192, { reasoning: 'none', caching: 'none', price: rates(0.5, 0.5, 1.5) }],
    ['mistral-medium', 131_072, 8_192, { reasoning: 'none', caching: 'none', price: rates(0.4, 0.4, 2) }],
    ['mistral-small', 131_072, 8_192],
    ['mistral-nemo', 131_072, 8_192],
    ['codestral', 256_000, 8_192, { reasoning: 'none', caching: 'none', price: rates(0.3, 0.3, 0.9) }],
    // Devstral Small (local, 128K) and Devstral 2 (API, 256K) share the name: the smaller window, no price.
    ['devstral', 131_072, 8_192, { reasoning: 'none', caching: 'none' }],
    ['devstral-2512', 262_144, 8_192, { reasoning: 'none', caching: 'none', price: rates(0.4, 0.4, 2) }],
    ['devstral-medium', 131_072, 8_192, { reasoning: 'none', caching: 'none', price: rates(0.4, 0.4, 2) }],
    ['devstral-small', 131_072, 8_192, { reasoning: 'none', caching: 'none', price: rates(0.1, 0.1, 0.3) }],
  ]),

  ...models(ALIBABA, [
    [
      'qwen3-coder-plus',
      1_048_576,
      65_536,
      {
        reasoning: 'none',
        caching: 'automatic',
        price: tiered(
          rates(1, 0.2, 5, 1.25),
          tier(32_000, rates(1.8, 0.36, 9, 2.25)),
          tier(128_000, rates(3, 0.6, 15, 3.75)),
          tier(256_000, rates(6, 1.2, 60, 7.5)),
        ),
      },
    ],
    [
      'qwen3-max',
      262_144,
      65_536,
      {
        reasoning: 'none',
        caching: 'automatic',
        price: tiered(rates(1.2, 0.24, 6, 1.5), tier(32_000, rates(2.4, 0.48, 12, 3)), tier(128_000, rates(3, 0.6, 15, 3.75))),
      },
    ],
    [
      'qwen-max',
      32_768,
      8_192,
      {
        reasoning: 'none',
        price: rates(1.6, 1.6, 6.4),
        note: 'Qwen2.5-Max. No cache discount confirmed: cached tokens are billed as input.',
      },
    ],
    [
      'qwen-plus',
      1_000_000,
      32_768,
      {
        reasoning: 'effort',
        caching: 'automatic',
        note: 'No price: thinking and non-thinking output are priced differently (and tiered by input length); set `pricing` in config for the mode you use.',
      },
    ],
  ]),
];
