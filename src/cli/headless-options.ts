// `exec`'s controls for runs nobody watches (CI): a schema the final answer must match, a spending
// cap, and a model to fall back on. Read and checked before any model call, so a bad schema file or
// an unpriceable budget is a usage error (exit 2) that costs nothing.

import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import {
  BudgetGateway,
  compileOutputSchema,
  FallbackGateway,
  type BudgetModel,
  type ModelGateway,
  type OutputSchema,
} from '../model/index.js';
import { UsageError } from './usage-error.js';

export interface HeadlessCliOptions {
  outputSchema?: string;
  maxBudgetUsd?: string;
  fallbackModel?: string;
}

export interface HeadlessSettings {
  outputSchema: OutputSchema | null;
  /** USD; null: no cap. */
  maxBudgetUsd: number | null;
  fallbackModel: string | null;
}

/** The flags, checked; throws `UsageError` naming the flag (and the file). */
export async function resolveHeadlessSettings(options: HeadlessCliOptions, cwd: string = process.cwd()): Promise<HeadlessSettings> {
  return {
    outputSchema: options.outputSchema === undefined ? null : await readOutputSchema(resolve(cwd, options.outputSchema)),
    maxBudgetUsd: options.maxBudgetUsd === undefined ? null : parseBudget(options.maxBudgetUsd),
    fallbackModel: options.fallbackModel === undefined ? null : parseModelName(options.fallbackModel),
  };
}

async function readOutputSchema(path: string): Promise<OutputSchema> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(`--output-schema ${path}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--output-schema ${path}: not JSON (${(error as Error).message})`);
  }
  try {
    return compileOutputSchema(schema);
  } catch (error) {
    throw new UsageError(`--output-schema ${path}: ${(error as Error).message}`);
  }
}

function parseBudget(value: string): number {
  const amount = Number(value.trim());
  if (value.trim() === '' || !Number.isFinite(amount) || amount <= 0) {
    throw new UsageError(`--max-budget-usd: expected an amount of US dollars above 0, got ${JSON.stringify(value)}`);
  }
  return amount;
}

function parseModelName(value: string): string {
  const name = value.trim();
  if (name === '') throw new UsageError('--fallback-model: the model name is empty');
  return name;
}

/**
 * The run's gateway with the cap and the fallback around it. The cap sits inside the fallback so it
 * prices each call at the model it goes to; `models` answers for every model the run may call.
 */
export function headlessGateway(gateway: ModelGateway, settings: HeadlessSettings, models: (name: string) => BudgetModel): ModelGateway {
  const capped = settings.maxBudgetUsd === null ? gateway : new BudgetGateway(gateway, { limitUsd: settings.maxBudgetUsd, model: models });
  return settings.fallbackModel === null ? capped : new FallbackGateway(capped, settings.fallbackModel);
}

/** What the model is told after an answer that did not match, in the retry turn. */
export function schemaRetryPrompt(error: string): string {
  return (
    `Your final answer did not match the required JSON Schema (--output-schema):\n${error}\n` +
    'Answer again with only the corrected JSON value: no other text, no code fence.'
  );
}
