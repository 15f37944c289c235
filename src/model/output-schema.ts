// A JSON Schema the final answer must satisfy (`exec --output-schema`): compiled once with zod's
// JSON Schema reader, sent to the APIs that constrain output, and checked locally always, because
// Anthropic has no such field, compatible servers may ignore it, and strict mode is not always possible.

import { z } from 'zod';
import type { JsonSchema, ResponseFormat } from './ir.js';
import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from './json-depth.js';
import { StrictSchemaError, stripStrictNulls, toStrictJsonSchema } from './strict-schema.js';

export interface OutputSchema {
  readonly format: ResponseFormat;
  /** The answer text's JSON, checked: the value (strict mode's nulls for absent keys removed) or the problems, in words. */
  check(answer: string): { ok: true; value: unknown } | { ok: false; error: string };
}

/** The wire's name for the schema; OpenAI requires one (`^[a-zA-Z0-9_-]{1,64}$`). */
export const OUTPUT_SCHEMA_NAME = 'final_answer';

function isSchemaObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Compile `schema`; throws an Error saying what is wrong (not an object, a keyword zod cannot read,
 * a `$ref` that resolves nowhere), so the CLI refuses it before any model call.
 */
export function compileOutputSchema(schema: unknown): OutputSchema {
  if (!isSchemaObject(schema)) throw new Error('the schema must be a JSON object (a JSON Schema)');
  let validator: z.ZodType;
  try {
    validator = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (error) {
    throw new Error(`not a usable JSON Schema: ${(error as Error).message}`);
  }
  const format: ResponseFormat = { name: OUTPUT_SCHEMA_NAME, schema };
  const strict = wireResponseFormat(format).strict;
  return {
    format,
    check(answer) {
      const text = unfenced(answer);
      if (jsonNestsDeeperThan(text)) return { ok: false, error: `the answer nests deeper than ${MAX_JSON_DEPTH} levels` };
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (error) {
        return { ok: false, error: `the answer is not JSON (${(error as Error).message})` };
      }
      // A strict-mode answer says null for an optional key it leaves out; the schema itself may not allow null.
      const value = strict ? stripStrictNulls(schema, parsed) : parsed;
      const result = validator.safeParse(value);
      return result.success ? { ok: true, value } : { ok: false, error: z.prettifyError(result.error) };
    },
  };
}

/**
 * An answer wrapped in one Markdown code fence (what models without a native schema field often
 * write despite the instruction) is read as the fence's content; anything else as it is.
 */
function unfenced(answer: string): string {
  const match = /^\s*```[a-zA-Z]*\n([\s\S]*?)\n```\s*$/.exec(answer);
  return match?.[1] ?? answer;
}

/**
 * The schema as the OpenAI APIs take it: adapted to strict mode (guaranteed to match) when it can be,
 * else as written with `strict: false` (best effort, still validated locally).
 */
export function wireResponseFormat(format: ResponseFormat): { name: string; schema: JsonSchema; strict: boolean } {
  try {
    return { name: format.name, schema: toStrictJsonSchema(format.schema), strict: true };
  } catch (error) {
    if (!(error instanceof StrictSchemaError)) throw error;
    return { name: format.name, schema: format.schema, strict: false };
  }
}

/** What the model is told in the prompt, for every provider (Anthropic has nothing else to go on). */
export function outputSchemaInstruction(format: ResponseFormat): string {
  return (
    'When you have finished, your final answer must be only a JSON value, with no other text and no code fence, ' +
    `valid against this JSON Schema:\n${JSON.stringify(format.schema)}`
  );
}
