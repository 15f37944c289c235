// The Chat Completions dialect as the registry (../dialects.ts) sees it.

import type { Dialect } from '../dialect.js';
import { OPENAI_PROVIDER } from '../openai-provider.js';
import { resolveClientConfig } from '../sdk-client.js';
import { ChatCompletionsGateway } from './chat-completions-gateway.js';

export const chatCompletionsDialect: Dialect<'chat'> = {
  name: 'chat',
  aliases: ['chat-completions', 'chat_completions'],
  label: 'Chat Completions',
  provider: OPENAI_PROVIDER,
  acceptsTemperature: true,
  createGateway: (config) => new ChatCompletionsGateway(resolveClientConfig(config)),
};
