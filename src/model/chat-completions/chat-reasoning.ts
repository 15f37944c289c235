// Reasoning and per-call provider fields on the Chat Completions wire, which OpenAI's own API does
// not have but its compatible servers do, each in its own spelling:
// - `reasoning_content` (DeepSeek, xAI, Qwen/DashScope, vLLM's reasoning parsers) or `reasoning`
//   (OpenRouter, Ollama, newer vLLM) on the message or its stream deltas. DeepSeek's thinking mode
//   rejects a tool round whose assistant message does not carry its `reasoning_content` back.
// - OpenRouter's `reasoning_details`: typed entries (text, summary, encrypted) it asks to get back
//   unchanged so the upstream model (Claude, Gemini) keeps its signed reasoning.
// - Fields on a tool call beyond id/type/function: Gemini's `extra_content.google.thought_signature`,
//   which Gemini requires back on that call (400 otherwise). Unknown extras are kept too.
// - Mistral's reasoning models stream `content` as an array of chunks, `thinking` chunks (holding
//   text chunks) beside `text` chunks. That thinking is shown but not sent back: Mistral's request
//   schema has no reasoning field, and any unknown field is a 422.

import type { ModelReasoning, ModelToolCall, ProviderFields } from '../ir.js';

export const REASONING_FIELDS = ['reasoning_content', 'reasoning'] as const;
export type ReasoningField = (typeof REASONING_FIELDS)[number];

const KNOWN_CALL_KEYS = new Set(['index', 'id', 'type', 'function']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The reasoning text a message or delta carries, and under which field. */
export function readReasoningText(source: unknown): { field: ReasoningField; text: string } | null {
  if (!isRecord(source)) return null;
  for (const field of REASONING_FIELDS) {
    const value = source[field];
    if (typeof value === 'string' && value !== '') return { field, text: value };
  }
  return null;
}

/** The text and the thinking an array-valued `content` (Mistral's content chunks) holds; null for any other content. */
export function readContentChunks(content: unknown): { text: string; thinking: string } | null {
  if (!Array.isArray(content)) return null;
  let text = '';
  let thinking = '';
  for (const chunk of content) {
    if (!isRecord(chunk)) continue;
    if (chunk.type === 'text' && typeof chunk.text === 'string') text += chunk.text;
    else if (chunk.type === 'thinking' && Array.isArray(chunk.thinking)) {
      for (const inner of chunk.thinking) if (isRecord(inner) && typeof inner.text === 'string') thinking += inner.text;
    }
  }
  return { text, thinking };
}

/**
 * A tool call's arguments as the IR's JSON text. OpenAI sends a string; llama-server started with
 * `--tool-args-object` (ggml-org/llama.cpp#20202) and some vLLM tool parsers send the JSON value
 * itself, which string concatenation would turn into "[object Object]" (and send back so).
 */
export function argumentsText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value) ?? '';
}

/** A tool call's fields beyond the standard ones, or null when it has none. */
export function extraCallFields(call: unknown): ProviderFields | null {
  if (!isRecord(call)) return null;
  let extras: ProviderFields | null = null;
  for (const [key, value] of Object.entries(call)) {
    if (KNOWN_CALL_KEYS.has(key) || value === undefined || value === null) continue;
    extras ??= {};
    extras[key] = value;
  }
  return extras;
}

/** Collects reasoning over a stream (or from one message): text, field, reasoning_details. */
export class ChatReasoningCollector {
  text = '';
  private field: ReasoningField | null = null;
  private readonly details: Record<string, unknown>[] = [];

  /** Adds what a delta (or message) carries; returns the new reasoning text, if any. */
  add(source: unknown): string {
    const found = readReasoningText(source);
    if (found !== null) {
      this.field ??= found.field;
      this.text += found.text;
    }
    if (isRecord(source) && Array.isArray(source.reasoning_details)) {
      for (const entry of source.reasoning_details) if (isRecord(entry)) this.addDetail(entry);
    }
    return found?.text ?? '';
  }

  /** Thinking that is shown but has no field to go back in (Mistral's thinking chunks). */
  addThinking(text: string): void {
    this.text += text;
  }

  /** Streamed detail entries with the same index and type are pieces of one entry. */
  private addDetail(entry: Record<string, unknown>): void {
    const last = this.details[this.details.length - 1];
    const sameEntry = last !== undefined && entry.index !== undefined && last.index === entry.index && last.type === entry.type;
    if (!sameEntry) {
      this.details.push({ ...entry });
      return;
    }
    for (const [key, value] of Object.entries(entry)) {
      if (typeof value === 'string' && typeof last[key] === 'string' && ['text', 'summary', 'data'].includes(key)) {
        last[key] = (last[key] as string) + value;
      } else if (value !== null && value !== undefined) {
        last[key] = value;
      }
    }
  }

  get size(): number {
    return this.text.length + (this.details.length === 0 ? 0 : JSON.stringify(this.details).length);
  }

  result(): ModelReasoning[] {
    if (this.text === '' && this.details.length === 0) return [];
    // Reasoning that came in no field (only as thinking chunks) has nothing to send back.
    if (this.field === null && this.details.length === 0) return [{ format: 'chat', text: this.text, state: null }];
    const state: ProviderFields = { field: this.field ?? 'reasoning_content' };
    if (this.details.length > 0) state.reasoning_details = this.details;
    return [{ format: 'chat', text: this.text, state }];
  }
}

/**
 * The fields an assistant message of a tool-using turn sends back: its chat-format reasoning under
 * the field it came in (and `reasoning_details`). DeepSeek's thinking mode requires it on every
 * assistant message between two user messages once the model called a tool there (the answer
 * after the tool result too, or the next user turn is a 400), and lets the reasoning of turns
 * without tool calls be left out; the callers decide which messages those are.
 */
export function reasoningFieldsFor(reasoning: readonly ModelReasoning[] | undefined): ProviderFields {
  const fields: ProviderFields = {};
  for (const entry of reasoning ?? []) {
    // A think block goes back inside the content (inline-think.ts), never in a field.
    if (entry.format !== 'chat' || entry.state === null || typeof entry.state.inlineThink === 'string') continue;
    const field =
      typeof entry.state?.field === 'string' && (REASONING_FIELDS as readonly string[]).includes(entry.state.field)
        ? entry.state.field
        : 'reasoning_content';
    if (entry.text !== '') fields[field] = typeof fields[field] === 'string' ? `${fields[field] as string}${entry.text}` : entry.text;
    const details = entry.state?.reasoning_details;
    if (Array.isArray(details)) fields.reasoning_details = [...((fields.reasoning_details as unknown[] | undefined) ?? []), ...details];
  }
  return fields;
}

/** A call's chat-format provider fields, to spread onto the wire tool call. */
export function callFieldsFor(call: ModelToolCall): ProviderFields {
  return call.providerFields?.format === 'chat' ? call.providerFields.fields : {};
}
