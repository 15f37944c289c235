// What Glassbox knows about models: limits (so compaction follows the real context window instead
// of a constant), whether they reason and cache prompts, and list prices (for cost estimates). The
// built-in figures (`model-catalog-entries.ts`) are the providers' published numbers on the date
// each entry names; they drift, which is why `models` in `<home>/config.json` overrides them (the
// schema for that is here, the file is read by compaction/) and `--context-window` overrides both.

import { z } from 'zod';
import { BUILT_IN_MODELS } from './model-catalog-entries.js';
import { PROMPT_CACHING, REASONING_SUPPORT, type ModelEntry, type ModelLimits, type ModelPricing, type PriceRates } from './model-entry.js';

export * from './model-entry.js';

// The cost estimate belongs with the prices; exported from here so `model/index.ts` has one line for both.

export const DEFAULT_MODEL_LIMITS: ModelLimits = { contextWindow: 128_000, maxOutputTokens: 16_384 };

/**
 * Lower-case, and drop what only says where the model is served from: a provider path
 * (`openai/`, `meta-llama/`) and a `models/` resource prefix.
 */
export function normalizeModelName(name: string): string {
  const lower = name.trim().toLowerCase();
  const slash = lower.lastIndexOf('/');
  return slash === -1 ? lower : lower.slice(slash + 1);
}

/**
 * The form names are compared in: a dot between two digits is a dash. Providers write one version
 * both ways (Anthropic's `claude-haiku-4-5`, OpenRouter's `anthropic/claude-haiku-4.5`; OpenAI's
 * `gpt-5.1`), and compared as written, `claude-haiku-4.5` found the shorter `claude-haiku-4` entry.
 */
function comparable(name: string): string {
  return name.replace(/(\d)\.(?=\d)/g, '$1-');
}

/**
 * Whether catalog name `prefix` (comparable form) names `name` or a variant of it. A prefix that
 * ends in a digit must not run on into another digit: `gpt-4-1` (gpt-4.1) is not a prefix of
 * `gpt-4-1106-preview`, nor `claude-haiku-4` of `claude-haiku-45`.
 */
function namesPrefix(name: string, prefix: string): boolean {
  if (!name.startsWith(prefix)) return false;
  return !(/\d$/.test(prefix) && /^\d/.test(name.slice(prefix.length)));
}

/**
 * What may follow a catalog name and still be the same model at the same price: dated snapshots
 * (`-2025-08-07`, `-20250929`, `-2411`, `-0709`), `-latest`, and preview/experimental tags.
 * Anything else (`gpt-5.5`, `o3-mini`, `grok-4-fast`) is a different model: it gets the family's
 * limits, which are a fair guess, but no price, which would not be.
 */
const SAME_MODEL_SUFFIX = /^(?:-(?:\d{4}-\d{2}-\d{2}|\d{8}|\d{4}|\d{2}-\d{2}|latest|(?:preview|exp)(?:-[\d-]+)?))*$/;

export interface ModelLookup {
  /** The matched catalog entry, or the default one (`matched` null). */
  entry: ModelEntry;
  /** The catalog name that matched (the longest prefix), or null when the default was used. */
  matched: string | null;
  /** The name is that entry's model or a snapshot of it, so its price applies. */
  exact: boolean;
  /** Kept for callers that only need the limits. */
  limits: ModelLimits;
}

function defaultEntry(name: string): ModelEntry {
  return {
    name: normalizeModelName(name),
    provider: null,
    ...DEFAULT_MODEL_LIMITS,
    reasoning: null,
    promptCaching: null,
    pricing: null,
    source: 'default',
    asOf: '',
  };
}

function copyEntry(entry: ModelEntry): ModelEntry {
  const pricing =
    entry.pricing === null
      ? null
      : { ...entry.pricing, ...(entry.pricing.tiers ? { tiers: entry.pricing.tiers.map((tier) => ({ ...tier })) } : {}) };
  return { ...entry, pricing };
}

/** The longest catalog prefix of the normalized name, or the documented default. */
export function lookupModel(name: string): ModelLookup {
  const normalized = comparable(normalizeModelName(name));
  let best: ModelEntry | null = null;
  for (const candidate of BUILT_IN_MODELS) {
    const candidateName = comparable(candidate.name);
    if (namesPrefix(normalized, candidateName) && (best === null || candidateName.length > comparable(best.name).length)) best = candidate;
  }
  if (best === null) {
    const entry = defaultEntry(name);
    return { entry, matched: null, exact: false, limits: { contextWindow: entry.contextWindow, maxOutputTokens: entry.maxOutputTokens } };
  }
  const exact = SAME_MODEL_SUFFIX.test(normalized.slice(comparable(best.name).length));
  const entry = copyEntry(best);
  if (!exact) entry.pricing = null;
  return { entry, matched: best.name, exact, limits: { contextWindow: entry.contextWindow, maxOutputTokens: entry.maxOutputTokens } };
}

/** The limits part of `lookupModel`. */
export function lookupModelLimits(name: string): { limits: ModelLimits; matched: string | null } {
  const { limits, matched } = lookupModel(name);
  return { limits, matched };
}

/** Every built-in entry, for docs and tests. */
export function modelCatalogEntries(): ReadonlyArray<Readonly<ModelEntry>> {
  return BUILT_IN_MODELS;
}

// ---- Overrides (`models` in `<home>/config.json`) ----

const positiveTokens = z.number().int().positive();
const usdPerMillion = z.number().finite().nonnegative();

const priceTierSchema = z.strictObject({
  aboveInputTokens: positiveTokens,
  inputPerMillion: usdPerMillion,
  cachedInputPerMillion: usdPerMillion.optional(),
  cacheWritePerMillion: usdPerMillion.optional(),
  outputPerMillion: usdPerMillion,
});

/** A price given in config replaces the built-in one whole; `null` removes it. */
const pricingSchema = z.strictObject({
  inputPerMillion: usdPerMillion,
  cachedInputPerMillion: usdPerMillion.optional(),
  cacheWritePerMillion: usdPerMillion.optional(),
  outputPerMillion: usdPerMillion,
  tiers: z.array(priceTierSchema).optional(),
});

/** One `models.<name>` value: any entry field, merged over the built-in entry. */
export const modelOverrideSchema = z.strictObject({
  contextWindow: positiveTokens.optional(),
  maxOutputTokens: positiveTokens.optional(),
  maxInputTokens: positiveTokens.optional(),
  reasoning: z.enum(REASONING_SUPPORT).optional(),
  promptCaching: z.enum(PROMPT_CACHING).optional(),
  pricing: pricingSchema.nullable().optional(),
});

export type ModelOverride = z.infer<typeof modelOverrideSchema>;

function pricingFromOverride(value: NonNullable<ModelOverride['pricing']>): ModelPricing {
  // An omitted cached rate means "no discount known": bill cached tokens as input.
  const rates = (r: {
    inputPerMillion: number;
    cachedInputPerMillion?: number;
    cacheWritePerMillion?: number;
    outputPerMillion: number;
  }): PriceRates => ({
    inputPerMillion: r.inputPerMillion,
    cachedInputPerMillion: r.cachedInputPerMillion ?? r.inputPerMillion,
    ...(r.cacheWritePerMillion === undefined ? {} : { cacheWritePerMillion: r.cacheWritePerMillion }),
    outputPerMillion: r.outputPerMillion,
  });
  const pricing: ModelPricing = rates(value);
  if (value.tiers && value.tiers.length > 0) {
    pricing.tiers = [...value.tiers]
      .sort((a, b) => a.aboveInputTokens - b.aboveInputTokens)
      .map((tier) => ({ aboveInputTokens: tier.aboveInputTokens, ...rates(tier) }));
  }
  return pricing;
}

/** The configured override for a model: the exact name, else the longest configured prefix. */
export function findModelOverride(
  overrides: Readonly<Record<string, ModelOverride>>,
  model: string,
): { key: string; override: ModelOverride } | null {
  const name = comparable(normalizeModelName(model));
  let best: { key: string; normalized: string; override: ModelOverride } | null = null;
  for (const [key, override] of Object.entries(overrides)) {
    const normalizedKey = comparable(normalizeModelName(key));
    if (name === normalizedKey || key.trim().toLowerCase() === model.trim().toLowerCase()) return { key, override };
    if (namesPrefix(name, normalizedKey) && (best === null || normalizedKey.length > best.normalized.length))
      best = { key, normalized: normalizedKey, override };
  }
  return best === null ? null : { key: best.key, override: best.override };
}

export interface ResolvedModel {
  /** The catalog entry with the config override merged over it. */
  entry: ModelEntry;
  /** The catalog name that matched, or null. */
  matched: string | null;
  /** The config key whose override applied, or null. */
  overrideKey: string | null;
  override: ModelOverride | null;
}

/**
 * The model as Glassbox should treat it: the built-in entry (or the default for an unknown name),
 * with the configured override's fields on top. An override may also define a model the catalog
 * does not know (a local `qwen3-coder:30b` with its own window and no price).
 */
export function resolveModel(name: string, overrides: Readonly<Record<string, ModelOverride>> = {}): ResolvedModel {
  const lookup = lookupModel(name);
  const found = findModelOverride(overrides, name);
  if (found === null) return { entry: lookup.entry, matched: lookup.matched, overrideKey: null, override: null };
  const { key, override } = found;
  const entry: ModelEntry = { ...lookup.entry };
  if (lookup.matched === null) {
    entry.name = key;
    entry.source = 'config';
  } else {
    entry.source = `${entry.source}; overridden by config models.${key}`;
  }
  if (override.contextWindow !== undefined) entry.contextWindow = override.contextWindow;
  if (override.maxOutputTokens !== undefined) entry.maxOutputTokens = override.maxOutputTokens;
  if (override.maxInputTokens !== undefined) entry.maxInputTokens = override.maxInputTokens;
  if (override.reasoning !== undefined) entry.reasoning = override.reasoning;
  if (override.promptCaching !== undefined) entry.promptCaching = override.promptCaching;
  if (override.pricing !== undefined) entry.pricing = override.pricing === null ? null : pricingFromOverride(override.pricing);
  return { entry, matched: lookup.matched, overrideKey: key, override };
}
