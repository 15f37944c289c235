// The one place an OpenAI SDK client is built, so both dialects agree on the settings that matter:
// the SDK's own retries are off (ours in retry.ts would otherwise multiply with them) and its
// console logging is off (every failure reaches the caller as a ModelError instead).

import OpenAI from 'openai';
import type { GatewayConfig } from './gateway.js';

export const DEFAULT_TIMEOUT_MS = 600_000;

export interface ResolvedClientConfig {
  baseURL: string;
  apiKey: string;
  timeoutMs: number;
  headers: Record<string, string>;
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
  const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
    throw new Error(`Invalid timeout ${String(config.timeoutMs)}: expected a positive whole number of milliseconds.`);
  }
  return {
    baseURL: config.baseURL.replace(/\/+$/, ''),
    apiKey: config.apiKey,
    timeoutMs,
    headers: { ...(config.headers ?? {}) },
  };
}

export function createSdkClient(config: ResolvedClientConfig): OpenAI {
  return new OpenAI({
    apiKey: config.apiKey,
    baseURL: config.baseURL,
    maxRetries: 0,
    timeout: config.timeoutMs,
    defaultHeaders: config.headers,
    logLevel: 'off',
  });
}
