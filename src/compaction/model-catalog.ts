// What Glassbox knows about common models' limits, so the compaction threshold follows the real
// context window instead of a constant. Figures are the providers' published limits at the time of
// writing; they drift, which is why config (`models` in `<home>/config.json`) and
// `--context-window` override them.

export interface ModelLimits {
  /** Tokens the model accepts in one request, input and output together. */
  contextWindow: number;
  /** The most output tokens one response may have. */
  maxOutputTokens: number;
}

/** Assumed for a model the catalog does not know; a warning says so. */
export const DEFAULT_MODEL_LIMITS: ModelLimits = { contextWindow: 128_000, maxOutputTokens: 16_384 };

interface CatalogEntry extends ModelLimits {
  prefix: string;
}

function entry(prefix: string, contextWindow: number, maxOutputTokens: number): CatalogEntry {
  return { prefix, contextWindow, maxOutputTokens };
}

/**
 * Matched by the longest prefix of the normalized model name, so dated snapshots
 * (`gpt-4o-2024-08-06`) and size suffixes (`qwen2.5-coder:32b`) find their family.
 */
const CATALOG: readonly CatalogEntry[] = [
  // Glassbox's own offline demo model (a script, not an AI): known, so the demo shows no warning.
  entry('glassbox-demo', 128_000, 16_384),
  // OpenAI
  entry('gpt-5', 400_000, 128_000),
  entry('gpt-5-chat', 128_000, 16_384),
  entry('gpt-5.1-chat', 128_000, 16_384),
  entry('gpt-5.2-chat', 128_000, 16_384),
  entry('gpt-4.1', 1_047_576, 32_768),
  entry('gpt-4o', 128_000, 16_384),
  entry('chatgpt-4o', 128_000, 16_384),
  entry('gpt-4-turbo', 128_000, 4_096),
  entry('gpt-4.5', 128_000, 16_384),
  entry('gpt-4', 8_192, 8_192),
  entry('gpt-3.5-turbo', 16_385, 4_096),
  entry('gpt-oss', 131_072, 32_768),
  entry('o1', 200_000, 100_000),
  entry('o1-mini', 128_000, 65_536),
  entry('o3', 200_000, 100_000),
  entry('o4-mini', 200_000, 100_000),
  entry('codex-mini', 200_000, 100_000),
  // Anthropic (the newer models' larger windows are opt-in betas; 200k is what a plain call gets)
  entry('claude-', 200_000, 8_192),
  entry('claude-3-7-sonnet', 200_000, 64_000),
  entry('claude-sonnet-4', 200_000, 64_000),
  entry('claude-opus-4', 200_000, 32_000),
  entry('claude-opus-4-5', 200_000, 64_000),
  entry('claude-haiku-4', 200_000, 64_000),
  // Google
  entry('gemini-1.5', 1_048_576, 8_192),
  entry('gemini-2', 1_048_576, 8_192),
  entry('gemini-2.5', 1_048_576, 65_536),
  entry('gemma', 8_192, 8_192),
  entry('gemma3', 131_072, 8_192),
  entry('gemma-3', 131_072, 8_192),
  // Meta
  entry('llama-3', 8_192, 4_096),
  entry('llama3', 8_192, 4_096),
  entry('llama-3.1', 131_072, 8_192),
  entry('llama3.1', 131_072, 8_192),
  entry('llama-3.2', 131_072, 8_192),
  entry('llama3.2', 131_072, 8_192),
  entry('llama-3.3', 131_072, 8_192),
  entry('llama3.3', 131_072, 8_192),
  entry('llama-4', 1_048_576, 16_384),
  entry('llama4', 1_048_576, 16_384),
  // Alibaba
  entry('qwen2.5', 32_768, 8_192),
  entry('qwen-2.5', 32_768, 8_192),
  entry('qwen3', 40_960, 16_384),
  entry('qwen-3', 40_960, 16_384),
  entry('qwen3-coder', 262_144, 65_536),
  // Mistral
  entry('mistral', 32_768, 8_192),
  entry('mistral-large', 131_072, 8_192),
  entry('mistral-medium', 131_072, 8_192),
  entry('mistral-small', 131_072, 8_192),
  entry('mistral-nemo', 131_072, 8_192),
  entry('mixtral', 32_768, 8_192),
  entry('mixtral-8x22b', 65_536, 8_192),
  entry('codestral', 262_144, 8_192),
  entry('devstral', 131_072, 8_192),
  // DeepSeek
  entry('deepseek', 131_072, 8_192),
  entry('deepseek-chat', 131_072, 8_192),
  entry('deepseek-reasoner', 131_072, 65_536),
  entry('deepseek-r1', 131_072, 32_768),
  entry('deepseek-coder', 16_384, 4_096),
  entry('deepseek-coder-v2', 131_072, 8_192),
  // Microsoft
  entry('phi-4', 16_384, 4_096),
  entry('phi4', 16_384, 4_096),
];

/**
 * Lower-case, and drop what only says where the model is served from: a provider path
 * (`openai/`, `meta-llama/`) and a `models/` resource prefix.
 */
export function normalizeModelName(name: string): string {
  const lower = name.trim().toLowerCase();
  const slash = lower.lastIndexOf('/');
  return slash === -1 ? lower : lower.slice(slash + 1);
}

export type LimitsSource = 'catalog' | 'config' | 'flag' | 'default';

export interface ModelLookup {
  limits: ModelLimits;
  /** The catalog prefix that matched, or null when the default was used. */
  matched: string | null;
}

/** The longest catalog prefix of `name`, or the documented default. */
export function lookupModelLimits(name: string): ModelLookup {
  const normalized = normalizeModelName(name);
  let best: CatalogEntry | null = null;
  for (const candidate of CATALOG) {
    if (normalized.startsWith(candidate.prefix) && (best === null || candidate.prefix.length > best.prefix.length)) {
      best = candidate;
    }
  }
  if (best === null) return { limits: { ...DEFAULT_MODEL_LIMITS }, matched: null };
  return { limits: { contextWindow: best.contextWindow, maxOutputTokens: best.maxOutputTokens }, matched: best.prefix };
}

/** Every catalog entry, for docs and tests. */
export function modelCatalogEntries(): ReadonlyArray<Readonly<CatalogEntry>> {
  return CATALOG;
}
