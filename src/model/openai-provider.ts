// OpenAI's provider family, shared by its two dialects (Chat Completions and Responses): one value,
// so switching between them keeps the key and the endpoint.

import type { ProviderFamily } from './dialect.js';

export const OPENAI_PROVIDER: ProviderFamily = {
  name: 'openai',
  keyVariable: 'OPENAI_API_KEY',
  baseUrlVariable: 'OPENAI_BASE_URL',
  baseURL: 'https://api.openai.com/v1',
  defaultModel: 'gpt-5-mini',
  realModelHint:
    'glassbox: to use a real model: export OPENAI_API_KEY=…  (or --base-url http://localhost:11434/v1 for Ollama), then glassbox exec -m <model> "…"',
};
