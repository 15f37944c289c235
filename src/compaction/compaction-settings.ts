// Where the compaction numbers come from: `--context-window` over `models.<name>` in
// `<home>/config.json` over the built-in catalog over a documented default; `--compact-at` over
// `compaction.compactAt` over 85 % of the window. Resolved once per runner, so a bad value is a
// usage error before any model call.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { CompactionConfigError, compactAtTokens, DEFAULT_COMPACT_AT, parseCompactAt, parseContextWindow, type CompactAt } from './compact-at.js';
import { lookupModelLimits, normalizeModelName, type LimitsSource, type ModelLimits } from './model-catalog.js';

const positiveTokens = z.number().int().positive();

const modelOverrideSchema = z.strictObject({
  contextWindow: positiveTokens.optional(),
  maxOutputTokens: positiveTokens.optional(),
});

const compactionSectionSchema = z.strictObject({
  instructions: z.string().optional(),
  compactAt: z.union([z.string(), positiveTokens]).optional(),
});

// Other parts of Glassbox keep their own keys in the same file; only ours are checked here.
const configFileSchema = z.looseObject({
  models: z.record(z.string(), modelOverrideSchema).optional(),
  compaction: compactionSectionSchema.optional(),
});

export type ModelOverride = z.infer<typeof modelOverrideSchema>;

export interface CompactionConfig {
  models: Record<string, ModelOverride>;
  compaction: { instructions?: string; compactAt?: string | number };
  /** Where it was read from, for error messages; null when there was no file. */
  path: string | null;
}

export const EMPTY_COMPACTION_CONFIG: CompactionConfig = { models: {}, compaction: {}, path: null };

export function configFilePath(home: string): string {
  return join(home, 'config.json');
}

/** Check a parsed config object; `path` only labels errors. */
export function parseCompactionConfig(value: unknown, path: string): CompactionConfig {
  const result = configFileSchema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue && issue.path.length > 0 ? issue.path.join('.') : 'the file';
    throw new CompactionConfigError(`${path}: ${where}: ${issue?.message ?? 'invalid configuration'}`);
  }
  return { models: result.data.models ?? {}, compaction: result.data.compaction ?? {}, path };
}

/** Read `<home>/config.json`; a missing file is an empty configuration, a broken one an error. */
export async function readCompactionConfig(home: string): Promise<CompactionConfig> {
  const path = configFilePath(home);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { ...EMPTY_COMPACTION_CONFIG };
    throw new CompactionConfigError(`cannot read ${path}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CompactionConfigError(`${path} is not valid JSON: ${(error as Error).message}`);
  }
  return parseCompactionConfig(value, path);
}

export interface SettingsWarning {
  code: string;
  message: string;
}

export interface ResolvedCompaction {
  model: string;
  limits: ModelLimits;
  limitsSource: LimitsSource;
  compactAt: CompactAt;
  threshold: number;
  /** Extra summary instructions from config, added to the template. */
  instructions: string | null;
  /** To be shown to the user as `warning` events (e.g. an unknown model). */
  warnings: SettingsWarning[];
}

export interface ResolveCompactionInput {
  model: string;
  /** `--context-window`, as typed. */
  contextWindow?: string;
  /** `--compact-at`, as typed. */
  compactAt?: string;
  config?: CompactionConfig;
}

/** The config entry for a model: the exact name, else the longest configured prefix. */
function configuredOverride(config: CompactionConfig, model: string): ModelOverride | null {
  const name = normalizeModelName(model);
  let best: { key: string; value: ModelOverride } | null = null;
  for (const [key, value] of Object.entries(config.models)) {
    const normalizedKey = normalizeModelName(key);
    if (name === normalizedKey || key.trim().toLowerCase() === model.trim().toLowerCase()) return value;
    if (name.startsWith(normalizedKey) && (best === null || normalizedKey.length > best.key.length)) best = { key: normalizedKey, value };
  }
  return best?.value ?? null;
}

function groupDigits(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

export function resolveCompactionSettings(input: ResolveCompactionInput): ResolvedCompaction {
  const config = input.config ?? EMPTY_COMPACTION_CONFIG;
  const where = config.path ?? 'config.json';
  const warnings: SettingsWarning[] = [];
  const catalog = lookupModelLimits(input.model);
  const override = configuredOverride(config, input.model);
  let limits: ModelLimits = { ...catalog.limits };
  let limitsSource: LimitsSource = catalog.matched === null ? 'default' : 'catalog';
  if (override?.contextWindow !== undefined) {
    limits.contextWindow = override.contextWindow;
    limitsSource = 'config';
  }
  if (override?.maxOutputTokens !== undefined) limits.maxOutputTokens = override.maxOutputTokens;
  if (input.contextWindow !== undefined) {
    limits = { ...limits, contextWindow: parseContextWindow(input.contextWindow) };
    limitsSource = 'flag';
  }
  if (limitsSource === 'default') {
    warnings.push({
      code: 'UNKNOWN_MODEL_WINDOW',
      message:
        `Model "${input.model}" is not in the model catalog; assuming a ${groupDigits(limits.contextWindow)}-token context window. ` +
        `Set --context-window, or "models": {"${input.model}": {"contextWindow": N}} in ${where}.`,
    });
  }

  let compactAt = DEFAULT_COMPACT_AT;
  if (input.compactAt !== undefined) {
    compactAt = parseCompactAt(input.compactAt, '--compact-at');
  } else if (config.compaction.compactAt !== undefined) {
    const value = config.compaction.compactAt;
    compactAt = typeof value === 'number' ? { kind: 'tokens', tokens: value } : parseCompactAt(value, `${where}: compaction.compactAt`);
  }
  const threshold = compactAtTokens(compactAt, limits.contextWindow);
  if (threshold >= limits.contextWindow) {
    warnings.push({
      code: 'COMPACT_AT_BEYOND_WINDOW',
      message: `The compaction threshold (${groupDigits(threshold)} tokens) is not below the context window (${groupDigits(limits.contextWindow)}); requests may overflow before compaction starts, and only the overflow recovery will compact.`,
    });
  }
  const instructions = config.compaction.instructions?.trim() ? config.compaction.instructions.trim() : null;
  return { model: input.model, limits, limitsSource, compactAt, threshold, instructions, warnings };
}
