// Both dialects report usage with the same structure under different names, and compatible
// servers differ in what they count where. The rules live here once, so every provider's usage
// means the same thing (see `Usage` in ir.ts):
// - no counts means unknown usage; unknown cached tokens stay null;
// - input includes cached tokens, as every OpenAI-style API counts them; DeepSeek reports its
//   cache hits as top-level `prompt_cache_hit_tokens` (prompt_tokens = hit + miss);
// - output includes reasoning. OpenAI counts reasoning inside completion/output tokens; xAI and
//   Gemini behind OpenAI-compatible layers leave it out of them but in `total_tokens`
//   (total = input + output + reasoning), so what the total holds beyond input and output is
//   generated tokens the output count left out, and is added back.

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
  const reportedOutput = readNumber(raw, names.output);
  if (inputTokens === null || reportedOutput === null) return null;
  const total = readNumber(raw, 'total_tokens');
  const reasoning = readNumber(raw, names.outputDetails, 'reasoning_tokens');

  let outputTokens = reportedOutput;
  let reasoningTokens = reasoning ?? 0;
  const leftOut = total === null ? 0 : total - inputTokens - reportedOutput;
  // Only when the gap is the reported reasoning, or nothing else could explain it (no reasoning
  // count at all): a gap next to a different reasoning count is left alone rather than guessed at.
  if (leftOut > 0 && (reasoning === null || reasoning === 0 || reasoning === leftOut)) {
    outputTokens = reportedOutput + leftOut;
    reasoningTokens = leftOut;
  }

  return {
    inputTokens,
    cachedInputTokens: readNumber(raw, names.inputDetails, 'cached_tokens') ?? readNumber(raw, 'prompt_cache_hit_tokens'),
    outputTokens,
    reasoningTokens,
    totalTokens: total ?? inputTokens + outputTokens,
    raw,
  };
}
