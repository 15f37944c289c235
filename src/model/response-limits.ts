// Size caps on one model answer. A provider that never stops talking (a runaway model, a looping
// proxy, a hostile endpoint) would otherwise be read to the end and held whole: in the mapper, in
// every delta passed on, in the committed items and the session file. So a response is abandoned
// the moment it passes a cap, and the caller gets RESPONSE_TOO_LARGE instead of an answer nobody
// could use. Not retried: the same request would most likely run away again.
//
// Limits count UTF-16 code units (`string.length`): what is held in memory, and checkable in O(1)
// per delta. Reasoning text is never accumulated by the dialects, so it needs no cap of its own;
// the per-event byte bound (bounded-fetch.ts) still covers it.

import { ModelError } from './model-error.js';

export interface ResponseLimits {
  /** The answer's text (plus any refusal text) in one response. */
  maxTextChars: number;
  /** One tool call's argument string. */
  maxArgumentChars: number;
  /** Text and every call's arguments together: bounds a response of many calls each under the cap. */
  maxResponseChars: number;
}

// Why these numbers: the largest output budgets today are about 128k tokens, roughly 512 Ki
// characters of prose or code. So 1 Mi characters of text, or of one call's arguments (a whole file
// for write_file, JSON-escaped), is beyond any real answer, and 4 Mi in total still lets a batch of
// several large writes through. Past that the answer is a runaway, and memory stays in the
// low tens of megabytes instead of growing with whatever the provider sends.
export const DEFAULT_RESPONSE_LIMITS: Readonly<ResponseLimits> = {
  maxTextChars: 1024 * 1024,
  maxArgumentChars: 1024 * 1024,
  maxResponseChars: 4 * 1024 * 1024,
};

const LIMIT_NAMES = ['maxTextChars', 'maxArgumentChars', 'maxResponseChars'] as const;

/** Merge overrides onto the defaults; throws naming the bad setting. */
export function resolveResponseLimits(overrides: Partial<ResponseLimits> = {}): ResponseLimits {
  const limits: ResponseLimits = { ...DEFAULT_RESPONSE_LIMITS, ...overrides };
  for (const name of LIMIT_NAMES) {
    if (!Number.isInteger(limits[name]) || limits[name] <= 0) {
      throw new Error(`Invalid limits.${name} ${String(limits[name])}: expected a positive whole number of characters.`);
    }
  }
  return limits;
}

/**
 * The most bytes one SSE event (or one non-streamed body) may carry. The biggest legitimate one
 * repeats the whole answer (Responses' `response.completed`), JSON-escaped at up to 6 bytes per
 * character, beside the echoed request settings; 8 bytes per allowed character plus 1 MiB covers
 * that, and anything bigger cannot hold an answer within the limits anyway.
 */
export function maxEventBytes(limits: ResponseLimits): number {
  return 8 * limits.maxResponseChars + 1024 * 1024;
}

function tooLarge(what: string, limit: number, setting: keyof ResponseLimits): ModelError {
  return new ModelError(
    'RESPONSE_TOO_LARGE',
    `${what} passed ${limit} characters (limits.${setting}); stopped reading the response. ` +
      `Ask the model for less (e.g. write a large file in parts), or raise limits.${setting} in the gateway config.`,
  );
}

/** A body or event the byte bound refused; `unit` says which. */
export function oversizedWireError(unit: 'event' | 'body', maxBytes: number, limits: ResponseLimits): ModelError {
  const what = unit === 'event' ? 'sent a single stream event' : 'sent a response body';
  return new ModelError(
    'RESPONSE_TOO_LARGE',
    `The provider ${what} of more than ${maxBytes} bytes, more than any answer within ` +
      `limits.maxResponseChars (${limits.maxResponseChars} characters) can need; stopped reading it. ` +
      'Raise limits.maxResponseChars in the gateway config if the answer is genuinely that large.',
  );
}

/**
 * Tracks the sizes one response has reached. The mappers report a size before they append to it,
 * so an over-limit delta is neither kept nor passed on.
 */
export class ResponseSizeGuard {
  private textChars = 0;
  private reasoningChars = 0;
  private argumentTotal = 0;
  private readonly argumentChars: number[] = [];

  constructor(private readonly limits: ResponseLimits = DEFAULT_RESPONSE_LIMITS) {}

  /** The text (answer plus refusal) is about to be `chars` long. */
  text(chars: number): void {
    if (chars > this.limits.maxTextChars) throw tooLarge("The response's text", this.limits.maxTextChars, 'maxTextChars');
    this.textChars = chars;
    this.checkTotal();
  }

  /** The reasoning (readable text and provider state) is about to be `chars` long; bounded like the text. */
  reasoning(chars: number): void {
    if (chars > this.limits.maxTextChars) throw tooLarge("The response's reasoning", this.limits.maxTextChars, 'maxTextChars');
    this.reasoningChars = chars;
    this.checkTotal();
  }

  /** Call `index`'s arguments are about to be `chars` long. */
  arguments(index: number, name: string, chars: number): void {
    if (chars > this.limits.maxArgumentChars) {
      const label = name === '' ? `tool call #${index}` : `tool call #${index} (${name})`;
      throw tooLarge(`The arguments of ${label}`, this.limits.maxArgumentChars, 'maxArgumentChars');
    }
    this.argumentTotal += chars - (this.argumentChars[index] ?? 0);
    this.argumentChars[index] = chars;
    this.checkTotal();
  }

  private checkTotal(): void {
    if (this.textChars + this.reasoningChars + this.argumentTotal > this.limits.maxResponseChars) {
      throw tooLarge("The response's text, reasoning and tool arguments together", this.limits.maxResponseChars, 'maxResponseChars');
    }
  }
}

/** The same checks on a complete (non-streamed) response. */
export function checkResponseSize(
  text: string,
  toolCalls: ReadonlyArray<{ name: string; arguments: string }>,
  limits: ResponseLimits,
  reasoningChars = 0,
): void {
  const guard = new ResponseSizeGuard(limits);
  guard.text(text.length);
  guard.reasoning(reasoningChars);
  for (const [index, call] of toolCalls.entries()) guard.arguments(index, call.name, call.arguments.length);
}
