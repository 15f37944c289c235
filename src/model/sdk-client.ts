// The one place an OpenAI SDK client is built, so both dialects agree on the settings that matter:
// the SDK's own retries are off (ours in retry.ts would otherwise multiply with them), its console
// logging is off (every failure reaches the caller as a ModelError instead), and its fetch is
// byte-bounded (bounded-fetch.ts) and keeps the raw body of error answers (error-body.ts), which
// the SDK would otherwise drop unless it has OpenAI's shape.

import OpenAI from 'openai';
import { boundedFetch } from './bounded-fetch.js';
import { keepErrorBodies } from './error-body.js';
import type { GatewayConfig } from './gateway.js';
import { maxEventBytes, oversizedWireError, resolveResponseLimits, type ResponseLimits } from './response-limits.js';

export const DEFAULT_TIMEOUT_MS = 600_000;

// Stream silence limits. Before the first text or tool-call event a long silence is normal:
// reasoning models think before they write (minutes at high effort, with nothing streamed on Chat
// and at most a `response.created` on Responses), and a local server may spend minutes on a long
// prompt. A stall there is also cheap to retry, so the start limit is generous. Once the answer is
// streaming, tokens come many times a second; the longest honest pause is a server that sends a
// tool call only once it is complete (a large write_file on a slow local model), so two minutes.
// Both are well under the 600 s a silent stream used to get.
export const DEFAULT_STREAM_START_TIMEOUT_MS = 300_000;
export const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 120_000;

export interface ResolvedClientConfig {
  baseURL: string;
  apiKey: string;
  timeoutMs: number;
  streamStartTimeoutMs: number;
  streamIdleTimeoutMs: number;
  limits: ResponseLimits;
  headers: Record<string, string>;
}

/** setTimeout's ceiling: a longer delay fires at once, which would turn a patient limit into none. */
const MAX_TIMER_MS = 2_147_483_647;

function checkMilliseconds(value: number | undefined, setting: string): void {
  if (value !== undefined && (!Number.isInteger(value) || value <= 0 || value > MAX_TIMER_MS)) {
    throw new Error(`Invalid ${setting} ${String(value)}: expected a positive whole number of milliseconds up to ${MAX_TIMER_MS}.`);
  }
}

/** Check a gateway config and fill defaults; throws an Error that says which setting is wrong. */
export function resolveClientConfig(config: GatewayConfig): ResolvedClientConfig {
  let url: URL;
  try {
    url = new URL(config.baseURL);
  } catch {
    throw new Error(`Invalid base URL ${JSON.stringify(config.baseURL)}: expected e.g. https://api.openai.com/v1 (check --base-url).`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`Invalid base URL ${config.baseURL}: only http and https are supported (check --base-url).`);
  }
  if (typeof config.apiKey !== 'string' || config.apiKey.trim() === '') {
    throw new Error('No API key given: set OPENAI_API_KEY (servers without authentication accept any placeholder).');
  }
  checkMilliseconds(config.timeoutMs, 'timeout');
  checkMilliseconds(config.streamStartTimeoutMs, 'streamStartTimeoutMs');
  checkMilliseconds(config.streamIdleTimeoutMs, 'streamIdleTimeoutMs');
  const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // A shorter request timeout shortens the stream defaults too, so a caller that only sets
  // `timeoutMs` still gets no silence longer than it. The start limit is never below the idle
  // one: a provider allowed to pause that long mid-answer may pause that long before it.
  const streamIdleTimeoutMs = config.streamIdleTimeoutMs ?? Math.min(DEFAULT_STREAM_IDLE_TIMEOUT_MS, timeoutMs);
  const streamStartTimeoutMs =
    config.streamStartTimeoutMs ?? Math.max(streamIdleTimeoutMs, Math.min(DEFAULT_STREAM_START_TIMEOUT_MS, timeoutMs));
  return {
    baseURL: config.baseURL.replace(/\/+$/, ''),
    apiKey: config.apiKey,
    timeoutMs,
    streamStartTimeoutMs,
    streamIdleTimeoutMs,
    limits: resolveResponseLimits(config.limits),
    headers: { ...(config.headers ?? {}) },
  };
}

export function createSdkClient(config: ResolvedClientConfig): OpenAI {
  const maxBytes = maxEventBytes(config.limits);
  return new OpenAI({
    apiKey: config.apiKey,
    baseURL: config.baseURL,
    maxRetries: 0,
    timeout: config.timeoutMs,
    defaultHeaders: config.headers,
    logLevel: 'off',
    // Outermost, so the Headers object it remembers the body by is the one the SDK puts on its error.
    fetch: keepErrorBodies(boundedFetch(maxBytes, (unit) => oversizedWireError(unit, maxBytes, config.limits))),
  });
}
