// `glassbox/model`: the provider-neutral IR and the gateway that speaks it to OpenAI Chat
// Completions, OpenAI Responses and Anthropic Messages, with its errors, the model catalog and
// cost estimates. Chosen by hand; everything else under src/model/ is internal and may change.
// test/architecture/public-api.test.ts pins this list.

export {
  DEFAULT_RETRY_POLICY,
  ModelError,
  REASONING_EFFORTS,
  WIRE_APIS,
  createGateway,
  estimateCost,
  isModelError,
  lookupModel,
  resolveModel,
  toStrictJsonSchema,
} from '../model/index.js';
export type {
  CostEstimate,
  FinishReason,
  GatewayConfig,
  JsonSchema,
  ModelCallOptions,
  ModelEntry,
  ModelErrorCode,
  ModelGateway,
  ModelLimits,
  ModelMessage,
  ModelPricing,
  ModelRequest,
  ModelResponse,
  ModelStreamEvent,
  ModelToolCall,
  ModelToolDefinition,
  ReasoningEffort,
  ResolvedModel,
  RetryNotice,
  RetryPolicy,
  Usage,
  WireApi,
} from '../model/index.js';
