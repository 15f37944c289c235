// The fake provider's token arithmetic. It is deliberately a crude chars/4 estimate: tests need a
// number they can predict exactly from the request body, not a faithful tokenizer.

import type { WireApi } from '../model/index.js';

/** ceil(chars / 4), counting UTF-16 code units like `String.length`. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** The body fields that make up each wire's prompt, in the order counted. */
const PROMPT_FIELDS: { readonly [Name in WireApi]: readonly string[] } = {
  chat: ['messages', 'tools'],
  responses: ['input', 'instructions', 'tools'],
  anthropic: ['system', 'messages', 'tools'],
};

/**
 * The input-size estimate used for derived usage and for `contextWindow` rejection: the JSON of the
 * request's conversation (Chat `messages`; Responses `input` and `instructions`; Anthropic `system` and
 * `messages`) plus its `tools`.
 * Exported so tests can compute the exact number the fake will report.
 */
export function estimateRequestTokens(body: Record<string, unknown>, wireApi: WireApi): number {
  const text = PROMPT_FIELDS[wireApi]
    .map((field) => body[field])
    .filter((part) => part !== undefined && part !== null)
    .map((part) => JSON.stringify(part))
    .join('');
  return estimateTokens(text);
}
