// The scripted fake OpenAI-compatible provider: used by tests and by the offline demo model.

export { startFakeProvider } from './fake-provider.js';
export type { ExchangeOutcome, FakeProvider, FakeProviderOptions } from './fake-provider.js';
export { estimateTokens, estimateRequestTokens } from './estimate-tokens.js';
export { validateScriptedTurn } from './scripted-turn.js';
export type {
  CapturedRequest,
  ScriptedFault,
  ScriptedFinishReason,
  ScriptedToolCall,
  ScriptedTurn,
  ScriptedUsage,
  ScriptStep,
} from './scripted-turn.js';
