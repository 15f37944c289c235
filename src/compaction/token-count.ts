// How big the context is. The provider's reported usage is the ground truth; what was appended
// since it was measured, and everything when a provider reports nothing, is estimated. The real
// tokenizer (o200k) costs ~200 ms and ~100 MB to load, so it is loaded only once a cheap
// chars/4 estimate says the count is near the threshold, where precision matters.

import type { Usage } from '../model/index.js';
import { COMPACTION_SUMMARY_PREFIX, COMPACTION_SUMMARY_SUFFIX, type ResponseItem } from '../agent/index.js';

/** Per-item framing the providers add (role markers, separators): roughly this many tokens. */
export const ITEM_OVERHEAD_TOKENS = 4;

/** A cheap estimate at or above this fraction of the threshold is re-counted with the real tokenizer. */
export const PRECISE_COUNT_FROM = 0.75;

/**
 * From this fraction the tokenizer starts loading in the background, without waiting for it: the
 * count is checked just before a model request, so the load (a few hundred ms of CPU) overlaps
 * the wait for the model instead of landing inside a later round once precision is needed.
 */
export const PREFETCH_TOKENIZER_FROM = 0.5;

export type CountTokens = (text: string) => number;
export type TokenizerLoader = () => Promise<CountTokens>;

/** The o200k encoding, imported on first use. Special-token text counts as plain text. */
export const loadO200kTokenizer: TokenizerLoader = async () => {
  const encoding = await import('gpt-tokenizer/encoding/o200k_base');
  const plain = { disallowedSpecial: new Set<string>() };
  return boundedRuns((text) => encoding.countTokens(text, plain));
};

/** Longest run of non-blank characters handed to the encoder in one piece. */
export const MAX_RUN_CHARS = 256;
const LONG_RUN = new RegExp(`\\S{${MAX_RUN_CHARS + 1},}`, 'g');

/**
 * BPE merges within one pre-token in time quadratic in its length: 16,000 characters of one
 * letter took 0.4 s, a megabyte of them (a minified file, a base64 blob in a tool's output)
 * minutes, inside a round, deaf to signals. Long runs are counted in pieces instead; only their
 * joins can differ from the whole, by a token or so per piece.
 */
export function boundedRuns(count: CountTokens): CountTokens {
  return (text) => {
    let total = 0;
    let from = 0;
    for (const match of text.matchAll(LONG_RUN)) {
      const start = match.index;
      if (start > from) total += count(text.slice(from, start));
      for (let at = 0; at < match[0].length; at += MAX_RUN_CHARS) total += count(match[0].slice(at, at + MAX_RUN_CHARS));
      from = start + match[0].length;
    }
    return from === 0 ? count(text) : total + (from < text.length ? count(text.slice(from)) : 0);
  };
}

/** ceil(chars / 4): free, and within a factor of ~1.5 of real counts for code and prose. */
export function cheapTokenEstimate(text: string): number {
  return Math.ceil(text.length / 4);
}

/** The text of an item that reaches the model, for counting. */
export function itemText(item: ResponseItem): string {
  switch (item.type) {
    case 'reasoning':
      // The readable part; encrypted state is not text the model reads back as tokens of context.
      return item.text;
    case 'message':
      return item.content;
    case 'function_call':
      return `${item.name}\n${item.arguments}`;
    case 'function_call_output':
      return `${item.name}\n${item.output}`;
    case 'compaction_summary':
      return COMPACTION_SUMMARY_PREFIX + item.summary + COMPACTION_SUMMARY_SUFFIX;
  }
}

/** The cheap estimate for one item, as used by the pure transforms (budgets must not depend on a loaded tokenizer). */
export function cheapItemTokens(item: ResponseItem): number {
  return cheapTokenEstimate(itemText(item)) + ITEM_OVERHEAD_TOKENS;
}

/**
 * Counts items cheaply or precisely, caching per item object: history items are immutable and
 * reused round after round, so each is tokenized at most once.
 */
export class TokenCounter {
  private readonly cheapCache = new WeakMap<ResponseItem, number>();
  private readonly preciseCache = new WeakMap<ResponseItem, number>();
  private tokenizer: CountTokens | null = null;
  private loading: Promise<CountTokens | null> | null = null;
  private loadFailure: Error | null = null;

  constructor(private readonly load: TokenizerLoader = loadO200kTokenizer) {}

  get tokenizerLoaded(): boolean {
    return this.tokenizer !== null;
  }

  /** Why the tokenizer could not be loaded, if it could not; counts then stay cheap. */
  get tokenizerFailure(): Error | null {
    return this.loadFailure;
  }

  cheap(items: readonly ResponseItem[]): number {
    let total = 0;
    for (const item of items) {
      let tokens = this.cheapCache.get(item);
      if (tokens === undefined) {
        tokens = cheapItemTokens(item);
        this.cheapCache.set(item, tokens);
      }
      total += tokens;
    }
    return total;
  }

  /** Precise when the tokenizer can be loaded, cheap otherwise. */
  async precise(items: readonly ResponseItem[]): Promise<number> {
    const count = await this.ensureTokenizer();
    if (count === null) return this.cheap(items);
    let total = 0;
    for (const item of items) {
      let tokens = this.preciseCache.get(item);
      if (tokens === undefined) {
        tokens = count(itemText(item)) + ITEM_OVERHEAD_TOKENS;
        this.preciseCache.set(item, tokens);
      }
      total += tokens;
    }
    return total;
  }

  /** Precise once the tokenizer is loaded anyway, cheap otherwise: for comparisons that need no new load. */
  async current(items: readonly ResponseItem[]): Promise<number> {
    return this.tokenizer === null ? this.cheap(items) : this.precise(items);
  }

  /**
   * Count `items` on top of `base` tokens: cheaply, unless that lands within reach of
   * `threshold`, in which case the tokenizer is loaded and the items counted precisely.
   */
  async countNear(items: readonly ResponseItem[], base: number, threshold: number): Promise<{ tokens: number; precise: boolean }> {
    const cheap = this.cheap(items);
    if (items.length === 0 || base + cheap < threshold * PRECISE_COUNT_FROM) {
      if (base + cheap >= threshold * PREFETCH_TOKENIZER_FROM) void this.ensureTokenizer();
      return { tokens: cheap, precise: false };
    }
    const precise = await this.precise(items);
    return { tokens: precise, precise: this.tokenizer !== null };
  }

  private async ensureTokenizer(): Promise<CountTokens | null> {
    if (this.tokenizer !== null) return this.tokenizer;
    if (this.loadFailure !== null) return null;
    this.loading ??= this.load().then(
      (count) => {
        this.tokenizer = count;
        return count;
      },
      (error: unknown) => {
        this.loadFailure = error instanceof Error ? error : new Error(String(error));
        return null;
      },
    );
    return this.loading;
  }
}

/** What the counter needs of the loop's state. */
export interface ContextView {
  readonly history: readonly ResponseItem[];
  readonly lastUsage: Usage | null;
  readonly lastUsageHistoryLength: number;
}

export interface ContextCount {
  /** null: nothing to go on (no usage, and estimating is off). */
  tokens: number | null;
  /** True when no reported usage was used: the whole count is an estimate. */
  estimated: boolean;
  /** How the count was made, for the reason text. */
  method: 'usage' | 'usage+appended' | 'estimate' | 'none';
}

export interface CountOptions {
  threshold: number;
  /** Estimate when the provider reported no usage, and add items appended since the last report. */
  estimate: boolean;
  /** Tokens every request carries outside history (tool schemas), added to full estimates. */
  overheadTokens: number;
}

/**
 * The items appended after the usage was measured, minus the round's own output at their head
 * (assistant text and calls), which the reported output tokens already cover.
 */
export function itemsSinceUsage(history: readonly ResponseItem[], measuredLength: number): readonly ResponseItem[] {
  let start = measuredLength;
  while (start < history.length) {
    const item = history[start]!;
    if (item.type === 'function_call' || (item.type === 'message' && item.role === 'assistant')) start += 1;
    else break;
  }
  return history.slice(start);
}

/** The context size the next request would have: last usage + appended items, or a full estimate. */
export async function countContext(view: ContextView, counter: TokenCounter, options: CountOptions): Promise<ContextCount> {
  const usage = view.lastUsage;
  // A usage measured against a longer history than the current one predates a rewrite of it.
  const usable = usage !== null && view.lastUsageHistoryLength <= view.history.length;
  if (usable) {
    const base = usage.inputTokens + usage.outputTokens;
    if (!options.estimate) return { tokens: base, estimated: false, method: 'usage' };
    const appended = itemsSinceUsage(view.history, view.lastUsageHistoryLength);
    if (appended.length === 0) return { tokens: base, estimated: false, method: 'usage' };
    const counted = await counter.countNear(appended, base, options.threshold);
    return { tokens: base + counted.tokens, estimated: false, method: 'usage+appended' };
  }
  if (!options.estimate) return { tokens: null, estimated: false, method: 'none' };
  const counted = await counter.countNear(view.history, options.overheadTokens, options.threshold);
  return { tokens: options.overheadTokens + counted.tokens, estimated: true, method: 'estimate' };
}
