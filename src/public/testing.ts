// `glassbox/testing`: a scripted model on all three wire APIs over real HTTP/SSE on loopback,
// with faults, for an embedder's own tests. Chosen by hand; test/architecture/public-api.test.ts
// pins this list.

export { startFakeProvider } from '../testing/index.js';
export type {
  CapturedRequest,
  ExchangeOutcome,
  FakeProvider,
  FakeProviderOptions,
  ScriptedFault,
  ScriptedFinishReason,
  ScriptedReasoning,
  ScriptedToolCall,
  ScriptedTurn,
  ScriptedUsage,
  ScriptStep,
} from '../testing/index.js';
