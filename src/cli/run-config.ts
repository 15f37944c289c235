// Turns flags and environment into one validated run configuration. Every problem is a
// `UsageError` that says what to fix; nothing here touches the network.

import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  DEFAULT_WIRE_API,
  dialectOf,
  findDialect,
  MAX_TEMPERATURE,
  MIN_TEMPERATURE,
  modelSettingsOf,
  REASONING_EFFORTS,
  wireApiChoices,
  type ModelGateway,
  type ModelSettings,
  type ReasoningEffort,
  type WireApi,
} from '../model/index.js';
import type { RunnerSettings, ToolPolicySettings } from '../runner/index.js';
import type { TelemetrySettings } from '../telemetry/index.js';
import { SANDBOX_MODES, type SandboxMode } from '../workspace/index.js';
import { APPROVAL_POLICIES, type ApprovalPolicy } from '../permissions/index.js';
import { UsageError } from './usage-error.js';
import { resolveHome } from './glassbox-home.js';
import { envValue } from './cli-env.js';
import { readModelSettingsConfig, type ConfiguredModelSettings } from './model-settings-config.js';

export { resolveHome };

// permissions/'s (protocol/'s) approval policies, under the name the CLI's callers know.
export { APPROVAL_POLICIES };
export type ApprovalPolicyName = ApprovalPolicy;

export const DEMO_MODEL = 'glassbox-demo';

/** The model settings (model, wire, effort, output cap, temperature) and how to reach the model. */
export interface ModelConfig extends ModelSettings {
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
  reasoningEffort?: string;
  maxOutputTokens?: string;
  temperature?: string;
}

export function resolveCommonConfig(options: ModelOptionValues, env: NodeJS.ProcessEnv = process.env): CommonConfig {
  const root = resolve(options.cd ?? process.cwd());
  if (!existsSync(root)) throw new UsageError(`project root ${root} does not exist (check -C/--cd)`);
  if (!statSync(root).isDirectory()) throw new UsageError(`project root ${root} is not a directory (check -C/--cd)`);
  const home = resolveHome(options.home, env);
  return { ...resolveModelConfig(options, env, readModelSettingsConfig(home)), root, home };
}

/** The flags of a turn that `exec` and the interactive session share, besides the model's. */
export interface TurnOptionValues extends ModelOptionValues {
  sandbox?: string;
  approvalPolicy?: string;
  network?: boolean;
  maxRounds?: string;
  tokenBudget?: string;
  compactAt?: string;
  contextWindow?: string;
}

/** Everything a turn's runner is opened with except the gateway and telemetry, checked up front. */
export interface TurnConfig extends CommonConfig, ToolPolicySettings {
  maxRounds?: number;
  tokenBudget?: number;
  compactAt?: string;
  contextWindow?: string;
}

/** Flags and environment → a turn's configuration; every bad value is a `UsageError`, before anything starts. */
export function resolveTurnConfig(options: TurnOptionValues, env: NodeJS.ProcessEnv = process.env): TurnConfig {
  return {
    ...resolveCommonConfig(options, env),
    sandbox: parseSandboxMode(options.sandbox, 'read-only'),
    approvalPolicy: parseApprovalPolicy(options.approvalPolicy, 'on-request'),
    network: options.network === true,
    maxRounds: parsePositiveInt(options.maxRounds, '--max-rounds'),
    tokenBudget: parsePositiveInt(options.tokenBudget, '--token-budget'),
    compactAt: options.compactAt,
    contextWindow: options.contextWindow,
  };
}

/** The runner settings of a turn: `exec` and the interactive session open their runners alike. */
export function turnRunnerSettings(
  config: TurnConfig,
  gateway: ModelGateway,
  telemetry: TelemetrySettings | null,
): RunnerSettings & ToolPolicySettings {
  return {
    ...modelSettingsOf(config),
    root: config.root,
    home: config.home,
    gateway,
    sandbox: config.sandbox,
    approvalPolicy: config.approvalPolicy,
    network: config.network,
    maxRounds: config.maxRounds,
    tokenBudget: config.tokenBudget,
    compactAt: config.compactAt,
    contextWindow: config.contextWindow,
    telemetry,
  };
}

/** Flags and environment (and `modelSettings` from config.json, which flags override) → the model configuration. */
export function resolveModelConfig(
  options: ModelOptionValues,
  env: NodeJS.ProcessEnv = process.env,
  configured: ConfiguredModelSettings = {},
): ModelConfig {
  const wireApi = parseWireApi(options.wireApi ?? DEFAULT_WIRE_API);
  // The key, endpoint and default model come from the wire's provider family (model/dialects.ts).
  const { provider } = dialectOf(wireApi);
  const apiKey = envValue(provider.keyVariable, env)?.trim() ?? '';
  // --base-url wins; else the wire API's own variable (OPENAI_BASE_URL or ANTHROPIC_BASE_URL).
  const baseUrlOption = (options.baseUrl ?? envValue(provider.baseUrlVariable, env))?.trim() ?? '';
  const streamIdleTimeoutMs = parseStreamIdleTimeout(options.streamIdleTimeout);
  const reasoningEffort = parseReasoningEffort(options.reasoningEffort) ?? configured.reasoningEffort;
  const maxOutputTokens = parsePositiveInt(options.maxOutputTokens, '--max-output-tokens') ?? configured.maxOutputTokens;
  const temperatureFlag = parseTemperature(options.temperature);
  const dialect = dialectOf(wireApi);
  if (temperatureFlag !== undefined && !dialect.acceptsTemperature) {
    throw new UsageError(`--temperature: ${dialect.label} (--wire-api ${wireApi}) accepts no temperature; leave it unset`);
  }
  // A temperature from config.json stays unsent on a wire that refuses it (model-settings.ts).
  const temperature = temperatureFlag ?? configured.temperature;
  const timeouts = {
    ...(streamIdleTimeoutMs === undefined ? {} : { streamIdleTimeoutMs }),
    ...(reasoningEffort === undefined ? {} : { reasoningEffort }),
    ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
    ...(temperature === undefined ? {} : { temperature }),
  };
  if (options.demo || (apiKey === '' && baseUrlOption === '')) {
    return { model: options.model?.trim() || DEMO_MODEL, wireApi, baseURL: null, apiKey: 'demo', demo: true, ...timeouts };
  }
  const baseURL = baseUrlOption === '' ? provider.baseURL : parseBaseUrl(baseUrlOption);
  if (apiKey === '' && baseURL === provider.baseURL) {
    throw new UsageError(`${provider.keyVariable} is not set; set it, or point --base-url at an endpoint that needs no key`);
  }
  // Local OpenAI-compatible servers (Ollama, vLLM, llama.cpp) usually ignore the key, but the SDK needs one.
  return { model: options.model?.trim() || provider.defaultModel, wireApi, baseURL, apiKey: apiKey || 'no-key', demo: false, ...timeouts };
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

/** --stop-grace: seconds (0 or more, up to an hour) a stopping team worker lets its runs go on. */
export function parseStopGrace(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!(seconds >= 0 && seconds <= 3600)) throw new UsageError(`--stop-grace expects a number of seconds from 0 to 3600, got "${value}"`);
  return Math.round(seconds * 1000);
}

/** --temperature: a number from 0 to 2 (the range OpenAI documents; others take a subset). */
export function parseTemperature(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const temperature = /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!(temperature >= MIN_TEMPERATURE && temperature <= MAX_TEMPERATURE)) {
    throw new UsageError(`--temperature expects a number from ${MIN_TEMPERATURE} to ${MAX_TEMPERATURE}, got "${value}"`);
  }
  return temperature;
}

export function parseWireApi(value: string): WireApi {
  const dialect = findDialect(value);
  if (dialect !== undefined) return dialect.name;
  throw new UsageError(`unknown wire API "${value}"; use --wire-api ${wireApiChoices()}`);
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

export function parseReasoningEffort(value: string | undefined): ReasoningEffort | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const normalized = value.trim().toLowerCase();
  if ((REASONING_EFFORTS as readonly string[]).includes(normalized)) return normalized as ReasoningEffort;
  throw new UsageError(`unknown reasoning effort ${JSON.stringify(value)}: use one of ${REASONING_EFFORTS.join(', ')}`);
}
