// What a session's compaction is set to: the tuning a caller may adjust (mode, budgets, retries,
// the cheap pass's floors) and the settings the hooks run with, resolved from the model catalog
// and config (compaction-settings.ts) with the tuning on top.

import type { ModelPricing, PromptCaching } from '../model/index.js';
import { DEFAULT_USER_BUDGET_TOKENS } from './apply-compaction.js';
import type { ResolvedCompaction, SettingsWarning } from './compaction-settings.js';
import { DEFAULT_TRANSCRIPT_CLIP_CHARS } from './summary-request.js';

/**
 * `full`: everything below. `seed`: the original design only, kept for comparison (benchmarks):
 * reported usage only, checked between rounds only, no cheap pass, no overflow recovery, no
 * guards, and a failed summary fails the run.
 */
export type CompactionMode = 'full' | 'seed';

export interface CompactionTuning {
  mode: CompactionMode;
  userBudgetTokens: number;
  /** Tool outputs and call arguments are clipped to this in the summarizer's transcript. */
  clipChars: number;
  /** Consecutive failed or ineffective compactions before auto-compaction is switched off. */
  maxConsecutiveFailures: number;
  summaryAttempts: number;
  retryBaseDelayMs: number;
  /** The cheap pass is used only if it reclaims at least this much; default max(1000, 5 % of the threshold). */
  pruneMinimumTokens: number | null;
  /** The most recent tool output the cheap pass never touches; default min(40,000, 25 % of the threshold). */
  pruneProtectTokens: number | null;
  /** Tokens each request carries outside history (tool schemas), added to full estimates. */
  overheadTokens: number;
  /**
   * Ask for the summary in the live form first (the conversation plus a closing instruction, a
   * prompt-cache hit), the transcript form as the fallback. Off: the transcript form only.
   */
  liveSummary: boolean;
}

/** The length the cheap pass's cost rule expects of a first summary (tokens). */
export const TYPICAL_SUMMARY_TOKENS = 2_000;

export const DEFAULT_COMPACTION_TUNING: CompactionTuning = {
  mode: 'full',
  userBudgetTokens: DEFAULT_USER_BUDGET_TOKENS,
  clipChars: DEFAULT_TRANSCRIPT_CLIP_CHARS,
  maxConsecutiveFailures: 3,
  summaryAttempts: 3,
  retryBaseDelayMs: 500,
  pruneMinimumTokens: null,
  pruneProtectTokens: null,
  overheadTokens: 0,
  liveSummary: true,
};

export interface CompactionSettings extends CompactionTuning {
  model: string;
  contextWindow: number;
  maxOutputTokens: number;
  /** Compact once the context reaches this many tokens. */
  threshold: number;
  /** Extra summary instructions (config), added to the template. */
  instructions: string | null;
  /** Shown once, at the first check (e.g. the model is not in the catalog). */
  warnings: SettingsWarning[];
  /** The model's price and caching, for the cheap pass's cost rule (prune-economics.ts); null: not known. */
  pricing: ModelPricing | null;
  promptCaching: PromptCaching | null;
}

/** Settings for the hooks from resolved config, with optional tuning on top. */
export function compactionSettings(resolved: ResolvedCompaction, tuning: Partial<CompactionTuning> = {}): CompactionSettings {
  const merged = { ...DEFAULT_COMPACTION_TUNING, ...tuning };
  if (merged.mode === 'seed' && tuning.userBudgetTokens === undefined) {
    // The seed budgeted 20,000 characters.
    merged.userBudgetTokens = 5_000;
  }
  return {
    ...merged,
    model: resolved.model,
    contextWindow: resolved.limits.contextWindow,
    maxOutputTokens: resolved.limits.maxOutputTokens,
    threshold: resolved.threshold,
    instructions: resolved.instructions,
    warnings: resolved.warnings,
    pricing: resolved.modelEntry.pricing,
    promptCaching: resolved.modelEntry.promptCaching,
  };
}
