// The scripted fake provider, on the OpenAI Chat Completions, OpenAI Responses and Anthropic
// Messages wires: used by tests and by the offline demo model.

export { startFakeProvider } from './fake-provider.js';
export type { ExchangeOutcome, FakeProvider, FakeProviderOptions } from './fake-provider.js';
export { estimateTokens, estimateRequestTokens } from './estimate-tokens.js';
export { cacheEligibility, type CacheEligibility } from './cache-eligibility.js';
export { sentTranscript, contentText, type SentEntry } from './sent-transcript.js';
export { validateScriptedTurn } from './scripted-turn.js';
export type {
  CapturedRequest,
  ScriptedFault,
  ScriptedFinishReason,
  ScriptedReasoning,
  ScriptedToolCall,
  ScriptedTurn,
  ScriptedUsage,
  ScriptStep,
} from './scripted-turn.js';
