// Both dialects report usage with the same structure under different names. The rules for what
// is missing live here once: no counts means unknown usage, unknown cached tokens stay null.

import type { Usage } from './ir.js';
import { readNumber } from './read-number.js';

/** Where one dialect keeps each count in its usage object. */
export interface UsageFieldNames {
  input: string;
  output: string;
  /** The object holding `cached_tokens`. */
  inputDetails: string;
  /** The object holding `reasoning_tokens`. */
  outputDetails: string;
}

/**
 * Normalize a wire usage object. Returns null when there is none or it lacks the token counts
 * (compatible servers vary): a guess would be worse than an honest "unknown".
 */
export function normalizeUsage(raw: unknown, names: UsageFieldNames): Usage | null {
  const inputTokens = readNumber(raw, names.input);
  const outputTokens = readNumber(raw, names.output);
  if (inputTokens === null || outputTokens === null) return null;
  return {
    inputTokens,
    cachedInputTokens: readNumber(raw, names.inputDetails, 'cached_tokens'),
    outputTokens,
    reasoningTokens: readNumber(raw, names.outputDetails, 'reasoning_tokens') ?? 0,
    totalTokens: readNumber(raw, 'total_tokens') ?? inputTokens + outputTokens,
    raw,
  };
}
