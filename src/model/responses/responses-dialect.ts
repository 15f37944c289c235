// The Responses dialect as the registry (../dialects.ts) sees it.

import type { Dialect } from '../dialect.js';
import { OPENAI_PROVIDER } from '../openai-provider.js';
import { resolveClientConfig } from '../sdk-client.js';
import { ResponsesGateway } from './responses-gateway.js';

export const responsesDialect: Dialect<'responses'> = {
  name: 'responses',
  aliases: [],
  label: 'Responses',
  provider: OPENAI_PROVIDER,
  acceptsTemperature: true,
  createGateway: (config) => new ResponsesGateway(resolveClientConfig(config)),
};
