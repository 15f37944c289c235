export { AnthropicGateway, resolveAnthropicConfig } from './anthropic-gateway.js';
