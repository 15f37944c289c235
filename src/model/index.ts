export * from './ir.js';
export * from './model-error.js';
export type { ModelGateway, GatewayConfig, RetryPolicy } from './gateway.js';
export { DEFAULT_RETRY_POLICY } from './gateway.js';
