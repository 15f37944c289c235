// The fake provider's registry of wires: for each wire API it answers, the route, the envelope of
// its errors, its key check, the request checks in the API's own words and the builders of its
// answers. The server (fake-provider.ts) asks here and never compares wire names itself; a new
// dialect's fake is its `<dialect>-wire.ts` plus one entry below.

import type { WireApi } from '../model/index.js';
import { anthropicRequestProblem } from './anthropic-checks.js';
import { anthropicErrorBody, anthropicErrorType, buildAnthropicFrames, buildAnthropicMessage } from './anthropic-wire.js';
import { buildChatCompletion, buildChatCompletionFrames } from './chat-completions-wire.js';
import { buildResponse, buildResponseFrames } from './responses-wire.js';
import type { ResolvedTurn } from './scripted-turn.js';
import type { SseFrame } from './sse.js';
import { defaultErrorType, wireErrorBody } from './wire-error.js';
import type { WireMeta, WireReply } from './wire-meta.js';

/** An error to answer with; `code`, `param` and `type` are OpenAI's fields (Anthropic's envelope has only a type). */
export interface WireErrorFacts {
  status: number;
  message: string;
  code?: string | null;
  param?: string | null;
  type?: string;
  requestId: string | null;
}

export interface FakeWire {
  wireApi: WireApi;
  /** The SDK's path under the fake's base URL. */
  path: string;
  errorBody(error: WireErrorFacts): unknown;
  /** The key check for `FakeProviderOptions.apiKey`. */
  authorized(headers: Record<string, string>, apiKey: string): boolean;
  /** The 401 a wrong key gets. */
  unauthorized: { message: string; code: string | null };
  /** What makes the body's shape unusable for this wire, or null. */
  shapeProblem(body: Record<string, unknown>): string | null;
  /** Further checks the real API makes, in its own words (answered 400 as they are), or null. */
  requestProblem(body: Record<string, unknown>, headers: Record<string, string>): string | null;
  /** The 400 a request over the context window gets. */
  contextOverflow(inputTokens: number, contextWindow: number): { message: string; code: string | null; param: string | null };
  /** Derived usage reports an explicit prompt cache (Anthropic's breakpoints, anthropic-prompt-cache.ts). */
  explicitPromptCache: boolean;
  buildReply(turn: ResolvedTurn, meta: WireMeta): WireReply;
  buildFrames(turn: ResolvedTurn, meta: WireMeta): SseFrame[];
  /** The `event:` name of a malformed line; the Anthropic SDK skips data without one. */
  malformedEvent?: string;
}

/** OpenAI's two wires share the envelope, the key check and the overflow message. */
function openAiWire(
  wireApi: WireApi,
  path: string,
  messagesField: string,
  shapeProblem: FakeWire['shapeProblem'],
  build: Pick<FakeWire, 'buildReply' | 'buildFrames'>,
): FakeWire {
  return {
    wireApi,
    path,
    errorBody: (error) =>
      wireErrorBody(error.message, error.type ?? defaultErrorType(error.status), error.code ?? null, error.param ?? null),
    authorized: (headers, apiKey) => headers.authorization === `Bearer ${apiKey}`,
    unauthorized: { message: 'Incorrect API key provided.', code: 'invalid_api_key' },
    shapeProblem,
    requestProblem: () => null,
    contextOverflow: (inputTokens, contextWindow) => ({
      message: `This model's maximum context length is ${contextWindow} tokens. However, your messages resulted in ${inputTokens} tokens. Please reduce the length of the messages.`,
      code: 'context_length_exceeded',
      param: messagesField,
    }),
    explicitPromptCache: false,
    ...build,
  };
}

const FAKE_WIRES: { readonly [Name in WireApi]: FakeWire } = {
  chat: openAiWire(
    'chat',
    '/v1/chat/completions',
    'messages',
    (body) => (Array.isArray(body.messages) ? null : "'messages' must be an array"),
    { buildReply: buildChatCompletion, buildFrames: buildChatCompletionFrames },
  ),
  responses: openAiWire(
    'responses',
    '/v1/responses',
    'input',
    (body) => (typeof body.input === 'string' || Array.isArray(body.input) ? null : "'input' must be a string or an array"),
    { buildReply: buildResponse, buildFrames: buildResponseFrames },
  ),
  anthropic: {
    wireApi: 'anthropic',
    // The Anthropic SDK's path under its base URL (`baseURL` + '/v1/messages').
    path: '/v1/messages',
    errorBody: (error) => anthropicErrorBody(error.type ?? anthropicErrorType(error.status), error.message, error.requestId),
    // `x-api-key` wins when both are sent, as on the real API.
    authorized: (headers, apiKey) =>
      headers['x-api-key'] !== undefined ? headers['x-api-key'] === apiKey : headers.authorization === `Bearer ${apiKey}`,
    unauthorized: { message: 'invalid x-api-key', code: null },
    shapeProblem: (body) => (Array.isArray(body.messages) ? null : "'messages' must be an array"),
    requestProblem: anthropicRequestProblem,
    contextOverflow: (inputTokens, contextWindow) => ({
      message: `prompt is too long: ${inputTokens} tokens > ${contextWindow} maximum`,
      code: null,
      param: null,
    }),
    explicitPromptCache: true,
    buildReply: buildAnthropicMessage,
    buildFrames: buildAnthropicFrames,
    malformedEvent: 'content_block_delta',
  },
};

/** The wire served at `path`, or undefined. */
export function fakeWireAt(path: string): FakeWire | undefined {
  return Object.values(FAKE_WIRES).find((wire) => wire.path === path);
}
