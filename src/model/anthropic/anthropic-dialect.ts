// The Anthropic Messages dialect as the registry (../dialects.ts) sees it.

import type { Dialect, ProviderFamily } from '../dialect.js';
import { AnthropicGateway, resolveAnthropicConfig } from './anthropic-gateway.js';

export const ANTHROPIC_PROVIDER: ProviderFamily = {
  name: 'anthropic',
  keyVariable: 'ANTHROPIC_API_KEY',
  baseUrlVariable: 'ANTHROPIC_BASE_URL',
  // Anthropic's convention: the base without /v1 (the SDK appends /v1/messages).
  baseURL: 'https://api.anthropic.com',
  // The current Sonnet (platform.claude.com models overview: Sonnet 5.5 replaced Sonnet 5).
  defaultModel: 'claude-sonnet-5-5',
  realModelHint: 'glassbox: to use Claude: export ANTHROPIC_API_KEY=…, then glassbox exec --wire-api anthropic "…" (or -m <model>)',
};

export const anthropicDialect: Dialect<'anthropic'> = {
  name: 'anthropic',
  aliases: [],
  label: 'Anthropic Messages',
  provider: ANTHROPIC_PROVIDER,
  // API version 2026-10-21, the one SDK 1.x speaks, refuses sampling parameters (convert-request.ts).
  acceptsTemperature: false,
  createGateway: (config) => new AnthropicGateway(resolveAnthropicConfig(config)),
};
