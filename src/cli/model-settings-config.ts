// `modelSettings` in `<home>/config.json`: the model settings a user wants on every run without a
// flag (`--max-output-tokens`, `--temperature`, `--reasoning-effort` win over it). Only the user's
// own file is read, never a project's: a repository must not turn a user's settings.

import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_TEMPERATURE, MIN_TEMPERATURE, REASONING_EFFORTS, type ReasoningEffort } from '../model/index.js';
import { UsageError } from './usage-error.js';

export interface ConfiguredModelSettings {
  maxOutputTokens?: number;
  temperature?: number;
  reasoningEffort?: ReasoningEffort;
}

const KEYS = ['maxOutputTokens', 'temperature', 'reasoningEffort'];

/** The section, checked; a missing file or section is empty, a broken one a `UsageError` naming the key. */
export function readModelSettingsConfig(home: string): ConfiguredModelSettings {
  const path = join(home, 'config.json');
  let text: string;
  try {
    // Only a regular file: reading a FIFO put there would hang the run.
    if (!statSync(path).isFile()) return {};
    text = readFileSync(path, 'utf8');
  } catch {
    return {};
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${path} is not valid JSON: ${(error as Error).message}`);
  }
  const section = (parsed as { modelSettings?: unknown } | null)?.modelSettings;
  if (section === undefined) return {};
  return checkModelSettingsSection(section, path);
}

export function checkModelSettingsSection(section: unknown, path: string): ConfiguredModelSettings {
  const where = (key: string) => `${path}: modelSettings.${key}`;
  if (typeof section !== 'object' || section === null || Array.isArray(section)) {
    throw new UsageError(`${path}: modelSettings must be an object with ${KEYS.join(', ')}`);
  }
  const values = section as Record<string, unknown>;
  const unknown = Object.keys(values).filter((key) => !KEYS.includes(key));
  if (unknown.length > 0) throw new UsageError(`${where(unknown[0]!)}: unknown setting; expected ${KEYS.join(', ')}`);
  const out: ConfiguredModelSettings = {};
  const { maxOutputTokens, temperature, reasoningEffort } = values;
  if (maxOutputTokens !== undefined) {
    if (typeof maxOutputTokens !== 'number' || !Number.isSafeInteger(maxOutputTokens) || maxOutputTokens <= 0) {
      throw new UsageError(`${where('maxOutputTokens')} must be a positive whole number, got ${JSON.stringify(maxOutputTokens)}`);
    }
    out.maxOutputTokens = maxOutputTokens;
  }
  if (temperature !== undefined) {
    if (typeof temperature !== 'number' || !(temperature >= MIN_TEMPERATURE && temperature <= MAX_TEMPERATURE)) {
      throw new UsageError(
        `${where('temperature')} must be a number from ${MIN_TEMPERATURE} to ${MAX_TEMPERATURE}, got ${JSON.stringify(temperature)}`,
      );
    }
    out.temperature = temperature;
  }
  if (reasoningEffort !== undefined) {
    if (typeof reasoningEffort !== 'string' || !(REASONING_EFFORTS as readonly string[]).includes(reasoningEffort)) {
      throw new UsageError(
        `${where('reasoningEffort')} must be one of ${REASONING_EFFORTS.join(', ')}, got ${JSON.stringify(reasoningEffort)}`,
      );
    }
    out.reasoningEffort = reasoningEffort as ReasoningEffort;
  }
  return out;
}
