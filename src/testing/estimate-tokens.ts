// The fake provider's token arithmetic. It is deliberately a crude chars/4 estimate: tests need a
// number they can predict exactly from the request body, not a faithful tokenizer.

import type { WireApi } from '../model/index.js';

/** ceil(chars / 4), counting UTF-16 code units like `String.length`. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * The input-size estimate used for derived usage and for `contextWindow` rejection: the JSON of the
 * request's conversation (Chat `messages`; Responses `input` and `instructions`; Anthropic `system` and
 * `messages`) plus its `tools`.
 * Exported so tests can compute the exact number the fake will report.
 */
export function estimateRequestTokens(body: Record<string, unknown>, wireApi: WireApi): number {
  const parts =
    wireApi === 'chat'
      ? [body.messages, body.tools]
      : wireApi === 'anthropic'
        ? [body.system, body.messages, body.tools]
        : [body.input, body.instructions, body.tools];
  const text = parts
    .filter((part) => part !== undefined && part !== null)
    .map((part) => JSON.stringify(part))
    .join('');
  return estimateTokens(text);
}
