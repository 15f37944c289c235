// What the model catalog knows about one model: limits, reasoning and caching support, list
// prices. The catalog's data, its lookups and the cost estimate all build on these types.

export interface ModelLimits {
  /** Tokens the model accepts in one request, input and output together. */
  contextWindow: number;
  /** The most output tokens one response may have. */
  maxOutputTokens: number;
}

/**
 * `none`: does not reason. `always`: reasons on every answer, the amount cannot be set
 * (deepseek-reasoner, grok-4). `effort`: reasoning can be tuned or switched (an effort level or a
 * thinking budget: GPT-5, o-series, Claude, Gemini 2.5, Qwen3).
 */
export const REASONING_SUPPORT = ['none', 'always', 'effort'] as const;
export type ReasoningSupport = (typeof REASONING_SUPPORT)[number];

/**
 * `automatic`: the provider reuses a repeated prompt prefix by itself and bills it at the cached
 * rate (OpenAI, Gemini 2.5+, DeepSeek, xAI, DashScope). `explicit`: only blocks marked with
 * `cache_control` are cached, and writing them costs extra (Anthropic). `none`: no cache discount.
 */
export const PROMPT_CACHING = ['automatic', 'explicit', 'none'] as const;
export type PromptCaching = (typeof PROMPT_CACHING)[number];

/** USD per million tokens. */
export interface PriceRates {
  inputPerMillion: number;
  /** Input tokens served from the prompt cache; equal to `inputPerMillion` when there is no discount. */
  cachedInputPerMillion: number;
  /** Input tokens written to an explicit cache (Anthropic's 5-minute write); absent: billed as input. */
  cacheWritePerMillion?: number;
  /** Every generated token, reasoning included. */
  outputPerMillion: number;
}

/**
 * Rates for requests whose input is larger than `aboveInputTokens` (Gemini 2.5 Pro over 200k,
 * DashScope's context tiers). Like the providers, the whole request is billed at the tier's rates.
 */
export interface PriceTier extends PriceRates {
  aboveInputTokens: number;
}

export interface ModelPricing extends PriceRates {
  /** Ascending by `aboveInputTokens`. */
  tiers?: readonly PriceTier[];
}

export type ModelProvider = 'openai' | 'anthropic' | 'google' | 'deepseek' | 'xai' | 'mistral' | 'alibaba' | 'open-weights' | 'glassbox';

export interface ModelEntry extends ModelLimits {
  /** The catalog name (a prefix of the names it matches), the config key, or the name asked for. */
  name: string;
  provider: ModelProvider | null;
  /** Set when the provider caps input below `contextWindow - maxOutputTokens` (GPT-5: 272k). */
  maxInputTokens?: number;
  /** null: not known. */
  reasoning: ReasoningSupport | null;
  /** null: not known. */
  promptCaching: PromptCaching | null;
  /** The first-party provider's list price; null: no price known (local models, unconfirmed numbers). */
  pricing: ModelPricing | null;
  /** Where the numbers come from: the provider pages read, `config`, or `default`. */
  source: string;
  /** When the source was read (YYYY-MM), '' for config and default entries. */
  asOf: string;
  /** What the numbers do not capture (retirement, modes priced differently, …). */
  note?: string;
}

/** Assumed for a model the catalog does not know; compaction warns about it. */
