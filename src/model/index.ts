export * from './ir.js';
export * from './model-error.js';
export type { ModelGateway, GatewayConfig, RetryPolicy } from './gateway.js';
export { DEFAULT_RETRY_POLICY } from './gateway.js';
export { createGateway, RetryingGateway, retryPolicyOf } from './create-gateway.js';
export {
  withRetries,
  streamWithRetries,
  resolveRetryPolicy,
  backoffDelay,
  retryDelay,
  isRetryable,
  sleepAbortable,
  type RetryOptions,
  type Sleep,
} from './retry.js';
export {
  toStrictJsonSchema,
  stripStrictNulls,
  parseToolArguments,
  wireParameters,
  StrictSchemaError,
  ToolArgumentsError,
} from './strict-schema.js';
export { jsonNestsDeeperThan, MAX_JSON_DEPTH } from './json-depth.js';
export { boundedFetch, loadFetch, type Fetch } from './bounded-fetch.js';
export { DEFAULT_TIMEOUT_MS, DEFAULT_STREAM_START_TIMEOUT_MS, DEFAULT_STREAM_IDLE_TIMEOUT_MS } from './sdk-client.js';
export { DEFAULT_RESPONSE_LIMITS, type ResponseLimits } from './response-limits.js';
export * from './model-catalog.js';
export { estimateCost, ratesFor, usageCost, type CostEstimate, type CostUsage } from './estimate-cost.js';
export { BudgetGateway, type BudgetModel, type BudgetOptions } from './budget-gateway.js';
export { FallbackGateway, MODEL_FALLBACK_WARNING } from './fallback-gateway.js';
export {
  compileOutputSchema,
  outputSchemaInstruction,
  wireResponseFormat,
  OUTPUT_SCHEMA_NAME,
  type OutputSchema,
} from './output-schema.js';
export {
  DEFAULT_WIRE_API,
  DIALECT_LIST,
  dialectOf,
  findDialect,
  sameProvider,
  providerNameOf,
  wireApiChoices,
  type Dialect,
  type ProviderFamily,
} from './dialects.js';
export {
  MAX_TEMPERATURE,
  MIN_TEMPERATURE,
  modelSettingsOf,
  modelSettingsProblem,
  requestSettings,
  type ModelSettings,
} from './model-settings.js';
