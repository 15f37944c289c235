// Model-visible history as response items: the unit of commit, of persistence (one
// `response_item` record each) and of replay. The type is derived from the schema; the agent core
// (agent/response-items.ts) builds and reads them.

import { z } from 'zod';
import { RUNTIME_ROLES, WIRE_APIS } from './enumerations.js';

export const wireApiSchema = z.enum(WIRE_APIS);

/** Provider data kept verbatim: any JSON object, never an array. It must round-trip through JSON. */
export const providerFieldsSchema = z.record(z.string(), z.unknown());
export type ProviderFields = z.infer<typeof providerFieldsSchema>;

/** Provider fields kept on a piece of an answer, sent back only by the dialect that received them (`format`). */
export const providerFieldsOfSchema = z.object({ format: wireApiSchema, fields: providerFieldsSchema });
export type ProviderFieldsOf = z.infer<typeof providerFieldsOfSchema>;

export const responseItemSchema = z.union([
  z.object({ type: z.literal('message'), role: z.enum(['system', 'user']), content: z.string() }),
  z.object({
    type: z.literal('message'),
    role: z.literal('assistant'),
    content: z.string(),
    runtimeRole: z.enum(RUNTIME_ROLES),
    /** Provider fields on the message that must go back with it (the Responses `phase`). */
    providerFields: providerFieldsOfSchema.optional(),
  }),
  /**
   * Reasoning the model did in a round, committed before that round's message and calls and sent
   * back with them (see the model IR's `ModelReasoning`: `format` is the dialect that produced it,
   * `state` the opaque data that dialect needs back).
   */
  z.object({ type: z.literal('reasoning'), format: wireApiSchema, text: z.string(), state: providerFieldsSchema.nullable() }),
  z.object({
    type: z.literal('function_call'),
    /** Unique among the calls in the history: what Glassbox sends in the call and in its output. */
    callId: z.string(),
    name: z.string(),
    arguments: z.string(),
    /** The id the provider sent, present only when it was replaced (empty, or already taken). */
    providerCallId: z.string().optional(),
    /** Provider fields on the call that must go back with it (Gemini's thought signature). */
    providerFields: providerFieldsOfSchema.optional(),
  }),
  z.object({ type: z.literal('function_call_output'), callId: z.string(), name: z.string(), output: z.string(), isError: z.boolean() }),
  z.object({ type: z.literal('compaction_summary'), compactionId: z.string(), summary: z.string() }),
]);
export type ResponseItem = z.infer<typeof responseItemSchema>;
