// What a script says one model turn should look like, and its resolution into the concrete turn
// the wire builders render. Resolution is where defaults, generated ids and derived usage are
// decided, so both dialects answer the same script with the same content.

import type { WireApi } from '../model/index.js';
import { estimateRequestTokens, estimateTokens } from './estimate-tokens.js';

export interface ScriptedToolCall {
  name: string;
  /** A string is sent verbatim (it may be invalid JSON on purpose); an object is JSON-encoded. */
  arguments: string | Record<string, unknown>;
  id?: string;
  /**
   * Chat only: extra fields on the wire tool call, as some providers add them (Gemini's
   * `extra_content: { google: { thought_signature } }`). With `requireReasoningBack` the provider
   * insists on getting them back unchanged, as Gemini does.
   */
  fields?: Record<string, unknown>;
}

/**
 * Reasoning the model did before answering.
 * - responses: a `reasoning` output item, `text` as its summary; its `encrypted_content` only when
 *   the request has `include: ['reasoning.encrypted_content']`, as the real API.
 * - chat: `text` streamed as `reasoning_content` deltas (DeepSeek, vLLM) or as `field`.
 * - anthropic: a `thinking` block with a signature, or a `redacted_thinking` block when `redacted`.
 */
export interface ScriptedReasoning {
  text: string;
  field?: 'reasoning_content' | 'reasoning';
  redacted?: boolean;
}

export interface ScriptedUsage {
  input: number;
  output: number;
  /** Omitted: reported as 0. null: the provider does not report cached tokens at all. */
  cached?: number | null;
  reasoning?: number;
  /** Anthropic only: input tokens written to the prompt cache (part of `input`, like `cached`). Default 0. */
  cacheWrite?: number;
}

/**
 * Transport faults (`status`, `cut`, `malformed`, `stall`, `hang`, `drop`) behave the same on every
 * wire API; `cut`/`malformed`/`stall` without streaming send half of the JSON body (then hang up /
 * end it unparsable / go silent).
 * In-band faults: `response_failed` streams the content and then fails (Chat: an `error` chunk;
 * Responses: `response.failed`; Anthropic: an `error` event whose type is `code`, default
 * `api_error`); without streaming Chat and Anthropic answer HTTP 500 and Responses a
 * `status: 'failed'` response. `stream_error_event` streams a top-level `error` event after
 * `response.created`/`in_progress` (Chat: an `error` chunk; Anthropic: after `message_start`);
 * without streaming it is HTTP 500.
 */
export type ScriptedFault =
  /** HTTP error with the wire's error body (OpenAI-style; Anthropic's envelope, `type` its error type) and optional `Retry-After` header. */
  | { kind: 'status'; status: number; message?: string; code?: string; type?: string; retryAfter?: string }
  /** 200 and headers, N SSE events, then the socket is destroyed (N is capped below the event count). */
  | { kind: 'cut'; afterEvents: number }
  /** After N events a `data:` line that is not JSON, then the response ends. */
  | { kind: 'malformed'; afterEvents: number }
  /**
   * 200 and headers, N SSE events (capped like `cut`), then silence with the connection open until
   * the client disconnects or the provider closes: a provider that stalls mid-answer.
   */
  | { kind: 'stall'; afterEvents: number }
  /** Never answers, until the client disconnects or the provider closes. */
  | { kind: 'hang' }
  /** Destroys the socket before any response. */
  | { kind: 'drop' }
  | { kind: 'response_failed'; message: string; code?: string }
  | { kind: 'stream_error_event'; message: string };

export type ScriptedFinishReason = 'stop' | 'length' | 'content_filter';

export interface ScriptedTurn {
  text?: string;
  toolCalls?: ScriptedToolCall[];
  /** null: no usage reported at all; undefined: derived from the request and the output (chars / 4). */
  usage?: ScriptedUsage | null;
  finishReason?: ScriptedFinishReason;
  refusal?: string;
  fault?: ScriptedFault;
  delayMs?: number;
  chunkDelayMs?: number;
  /** Responses only: emitted as a reasoning output item with one summary part (same as `reasoning: { text }`). */
  reasoningSummary?: string;
  reasoning?: ScriptedReasoning;
  /** Characters per streamed delta (text, refusal and arguments); default 12. */
  chunkSize?: number;
}

export interface CapturedRequest {
  index: number;
  method: string;
  path: string;
  wireApi: WireApi;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  stream: boolean;
  rawBody: string;
  receivedAt: number;
}

export type ScriptStep = ScriptedTurn | ((request: CapturedRequest) => ScriptedTurn | Promise<ScriptedTurn>);

export interface ResolvedToolCall {
  id: string;
  name: string;
  arguments: string;
  fields: Record<string, unknown> | null;
}

export interface ResolvedReasoning {
  text: string;
  field: 'reasoning_content' | 'reasoning';
  redacted: boolean;
  /** Unique per answer: the encrypted content, signature or redacted data the provider hands out. */
  token: string;
}

export interface ResolvedUsage {
  input: number;
  output: number;
  cached: number | null;
  reasoning: number;
  /** Anthropic only: the part of `input` written to the prompt cache. */
  cacheWrite?: number;
}

export type ResolvedFinishReason = ScriptedFinishReason | 'tool_calls';

/** A turn with every default applied; what the wire builders render. */
export interface ResolvedTurn {
  text: string;
  refusal: string | null;
  toolCalls: ResolvedToolCall[];
  usage: ResolvedUsage | null;
  finishReason: ResolvedFinishReason;
  reasoningSummary: string | null;
  reasoning: ResolvedReasoning | null;
  fault: ScriptedFault | null;
  delayMs: number;
  chunkDelayMs: number;
  chunkSize: number;
}

export const DEFAULT_CHUNK_SIZE = 12;

/** Hands out `<prefix><n>` ids, counting separately per prefix, so runs are reproducible. */
export class IdFactory {
  private readonly counters = new Map<string, number>();

  next(prefix: string): string {
    const n = (this.counters.get(prefix) ?? 0) + 1;
    this.counters.set(prefix, n);
    return `${prefix}${n}`;
  }
}

const FAULT_KINDS = new Set(['status', 'cut', 'malformed', 'stall', 'hang', 'drop', 'response_failed', 'stream_error_event']);
const FINISH_REASONS = new Set(['stop', 'length', 'content_filter']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkCount(value: unknown, field: string): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new Error(`${field} must be a non-negative integer, got ${JSON.stringify(value)}`);
  }
}

function checkOptionalCount(value: unknown, field: string): void {
  if (value !== undefined) checkCount(value, field);
}

function checkOptionalString(value: unknown, field: string): void {
  if (value !== undefined && typeof value !== 'string') {
    throw new Error(`${field} must be a string, got ${JSON.stringify(value)}`);
  }
}

function validateFault(fault: unknown): void {
  if (!isRecord(fault) || typeof fault.kind !== 'string' || !FAULT_KINDS.has(fault.kind)) {
    throw new Error(`fault must be one of ${[...FAULT_KINDS].join(', ')}, got ${JSON.stringify(fault)}`);
  }
  switch (fault.kind) {
    case 'status':
      if (typeof fault.status !== 'number' || !Number.isInteger(fault.status) || fault.status < 400 || fault.status > 599) {
        throw new Error(`fault.status must be an HTTP error status (400-599), got ${JSON.stringify(fault.status)}`);
      }
      for (const field of ['message', 'code', 'type', 'retryAfter']) checkOptionalString(fault[field], `fault.${field}`);
      break;
    case 'cut':
    case 'malformed':
    case 'stall':
      checkCount(fault.afterEvents, 'fault.afterEvents');
      break;
    case 'response_failed':
      if (typeof fault.message !== 'string') throw new Error('fault.message must be a string');
      checkOptionalString(fault.code, 'fault.code');
      break;
    case 'stream_error_event':
      if (typeof fault.message !== 'string') throw new Error('fault.message must be a string');
      break;
  }
}

/** Throws a descriptive error when a scripted turn is not well-formed. */
export function validateScriptedTurn(turn: unknown): asserts turn is ScriptedTurn {
  if (!isRecord(turn)) throw new Error(`a scripted turn must be an object, got ${JSON.stringify(turn)}`);
  checkOptionalString(turn.text, 'text');
  checkOptionalString(turn.refusal, 'refusal');
  checkOptionalString(turn.reasoningSummary, 'reasoningSummary');
  if (turn.toolCalls !== undefined) {
    if (!Array.isArray(turn.toolCalls)) throw new Error('toolCalls must be an array');
    turn.toolCalls.forEach((call: unknown, i) => {
      if (!isRecord(call)) throw new Error(`toolCalls[${i}] must be an object`);
      if (typeof call.name !== 'string' || call.name === '') {
        throw new Error(`toolCalls[${i}].name must be a non-empty string`);
      }
      if (typeof call.arguments !== 'string' && !isRecord(call.arguments)) {
        throw new Error(`toolCalls[${i}].arguments must be a string or an object`);
      }
      checkOptionalString(call.id, `toolCalls[${i}].id`);
      if (call.fields !== undefined && !isRecord(call.fields)) throw new Error(`toolCalls[${i}].fields must be an object`);
    });
  }
  if (turn.reasoning !== undefined) {
    if (!isRecord(turn.reasoning) || typeof turn.reasoning.text !== 'string')
      throw new Error('reasoning must be an object with a text string');
    if (turn.reasoning.field !== undefined && turn.reasoning.field !== 'reasoning_content' && turn.reasoning.field !== 'reasoning') {
      throw new Error('reasoning.field must be reasoning_content or reasoning');
    }
    if (turn.reasoning.redacted !== undefined && typeof turn.reasoning.redacted !== 'boolean')
      throw new Error('reasoning.redacted must be a boolean');
  }
  if (turn.usage !== undefined && turn.usage !== null) {
    if (!isRecord(turn.usage)) throw new Error('usage must be an object, null, or omitted');
    checkCount(turn.usage.input, 'usage.input');
    checkCount(turn.usage.output, 'usage.output');
    if (turn.usage.cached !== null) checkOptionalCount(turn.usage.cached, 'usage.cached');
    checkOptionalCount(turn.usage.cacheWrite, 'usage.cacheWrite');
    checkOptionalCount(turn.usage.reasoning, 'usage.reasoning');
  }
  if (turn.finishReason !== undefined && !FINISH_REASONS.has(turn.finishReason as string)) {
    throw new Error(`finishReason must be one of stop, length, content_filter, got ${JSON.stringify(turn.finishReason)}`);
  }
  if (turn.fault !== undefined) validateFault(turn.fault);
  checkOptionalCount(turn.delayMs, 'delayMs');
  checkOptionalCount(turn.chunkDelayMs, 'chunkDelayMs');
  if (turn.chunkSize !== undefined) {
    checkCount(turn.chunkSize, 'chunkSize');
    if (turn.chunkSize === 0) throw new Error('chunkSize must be at least 1');
  }
}

/** Applies defaults, assigns tool call ids and derives usage for one request. */
export function resolveScriptedTurn(turn: ScriptedTurn, request: CapturedRequest, ids: IdFactory): ResolvedTurn {
  const text = turn.text ?? '';
  const toolCalls = (turn.toolCalls ?? []).map((call) => {
    const generated = ids.next('call_');
    return {
      id: call.id ?? generated,
      name: call.name,
      arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
      fields: call.fields ?? null,
    };
  });
  const scriptedReasoning = turn.reasoning ?? (turn.reasoningSummary === undefined ? undefined : { text: turn.reasoningSummary });
  const reasoning: ResolvedReasoning | null =
    scriptedReasoning === undefined
      ? null
      : {
          text: scriptedReasoning.text,
          field: scriptedReasoning.field ?? 'reasoning_content',
          redacted: scriptedReasoning.redacted ?? false,
          token: ids.next('reasoning_state_'),
        };
  let usage: ResolvedUsage | null;
  if (turn.usage === null) {
    usage = null;
  } else if (turn.usage === undefined) {
    const outputText = text + toolCalls.map((call) => call.arguments).join('');
    usage = {
      input: estimateRequestTokens(request.body, request.wireApi),
      output: estimateTokens(outputText),
      cached: 0,
      reasoning: 0,
    };
  } else {
    usage = {
      input: turn.usage.input,
      output: turn.usage.output,
      cached: turn.usage.cached === undefined ? 0 : turn.usage.cached,
      ...(turn.usage.cacheWrite === undefined ? {} : { cacheWrite: turn.usage.cacheWrite }),
      reasoning: turn.usage.reasoning ?? 0,
    };
  }
  return {
    text,
    refusal: turn.refusal ?? null,
    toolCalls,
    usage,
    finishReason: turn.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
    reasoningSummary: reasoning === null ? null : reasoning.text,
    reasoning,
    fault: turn.fault ?? null,
    delayMs: turn.delayMs ?? 0,
    chunkDelayMs: turn.chunkDelayMs ?? 0,
    chunkSize: turn.chunkSize ?? DEFAULT_CHUNK_SIZE,
  };
}

/**
 * Splits into chunks of `size` code points, so a delta never carries half of a surrogate pair.
 * Walks the string instead of spreading it into an array of code points: scripts stream answers
 * of several MiB (the size-limit tests), where the array cost seconds per answer.
 */
export function splitIntoChunks(text: string, size: number): string[] {
  const chunks: string[] = [];
  if (!/[\uD800-\uDFFF]/.test(text)) {
    for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
    return chunks;
  }
  let start = 0;
  let count = 0;
  for (let i = 0; i < text.length; ) {
    // A lone surrogate counts as one code point, as it does for Array.from.
    i += (text.codePointAt(i) as number) > 0xffff ? 2 : 1;
    count += 1;
    if (count === size) {
      chunks.push(text.slice(start, i));
      start = i;
      count = 0;
    }
  }
  if (start < text.length) chunks.push(text.slice(start));
  return chunks;
}
