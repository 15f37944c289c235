// What Glassbox knows about one wire dialect, in one value: its name, whose keys and endpoints it
// uses, what its requests can carry and how to open its gateway. Each dialect folder exports one
// (`model/<dialect>/<dialect>-dialect.ts`) and `dialects.ts` is the only place that lists them, so
// nothing outside a dialect's folder and the registry has to branch on a wire name.

import type { GatewayConfig, ModelGateway } from './gateway.js';
import type { WireApi } from './ir.js';
import type { ModelProvider } from './model-entry.js';

/**
 * A provider family: where the key, the endpoint and the default model of its dialects come from.
 * Dialects of one family (OpenAI's Chat Completions and Responses) share one value, so "same
 * provider" is identity.
 */
export interface ProviderFamily {
  /** The catalog's provider (`/model` lists its models) and the trace's `gen_ai.provider.name`. */
  name: ModelProvider;
  /** The variable holding the API key, e.g. OPENAI_API_KEY. */
  keyVariable: string;
  /** The variable naming the endpoint when `--base-url` is not given, e.g. OPENAI_BASE_URL. */
  baseUrlVariable: string;
  /** The first-party endpoint, in the form the SDK expects. */
  baseURL: string;
  /** The model used when none is named. */
  defaultModel: string;
  /** The demo notice's line on how to use a real model of this family. */
  realModelHint: string;
}

export interface Dialect<Name extends WireApi = WireApi> {
  /** The wire name: `--wire-api`, a session's `wireApi`, a reasoning's `format`. */
  name: Name;
  /** Further spellings `--wire-api` accepts (lower case). */
  aliases: readonly string[];
  /** The API's own name, for help and messages. */
  label: string;
  provider: ProviderFamily;
  /** Whether the API accepts `temperature`; a setting it would refuse is an error before any request. */
  acceptsTemperature: boolean;
  /** The single-attempt gateway; config problems are thrown from here (retries wrap it in create-gateway.ts). */
  createGateway(config: GatewayConfig): ModelGateway;
}
