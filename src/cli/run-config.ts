// Turns flags and environment into one validated run configuration. Every problem is a
// `UsageError` that says what to fix; nothing here touches the network.

import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { WIRE_APIS, type WireApi } from '../model/index.js';
import { SANDBOX_MODES, type SandboxMode } from '../agent/index.js';
import { UsageError } from './usage-error.js';
import { resolveHome } from './glassbox-home.js';
import { envValue } from './cli-env.js';

export { resolveHome };

export type ApprovalPolicyName = 'untrusted' | 'on-request' | 'never';
export const APPROVAL_POLICIES: readonly ApprovalPolicyName[] = ['untrusted', 'on-request', 'never'];

export const DEFAULT_MODEL = 'gpt-5-mini';
export const DEMO_MODEL = 'glassbox-demo';
export const OPENAI_BASE_URL = 'https://api.openai.com/v1';

export interface ModelConfig {
  model: string;
  wireApi: WireApi;
  /** null: use the built-in demo provider. */
  baseURL: string | null;
  apiKey: string;
  demo: boolean;
  /** --stream-idle-timeout in ms; undefined: the gateway's default. Pass it on to createGateway. */
  streamIdleTimeoutMs?: number;
}

export interface CommonConfig extends ModelConfig {
  root: string;
  home: string;
}

export interface ModelOptionValues {
  model?: string;
  baseUrl?: string;
  wireApi?: string;
  cd?: string;
  home?: string;
  demo?: boolean;
  streamIdleTimeout?: string;
}

export function resolveCommonConfig(options: ModelOptionValues, env: NodeJS.ProcessEnv = process.env): CommonConfig {
  const root = resolve(options.cd ?? process.cwd());
  if (!existsSync(root)) throw new UsageError(`project root ${root} does not exist (check -C/--cd)`);
  if (!statSync(root).isDirectory()) throw new UsageError(`project root ${root} is not a directory (check -C/--cd)`);
  return { ...resolveModelConfig(options, env), root, home: resolveHome(options.home, env) };
}


export function resolveModelConfig(options: ModelOptionValues, env: NodeJS.ProcessEnv = process.env): ModelConfig {
  const wireApi = parseWireApi(options.wireApi ?? 'chat');
  const apiKey = envValue('OPENAI_API_KEY', env)?.trim() ?? '';
  const baseUrlOption = options.baseUrl?.trim() ?? '';
  const streamIdleTimeoutMs = parseStreamIdleTimeout(options.streamIdleTimeout);
  const timeouts = streamIdleTimeoutMs === undefined ? {} : { streamIdleTimeoutMs };
  if (options.demo || (apiKey === '' && baseUrlOption === '')) {
    return { model: options.model?.trim() || DEMO_MODEL, wireApi, baseURL: null, apiKey: 'demo', demo: true, ...timeouts };
  }
  const baseURL = baseUrlOption === '' ? OPENAI_BASE_URL : parseBaseUrl(baseUrlOption);
  if (apiKey === '' && baseURL === OPENAI_BASE_URL) {
    throw new UsageError('OPENAI_API_KEY is not set; set it, or point --base-url at an endpoint that needs no key');
  }
  // Local OpenAI-compatible servers (Ollama, vLLM, llama.cpp) usually ignore the key, but the SDK needs one.
  return { model: options.model?.trim() || DEFAULT_MODEL, wireApi, baseURL, apiKey: apiKey || 'no-key', demo: false, ...timeouts };
}

/** setTimeout's ceiling: a longer delay would fire at once. */
const MAX_TIMEOUT_SECONDS = Math.floor(2_147_483_647 / 1000);

/** --stream-idle-timeout / GLASSBOX_STREAM_IDLE_TIMEOUT: seconds (fractions allowed) → ms. */
export function parseStreamIdleTimeout(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : Number.NaN;
  const ms = Math.round(seconds * 1000);
  if (!(ms >= 1 && seconds <= MAX_TIMEOUT_SECONDS)) {
    throw new UsageError(
      `--stream-idle-timeout (GLASSBOX_STREAM_IDLE_TIMEOUT) expects a positive number of seconds up to ${MAX_TIMEOUT_SECONDS}, got "${value}"`,
    );
  }
  return ms;
}

export function parseWireApi(value: string): WireApi {
  const normalized = value.trim().toLowerCase();
  if (normalized === 'chat-completions' || normalized === 'chat_completions') return 'chat';
  if ((WIRE_APIS as readonly string[]).includes(normalized)) return normalized as WireApi;
  throw new UsageError(`unknown wire API "${value}"; use --wire-api chat or --wire-api responses`);
}

function parseBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--base-url "${value}" is not a URL; expected something like http://localhost:11434/v1`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`--base-url must be http or https, got ${url.protocol}`);
  }
  return value.replace(/\/+$/, '');
}

export function parsePositiveInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value.trim()) || Number(value) <= 0) throw new UsageError(`${flag} expects a positive whole number, got "${value}"`);
  return Number(value);
}

export function parseSandboxMode(value: string | undefined, fallback: SandboxMode): SandboxMode {
  if (value === undefined) return fallback;
  if ((SANDBOX_MODES as readonly string[]).includes(value)) return value as SandboxMode;
  throw new UsageError(`unknown sandbox mode "${value}"; use ${SANDBOX_MODES.join(', ')}`);
}

export function parseApprovalPolicy(value: string | undefined, fallback: ApprovalPolicyName): ApprovalPolicyName {
  if (value === undefined) return fallback;
  if ((APPROVAL_POLICIES as readonly string[]).includes(value)) return value as ApprovalPolicyName;
  throw new UsageError(`unknown approval policy "${value}"; use ${APPROVAL_POLICIES.join(', ')}`);
}
