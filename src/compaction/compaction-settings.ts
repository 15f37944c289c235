// Where the compaction numbers come from: `--context-window` over `models.<name>` in
// `<home>/config.json` over the built-in catalog (model/) over a documented default; `--compact-at`
// over `compaction.compactAt` over 85 % of the window. Resolved once per runner, so a bad value is
// a usage error before any model call.

import { join } from 'node:path';
import { z } from 'zod';
import { modelOverrideSchema, resolveModel, type ModelEntry, type ModelLimits, type ModelOverride } from '../model/index.js';
import { readProjectFile } from '../workspace/index.js';
import {
  CompactionConfigError,
  compactAtTokens,
  DEFAULT_COMPACT_AT,
  parseCompactAt,
  parseContextWindow,
  type CompactAt,
} from './compact-at.js';

const positiveTokens = z.number().int().positive();

const compactionSectionSchema = z.strictObject({
  instructions: z.string().optional(),
  compactAt: z.union([z.string(), positiveTokens]).optional(),
});

// Other parts of Glassbox keep their own keys in the same file; only ours are checked here.
const configFileSchema = z.looseObject({
  models: z.record(z.string(), modelOverrideSchema).optional(),
  compaction: compactionSectionSchema.optional(),
});

/** Where the context window came from. */
export type LimitsSource = 'catalog' | 'config' | 'flag' | 'default';

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

/** One schema problem as `key.path: what is wrong`, naming an unknown key itself. */
function describeIssue(issue: z.core.$ZodIssue | undefined): string {
  if (issue === undefined) return 'invalid configuration';
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((key) => [...issue.path, key].join('.'));
    return `${keys.join(', ')}: unknown setting${keys.length > 1 ? 's' : ''}`;
  }
  const where = issue.path.length > 0 ? issue.path.map(String).join('.') : 'the file';
  return `${where}: ${issue.message}`;
}

/** Check a parsed config object; `path` only labels errors. */
export function parseCompactionConfig(value: unknown, path: string): CompactionConfig {
  const result = configFileSchema.safeParse(value);
  if (!result.success) throw new CompactionConfigError(`${path}: ${describeIssue(result.error.issues[0])}`);
  return { models: result.data.models ?? {}, compaction: result.data.compaction ?? {}, path };
}

/** Read `<home>/config.json`; a missing file is an empty configuration, a broken one an error. */
export async function readCompactionConfig(home: string): Promise<CompactionConfig> {
  const path = configFilePath(home);
  let text: string | null;
  try {
    // The same guarded read as the MCP settings of this file: a FIFO here must not hang every run.
    text = await readProjectFile(path, { root: null });
  } catch (error) {
    throw new CompactionConfigError((error as Error).message);
  }
  if (text === null) return { ...EMPTY_COMPACTION_CONFIG };
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
  /** The catalog entry with any `models.<name>` override merged in (limits, caching, price). */
  modelEntry: ModelEntry;
  limits: ModelLimits;
  limitsSource: LimitsSource;
  compactAt: CompactAt;
  threshold: number;
  /**
   * What a request may hold: the window, or the model's input limit when that is smaller (gpt-5:
   * 272k of 400k). The threshold is a share of it, and every face shows fullness against it.
   */
  inputWindow: number;
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

function groupDigits(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

export function resolveCompactionSettings(input: ResolveCompactionInput): ResolvedCompaction {
  const config = input.config ?? EMPTY_COMPACTION_CONFIG;
  const where = config.path ?? 'config.json';
  const warnings: SettingsWarning[] = [];
  const resolvedModel = resolveModel(input.model, config.models);
  const modelEntry = resolvedModel.entry;
  let limits: ModelLimits = { contextWindow: modelEntry.contextWindow, maxOutputTokens: modelEntry.maxOutputTokens };
  let limitsSource: LimitsSource = resolvedModel.matched === null ? 'default' : 'catalog';
  if (resolvedModel.override?.contextWindow !== undefined) limitsSource = 'config';
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
  // Some models take less input than their window (gpt-5: 272k of 400k, the rest is for output);
  // a share of the window would then sit past what a request may hold. An explicit window wins.
  const inputWindow =
    input.contextWindow === undefined && modelEntry.maxInputTokens !== undefined
      ? Math.min(limits.contextWindow, modelEntry.maxInputTokens)
      : limits.contextWindow;
  const threshold = compactAtTokens(compactAt, inputWindow);
  if (threshold >= inputWindow) {
    const what = inputWindow < limits.contextWindow ? 'input limit' : 'context window';
    warnings.push({
      code: 'COMPACT_AT_BEYOND_WINDOW',
      message: `The compaction threshold (${groupDigits(threshold)} tokens) is not below the ${what} (${groupDigits(inputWindow)}); requests may overflow before compaction starts, and only the overflow recovery will compact.`,
    });
  }
  const instructions = config.compaction.instructions?.trim() ? config.compaction.instructions.trim() : null;
  return { model: input.model, modelEntry, limits, limitsSource, compactAt, threshold, inputWindow, instructions, warnings };
}
