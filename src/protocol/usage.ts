// Token usage and error facts: what a model call cost and why a run failed, as run events carry
// them, sessions store them and the API serves them. The types are derived from the schemas.

import { z } from 'zod';
import { USAGE_STAGES } from './enumerations.js';

// zod's int() means a safe integer, and its numbers are finite: the sessions' fast checks follow that.
export const countSchema = z.number().int().min(0);
export const amountSchema = z.number().min(0);

/** Normalized token usage of one or more model calls; `raw` keeps the provider's own object for audit. */
export const usageSchema = z.object({
  /**
   * Every input token, cached ones included (as OpenAI, xAI, DeepSeek, Gemini, OpenRouter and vLLM
   * count them; a dialect whose provider reports cache reads apart, like Anthropic's input_tokens,
   * adds them in).
   */
  inputTokens: amountSchema,
  /**
   * The part of `inputTokens` served from cache (`cached_tokens` in the input details; DeepSeek's
   * `prompt_cache_hit_tokens`); null when the provider does not say.
   */
  cachedInputTokens: amountSchema.nullable(),
  /**
   * The part of `inputTokens` written to an explicit prompt cache (Anthropic's
   * `cache_creation_input_tokens`, billed above the input rate); absent where the provider has no
   * such writes.
   */
  cacheWriteInputTokens: amountSchema.optional(),
  /**
   * Every token the model generated, reasoning included (as OpenAI and Anthropic count them). Where
   * a provider leaves reasoning out of its output count but in its total (xAI; Gemini behind
   * OpenAI-compatible layers), model/normalize-usage.ts adds the difference back.
   */
  outputTokens: amountSchema,
  /** The part of `outputTokens` spent on reasoning (0 when not reported). */
  reasoningTokens: amountSchema,
  /** The provider's total when it reports one, else input + output. */
  totalTokens: amountSchema,
  raw: z.unknown(),
});
export type Usage = z.infer<typeof usageSchema>;

export const usageStageSchema = z.enum(USAGE_STAGES);

/** A usage total labelled with what the model calls were for. */
export const stagedUsageSchema = z.object({
  /** Sum over every model call in the run. */
  total: usageSchema,
  /** Per-stage sums, e.g. `{ turn: …, compaction: … }`. */
  byStage: z.partialRecord(usageStageSchema, usageSchema),
  calls: countSchema,
});
export type StagedUsage = z.infer<typeof stagedUsageSchema>;

export const runErrorInfoSchema = z.object({ code: z.string(), message: z.string() });
export type RunErrorInfo = z.infer<typeof runErrorInfoSchema>;
