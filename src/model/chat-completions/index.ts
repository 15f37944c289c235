export { ChatCompletionsGateway } from './chat-completions-gateway.js';
