// `reasoningEffort` → Anthropic's thinking settings, and the `max_tokens` that goes with them.
//
// Anthropic has two ways to ask for thinking, and which one a model takes depends on its
// generation (platform.claude.com models overview and thinking docs):
// - Adaptive thinking, `thinking: {type: 'adaptive'}` with `output_config: {effort}` (low, medium,
//   high): the Claude 4.6 models and everything since (Opus 4.7+, Sonnet 5, Opus 5, Fable, Haiku 5.5).
//   On Opus 4.7 and later a fixed budget is refused with a 400; on the 4.6 models it is deprecated.
// - Extended thinking with a fixed budget, `thinking: {type: 'enabled', budget_tokens}`
//   (at least 1024, and below `max_tokens`): Claude 3.7 and the 4.0–4.5 models, Haiku 4.5 among
//   them (its effort setting is "not supported"). Anthropic-compatible servers that serve other
//   models take this older form too.
//
// The mapping (README, "Claude"):
//
// | effort  | adaptive models              | budget models                          |
// | ------- | ---------------------------- | -------------------------------------- |
// | minimal | adaptive, effort `low`       | thinking left off                      |
// | low     | adaptive, effort `low`       | enabled, budget 2 048                  |
// | medium  | adaptive, effort `medium`    | enabled, budget 8 192                  |
// | high    | adaptive, effort `high`      | enabled, budget 24 576                 |
//
// `minimal` is never "off" on adaptive models: Fable thinks always and cannot turn it off, so the
// lowest effort is the one setting every such model accepts. Adaptive thinking asks for
// `display: 'summarized'`, because the newest models omit the readable thinking by default and
// Glassbox shows what the model did. No effort at all sends no thinking settings: the model's own
// default applies (adaptive, high effort on the current models).

import type { OutputConfig, ThinkingConfigParam } from '@anthropic-ai/sdk/resources/messages';
import type { ReasoningEffort } from '../ir.js';

/**
 * `max_tokens` when the request sets no output limit. Anthropic requires one; 32 000 is within
 * every current model's output cap (64K for Haiku 4.5, 128K for the 5.x models) and leaves a
 * 24 576-token thinking budget room for an answer.
 */
export const DEFAULT_MAX_TOKENS = 32_000;

/** Budget-model thinking budgets per effort (`minimal` leaves thinking off). */
export const THINKING_BUDGETS: Readonly<Record<Exclude<ReasoningEffort, 'minimal'>, number>> = {
  low: 2_048,
  medium: 8_192,
  high: 24_576,
};

/** Room kept for the visible answer above a thinking budget, which counts toward max_tokens. */
const ANSWER_ROOM_TOKENS = 4_096;

// Claude 3.x, the Opus/Sonnet 4.0, 4.1 and 4.5 models (dated snapshots too) and Haiku 4.5.
const BUDGET_MODELS = /^claude-(?:3-|(?:opus|sonnet)-4(?:-[015])?(?:$|-\d{8}|@)|haiku-4-5)/;

/** The family part of a model name: after a provider path (`anthropic/…`) or region prefix (`us.anthropic.…`). */
function modelFamily(model: string): string | null {
  const name = model.trim().toLowerCase();
  const at = name.indexOf('claude-');
  return at === -1 ? null : name.slice(at);
}

/** Whether the model takes adaptive thinking with an effort, rather than a fixed budget. */
export function usesAdaptiveThinking(model: string): boolean {
  const family = modelFamily(model);
  return family !== null && !BUDGET_MODELS.test(family);
}

export interface ThinkingSettings {
  thinking?: ThinkingConfigParam;
  output_config?: OutputConfig;
  max_tokens: number;
}

export function thinkingSettings(
  model: string,
  effort: ReasoningEffort | undefined,
  maxOutputTokens: number | undefined,
): ThinkingSettings {
  const maxTokens = maxOutputTokens ?? DEFAULT_MAX_TOKENS;
  if (effort === undefined) return { max_tokens: maxTokens };
  if (usesAdaptiveThinking(model)) {
    return {
      thinking: { type: 'adaptive', display: 'summarized' },
      output_config: { effort: effort === 'minimal' ? 'low' : effort },
      max_tokens: maxTokens,
    };
  }
  if (effort === 'minimal') return { max_tokens: maxTokens };
  const budget = THINKING_BUDGETS[effort];
  // budget_tokens must stay below max_tokens (a 400 otherwise), and the answer needs room too.
  return { thinking: { type: 'enabled', budget_tokens: budget }, max_tokens: Math.max(maxTokens, budget + ANSWER_ROOM_TOKENS) };
}
