// What a provider's HTTP error says, read from its raw body whatever shape that body has, and the
// one place that decides what it means: the code, whether another attempt could succeed, and how
// long the provider asked us to wait. Pure functions of status, body and headers, so the whole
// corpus of real bodies (test/fixtures/providers/errors) is checked against them directly.
//
// Shapes seen in the wild: OpenAI's {"error":{message,type,code}}; Anthropic's
// {"type":"error","error":{…}}; Google's array [{"error":{…}}]; old vLLM and Mistral's top-level
// {"object":"error","message":…}; Ollama, LM Studio and xAI's {"error":"…"} string; FastAPI's
// {"detail":…}; OpenRouter's envelope with the upstream body in error.metadata.raw; a JSON body
// inside a message string; and proxies' plain text or HTML pages.

import { contentFilterResultIn, describeContentFilter } from './content-filter.js';
import type { ModelErrorCode } from './model-error.js';

/** Longest wait a provider may ask for through Retry-After before we cap it. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** Statuses no retry can fix: the request itself, or the credentials, are wrong. */
export const NEVER_RETRIED_STATUSES: ReadonlySet<number> = new Set([400, 401, 403, 404, 422]);

/** Codes whose cause is still there on the next attempt, whatever the provider's headers say. */
export const PERMANENT_CODES: ReadonlySet<ModelErrorCode> = new Set<ModelErrorCode>([
  'AUTH_FAILED',
  'BAD_REQUEST',
  'NOT_FOUND',
  'CONTEXT_OVERFLOW',
  'QUOTA_EXCEEDED',
  'PROVIDER_MISCONFIGURED',
  'CONTENT_FILTERED',
]);

const CONTEXT_OVERFLOW_PATTERNS: readonly RegExp[] = [
  /context[_ ]length[_ ]exceeded/i, // OpenAI, Groq (code)
  /exceed_context_size_error/i, // llama.cpp (type)
  /model_context_window_exceeded/i,
  /maximum context length/i, // OpenAI, vLLM, DeepSeek, OpenRouter, Mistral
  /context window/i,
  /context (length|size) (of|is|exceeded)/i,
  /prompt is too long/i, // Anthropic
  /prompt too long/i, // Ollama
  /too many (input )?tokens/i,
  /input (is )?too long/i,
  /reduce the length of the (messages|input|prompt)/i, // Groq
  /exceeds? (the )?(model'?s? )?(maximum )?(context|token limit)/i, // OpenAI Responses, Anthropic, Ollama
  /exceeds? the available context size/i, // llama.cpp
  /larger than the max context size/i, // llama.cpp
  /input token count.*exceeds the maximum/i, // Gemini
  /maximum prompt length is/i, // xAI
  /greater than the context length/i, // LM Studio
  /cannot truncate prompt with n_keep/i, // LM Studio
  /exceeded max context length/i, // Ollama
];

/** Whether an error's text says the request does not fit the model's context window. */
export function looksLikeContextOverflow(text: string): boolean {
  return CONTEXT_OVERFLOW_PATTERNS.some((pattern) => pattern.test(text));
}

/**
 * A server that says how to start it differently ("tools param requires --jinja flag", "requires
 * --enable-auto-tool-choice and --tool-call-parser to be set", "Start it with `--embeddings`").
 * The same request fails until someone changes the server, whatever status it came with.
 */
export function looksLikeServerMisconfiguration(text: string): boolean {
  return (
    /(^|[\s`'"(])--[a-z][a-z0-9-]{2,}/i.test(text) && /\b(requires?|needs?|enable|start|launch|restart|set|flag|missing)\b/i.test(text)
  );
}

/** One request bigger than the whole per-minute token limit ("Limit 30000, Requested 30601"). */
function largerThanRateLimit(text: string): boolean {
  const match = /\blimit:?\s*([\d,]+)\b[^\d]{1,40}\brequested:?\s*([\d,]+)/i.exec(text);
  if (!match || !/request too large/i.test(text)) return false;
  return Number(match[2]!.replace(/,/g, '')) > Number(match[1]!.replace(/,/g, ''));
}

const AUTH_PATTERN =
  /incorrect api key|invalid api key|api key not valid|api_key_invalid|invalid_api_key|invalid x-api-key|authentication_error/i;

/** Labels a provider puts on running out of money or hitting a spend cap, which waiting does not lift. */
const QUOTA_LABELS = new Set([
  'insufficient_quota',
  'insufficient_credits',
  'billing_error',
  'billing_hard_limit_reached',
  'organization_spend_limit_exceeded',
  'project_spend_limit_exceeded',
  'enforced_spend_limit_reached',
]);

interface HeaderSource {
  get(name: string): string | null;
}

/** The wait a Retry-After (or non-standard retry-after-ms) header asks for, uncapped; null when absent or unparseable. */
export function requestedRetryAfter(headers: HeaderSource | null | undefined, now: number = Date.now()): number | null {
  if (!headers) return null;
  const milliseconds = headers.get('retry-after-ms');
  if (milliseconds !== null && milliseconds.trim() !== '') {
    const value = Number(milliseconds);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const header = headers.get('retry-after');
  if (header === null || header.trim() === '') return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : null;
  const date = Date.parse(header);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now);
}

/**
 * Read how long the provider asked us to wait: `retry-after-ms` (milliseconds, non-standard but
 * sent by OpenAI), else `retry-after` as seconds or an HTTP date. Capped at `MAX_RETRY_AFTER_MS`;
 * null when absent or unparseable.
 */
export function parseRetryAfter(headers: HeaderSource | null | undefined, now: number = Date.now()): number | null {
  const requested = requestedRetryAfter(headers, now);
  return requested === null ? null : Math.min(requested, MAX_RETRY_AFTER_MS);
}

const UNIT_MS: Record<string, number> = {
  ms: 1,
  millisecond: 1,
  milliseconds: 1,
  s: 1000,
  sec: 1000,
  second: 1000,
  seconds: 1000,
  m: 60_000,
  min: 60_000,
  minute: 60_000,
  minutes: 60_000,
};

/** A wait written in the message instead of a header: Azure "Please retry after 9 seconds", Gemini "Please retry in 17.3s". */
export function retryHintInText(text: string): number | null {
  const match = /\b(?:retry after|retry in|try again in)\s+(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|sec|seconds?|m|min|minutes?)?\b/i.exec(
    text,
  );
  if (!match) return null;
  const unit = (match[2] ?? 's').toLowerCase();
  return Math.round(Number(match[1]) * (UNIT_MS[unit] ?? 1000));
}

// ---------------------------------------------------------------------------------------------
// Reading the body

/** The provider's message as shown to the user: long enough for any real one, short enough to read. */
const MAX_MESSAGE_CHARS = 1000;
const MAX_DEPTH = 6;

export interface ProviderErrorDetails {
  /** The provider's own words, whitespace collapsed; '' when the body had none. */
  message: string;
  /** Machine-readable labels from the body (codes, types, statuses, reasons), lower-cased. */
  labels: string[];
}

interface Found {
  message: string;
  labels: string[];
}

const NONE: Found = { message: '', labels: [] };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function tryJson(text: string): unknown {
  const trimmed = text.trim();
  if (!/^[[{]/.test(trimmed)) return undefined;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return undefined;
  }
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

/** An HTML error page (a proxy's 502) as text: its title, else its first line of text. */
function htmlText(html: string): string {
  const decode = (text: string): string => text.replace(/&(amp|lt|gt|quot|apos|nbsp|#39);/g, (_, name: string) => ENTITIES[name] ?? '');
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html);
  if (title && title[1]!.trim() !== '') return decode(title[1]!);
  const text = html.replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ').replace(/<[^>]*>/g, '\n');
  return decode(firstLine(text));
}

function firstLine(text: string): string {
  return (
    text
      .split(/\r?\n/)
      .map((line) => line.trim())
      .find((line) => line !== '') ?? ''
  );
}

/** xAI has sent its message URL-encoded ("Incorrect%20API%20key%20provided…"). */
function percentDecoded(text: string): string {
  if (/\s/.test(text) || !/%20/.test(text)) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A JSON body cut off by the size bound cannot be parsed; its first message field still can. */
function messageInBrokenJson(text: string): string {
  const match = /"(?:message|error|detail)"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(text);
  if (!match) return '';
  try {
    return JSON.parse(`"${match[1]}"`) as string;
  } catch {
    return match[1]!;
  }
}

/** A string inside the body, or the whole body as text: a JSON document in it, an HTML page, or words. */
function fromText(text: string, depth: number, wholeBody: boolean): Found {
  const trimmed = text.trim();
  if (trimmed === '') return NONE;
  const json = tryJson(trimmed);
  if (json !== undefined) {
    const inner = describe(json, depth + 1);
    if (inner.message !== '') return inner;
  } else if (/^[[{]/.test(trimmed)) {
    const partial = messageInBrokenJson(trimmed);
    if (partial !== '') return { message: partial, labels: [] };
  }
  if (/^<(!doctype|html|head|body)\b/i.test(trimmed)) return { message: htmlText(trimmed), labels: [] };
  // A plain-text body's first line is its message (the rest is often a trace); a field is kept whole.
  return { message: percentDecoded(wholeBody ? firstLine(trimmed) : trimmed), labels: [] };
}

/** FastAPI/pydantic validation items: "body.max_completion_tokens: Extra inputs are not permitted". */
function validationItems(items: unknown[]): string {
  return items
    .filter(isRecord)
    .map((item) => {
      const where = Array.isArray(item.loc) ? item.loc.join('.') : '';
      const what = typeof item.msg === 'string' ? item.msg : typeof item.message === 'string' ? item.message : '';
      return where !== '' && what !== '' ? `${where}: ${what}` : what;
    })
    .filter((part) => part !== '')
    .join('; ');
}

function labelsOf(record: Record<string, unknown>): string[] {
  const labels: string[] = [];
  const add = (value: unknown): void => {
    if ((typeof value === 'string' && value !== '') || typeof value === 'number') labels.push(String(value).toLowerCase());
  };
  for (const key of ['code', 'type', 'status', 'reason', 'error_code']) add(record[key]);
  for (const key of ['details', 'errors']) {
    const list = record[key];
    if (Array.isArray(list)) for (const item of list.slice(0, 5)) if (isRecord(item)) add(item.reason);
    if (isRecord(list)) add(list.error_code); // Anthropic: error.details.error_code
  }
  return labels;
}

function describeArray(items: unknown[], depth: number): Found {
  const validation = validationItems(items);
  if (validation !== '') return { message: validation, labels: [] };
  const labels: string[] = [];
  for (const item of items.slice(0, 5)) {
    const found = describe(item, depth + 1);
    labels.push(...found.labels);
    if (found.message !== '') return { message: found.message, labels };
  }
  return { message: '', labels };
}

function describeRecord(record: Record<string, unknown>, depth: number): Found {
  const labels = labelsOf(record);
  let message = '';
  for (const key of ['error', 'message', 'detail', 'msg', 'errors', 'error_description', 'title']) {
    if (!(key in record)) continue;
    const found = describe(record[key], depth + 1);
    labels.push(...found.labels);
    if (found.message !== '') {
      message = found.message;
      break;
    }
  }
  // OpenRouter: "Provider returned error" on top, the upstream provider's own body in metadata.raw.
  const metadata = record.metadata;
  if (isRecord(metadata) && metadata.raw !== undefined) {
    const raw = describe(metadata.raw, depth + 1);
    labels.push(...raw.labels);
    if (raw.message !== '' && raw.message !== message) {
      const provider = typeof metadata.provider_name === 'string' ? ` (${metadata.provider_name})` : '';
      message = message === '' ? raw.message : `${message}${provider}: ${raw.message}`;
    }
  }
  return { message, labels };
}

function describe(value: unknown, depth: number): Found {
  if (depth > MAX_DEPTH) return NONE;
  if (typeof value === 'string') return fromText(value, depth, depth === 0);
  if (Array.isArray(value)) return describeArray(value, depth);
  if (isRecord(value)) return describeRecord(value, depth);
  return NONE;
}

/**
 * The provider's words and labels from an error body: the raw text as received, or a value the
 * SDK already parsed. Never throws; a body with nothing readable gives message ''.
 */
export function readProviderError(body: unknown): ProviderErrorDetails {
  const found = describe(body, 0);
  let message = found.message.replace(/\s+/g, ' ').trim();
  if (message.length > MAX_MESSAGE_CHARS) message = `${message.slice(0, MAX_MESSAGE_CHARS)}…`;
  return { message, labels: [...new Set(found.labels)] };
}

// ---------------------------------------------------------------------------------------------
// Deciding what it means

export interface ProviderErrorInput {
  status: number;
  /** The raw body text, or an already parsed body; null when there was none. */
  body: unknown;
  headers?: HeaderSource | null;
  now?: number;
}

export interface ClassifiedProviderError extends ProviderErrorDetails {
  code: ModelErrorCode;
  retryable: boolean;
  /** The wait before retrying, capped at MAX_RETRY_AFTER_MS; null when the provider named none. */
  retryAfterMs: number | null;
  /** Set when the provider asked to wait longer than we ever do, which is why this is not retried. */
  requestedWaitMs: number | null;
}

/**
 * Whether a failure means the request must shrink, for an HTTP answer (`status`) and for an error
 * inside an open stream (`status` null) alike: OpenAI reports one request larger than the whole
 * per-minute limit as a 429 before the stream, and as a failed response inside it (Codex saw
 * "stream disconnected before completion: Request too large for … Limit 200000, Requested 208334").
 * Overflow wording on 401/403/429 is not trusted (a rate limit may mention tokens).
 */
export function saysRequestTooLarge(status: number | null, text: string): boolean {
  if (status === 413) return true;
  if (largerThanRateLimit(text)) return true;
  return status !== 401 && status !== 403 && status !== 429 && looksLikeContextOverflow(text);
}

function codeFor(status: number, text: string, labels: ReadonlySet<string>): ModelErrorCode {
  if (saysRequestTooLarge(status, text)) return 'CONTEXT_OVERFLOW';
  if (status === 401 || status === 403 || (status === 400 && AUTH_PATTERN.test(text))) return 'AUTH_FAILED';
  if (status === 402 || [...labels].some((label) => QUOTA_LABELS.has(label))) return 'QUOTA_EXCEEDED';
  if (status !== 429 && looksLikeServerMisconfiguration(text)) return 'PROVIDER_MISCONFIGURED';
  if (status === 404 || labels.has('model_not_found')) return 'NOT_FOUND';
  // Azure's content filter refusing the prompt: error.code "content_filter" (innererror code
  // ResponsibleAIPolicyViolation).
  if (status >= 400 && status < 500 && status !== 429 && (labels.has('content_filter') || labels.has('responsibleaipolicyviolation')))
    return 'CONTENT_FILTERED';
  if (status === 429) return 'RATE_LIMITED';
  if (status === 408) return 'CONNECTION_FAILED';
  if (status === 409 || status >= 500) return 'SERVER_ERROR';
  return 'BAD_REQUEST';
}

/** Whether another attempt could succeed, before headers have their say. */
function retryableByStatus(status: number, code: ModelErrorCode): boolean {
  if (PERMANENT_CODES.has(code) || NEVER_RETRIED_STATUSES.has(status)) return false;
  // 501 Not Implemented: the server lacks the feature, now and on the next attempt.
  if (status === 501) return false;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * Classify one HTTP error answer. Overflow wins over everything but auth (the loop compacts and
 * retries once); permanent causes (auth, quota, a misconfigured server, a bad request) are never
 * retried; rate limits and server trouble are, after the provider's Retry-After (header, or a
 * wait written in the message) unless that is longer than we ever wait.
 */
export function classifyProviderError(input: ProviderErrorInput): ClassifiedProviderError {
  const { status } = input;
  const details = readProviderError(input.body);
  const labels = new Set(details.labels);
  const text = [details.message, ...details.labels].join('\n');
  const code = codeFor(status, text, labels);

  let retryable = retryableByStatus(status, code);
  const shouldRetry = input.headers?.get('x-should-retry') ?? null;
  if (shouldRetry === 'false') retryable = false;
  if (shouldRetry === 'true' && !PERMANENT_CODES.has(code) && !NEVER_RETRIED_STATUSES.has(status)) retryable = true;

  const requested = requestedRetryAfter(input.headers, input.now) ?? (retryable ? retryHintInText(details.message) : null);
  let requestedWaitMs: number | null = null;
  if (retryable && requested !== null && requested > MAX_RETRY_AFTER_MS) {
    retryable = false;
    requestedWaitMs = requested;
  }
  // A content filter's own findings (Azure's innererror.content_filter_result) lead the message:
  // which category, at what severity, is what the person can act on.
  const found = code === 'CONTENT_FILTERED' ? describeContentFilter(contentFilterResultIn(input.body)) : '';
  return {
    ...details,
    ...(found === '' ? {} : { message: details.message === '' ? `${found}.` : `${found}. ${details.message}` }),
    code,
    retryable,
    retryAfterMs: requested === null ? null : Math.min(requested, MAX_RETRY_AFTER_MS),
    requestedWaitMs,
  };
}

/** What an error object inside an open stream means: overflow and a misconfigured server keep their own codes. */
export function classifyStreamFailure(text: string): 'CONTEXT_OVERFLOW' | 'PROVIDER_MISCONFIGURED' | 'RESPONSE_FAILED' {
  if (saysRequestTooLarge(null, text)) return 'CONTEXT_OVERFLOW';
  if (looksLikeServerMisconfiguration(text)) return 'PROVIDER_MISCONFIGURED';
  return 'RESPONSE_FAILED';
}
