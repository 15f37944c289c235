// What a run asks of the model besides the conversation, as one object: the CLI resolves it, the
// runner and the server hand it on whole, the loop turns it into each request's fields here. A new
// setting is a field below, its check, and the dialects that send it; nothing in between lists it.

import { dialectOf } from './dialects.js';
import type { ModelRequest, ReasoningEffort, WireApi } from './ir.js';

export interface ModelSettings {
  model: string;
  wireApi: WireApi;
  /** `--reasoning-effort`; undefined: not sent, the provider's default applies. */
  reasoningEffort?: ReasoningEffort;
  /**
   * `--max-output-tokens`: a cap on one answer. Chat sends `max_completion_tokens` (`max_tokens` to a
   * server that refuses it), Responses `max_output_tokens`, Anthropic `max_tokens` instead of its
   * default. Undefined: the provider's default (Anthropic: the dialect's).
   */
  maxOutputTokens?: number;
  /**
   * `--temperature`, 0–2. Sent only when set: several providers' reasoning models refuse it. A
   * dialect whose API takes no sampling parameters (`Dialect.acceptsTemperature`) never sends it.
   */
  temperature?: number;
}

export const MIN_TEMPERATURE = 0;
export const MAX_TEMPERATURE = 2;

/** Exactly the settings of `source` (a runner's or a server's settings), the unset ones left out. */
export function modelSettingsOf(source: ModelSettings): ModelSettings {
  return {
    model: source.model,
    wireApi: source.wireApi,
    ...(source.reasoningEffort === undefined ? {} : { reasoningEffort: source.reasoningEffort }),
    ...(source.maxOutputTokens === undefined ? {} : { maxOutputTokens: source.maxOutputTokens }),
    ...(source.temperature === undefined ? {} : { temperature: source.temperature }),
  };
}

/** What is wrong with the settings, in words naming the setting, or null. */
export function modelSettingsProblem(settings: ModelSettings): string | null {
  const { maxOutputTokens, temperature } = settings;
  if (maxOutputTokens !== undefined && !(Number.isSafeInteger(maxOutputTokens) && maxOutputTokens > 0)) {
    return `maxOutputTokens must be a positive whole number, got ${String(maxOutputTokens)}`;
  }
  if (temperature !== undefined && !(Number.isFinite(temperature) && temperature >= MIN_TEMPERATURE && temperature <= MAX_TEMPERATURE)) {
    return `temperature must be a number from ${MIN_TEMPERATURE} to ${MAX_TEMPERATURE}, got ${String(temperature)}`;
  }
  return null;
}

/** The request fields the settings fill in; unset settings are left out, so the provider's defaults apply. */
export function requestSettings(
  settings: ModelSettings,
): Pick<ModelRequest, 'model' | 'reasoningEffort' | 'maxOutputTokens' | 'temperature'> {
  const { reasoningEffort, maxOutputTokens, temperature } = settings;
  return {
    model: settings.model,
    ...(reasoningEffort === undefined ? {} : { reasoningEffort }),
    ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
    ...(temperature === undefined || !dialectOf(settings.wireApi).acceptsTemperature ? {} : { temperature }),
  };
}
