// Model-visible history is a list of response items. It is the unit of commit (a round's items
// are appended together or not at all), of persistence (one `response_item` record each) and of
// replay. `itemsToModelMessages` is the only place items become IR messages.

import type { ModelReasoning, ModelToolCall } from '../model/index.js';
import type { ResponseItem } from '../protocol/index.js';

// The item shapes are protocol/'s (sessions store them, the server serves them); derived from its
// schema and re-exported here with the functions that build and read them.
export type { ResponseItem, RuntimeRole } from '../protocol/index.js';

export type MessageItem = Extract<ResponseItem, { type: 'message' }>;
export type FunctionCallItem = Extract<ResponseItem, { type: 'function_call' }>;
export type FunctionCallOutputItem = Extract<ResponseItem, { type: 'function_call_output' }>;
export type CompactionSummaryItem = Extract<ResponseItem, { type: 'compaction_summary' }>;
export type ReasoningItem = Extract<ResponseItem, { type: 'reasoning' }>;

export function reasoningItem(reasoning: ModelReasoning): ReasoningItem {
  return { type: 'reasoning', format: reasoning.format, text: reasoning.text, state: reasoning.state };
}

/** Whether an item is part of what the model said in a round (its reasoning, text or calls). */
export function isAssistantSide(item: ResponseItem): boolean {
  return item.type === 'reasoning' || item.type === 'function_call' || (item.type === 'message' && item.role === 'assistant');
}

export function systemMessage(content: string): ResponseItem {
  return { type: 'message', role: 'system', content };
}

export function userMessage(content: string): ResponseItem {
  return { type: 'message', role: 'user', content };
}

export function isUserMessage(item: ResponseItem): item is MessageItem & { role: 'user' } {
  return item.type === 'message' && item.role === 'user';
}

/** The item committed for a call the provider named `providerId` and Glassbox named `call.id`. */
export function functionCallItem(call: ModelToolCall, providerId: string): FunctionCallItem {
  const item: FunctionCallItem = { type: 'function_call', callId: call.id, name: call.name, arguments: call.arguments };
  if (providerId !== call.id) item.providerCallId = providerId;
  if (call.providerFields !== undefined) item.providerFields = call.providerFields;
  return item;
}

/**
 * A provider id safe to build on: characters every known provider accepts in a tool-call id, and
 * short enough that the suffixed id stays within the common 64-character limit.
 */
const PLAIN_ID = /^[A-Za-z0-9_-]{1,48}$/;
/** Provider ids made only of 6–16 letters and digits (Mistral's 9): renamed ids keep that shape. */
const SHORT_ALPHANUMERIC = /^[A-Za-z0-9]{6,16}$/;

/**
 * Hands out tool-call ids that are unique among the ids it has seen. Several providers reuse ids
 * (`call_1` in every response, `"..."`, the same id twice in one response, or none), and a history
 * with two calls of one id is ambiguous to pair and rejected by strict providers. A fresh id is
 * `<provider id>_gb<n>` (`call_gb<n>` when the provider id is empty or has unusual characters).
 * Deterministic for a given sequence of `claim`s, which replay relies on.
 */
export class CallIdAllocator {
  private readonly taken: Set<string>;
  /** Next suffix to try per base: keeps a long run of one reused id linear, not quadratic. */
  private readonly nextSuffix = new Map<string, number>();

  constructor(history: Iterable<ResponseItem> = []) {
    this.taken = new Set();
    for (const item of history) if (item.type === 'function_call') this.taken.add(item.callId);
  }

  /** The id to use for a call the provider named `providerId`: that id when it is free, else a fresh one. */
  claim(providerId: string): string {
    let id = providerId;
    if ((id === '' || this.taken.has(id)) && SHORT_ALPHANUMERIC.test(providerId)) {
      id = this.sameShape(providerId);
    } else if (id === '' || this.taken.has(id)) {
      const base = PLAIN_ID.test(providerId) ? providerId : 'call';
      // `call_1_gb2` reads as "the second call_1"; an id we could not build on starts at 1.
      let suffix = this.nextSuffix.get(base) ?? (base === providerId ? 2 : 1);
      do {
        id = `${base}_gb${suffix}`;
        suffix += 1;
      } while (this.taken.has(id));
      this.nextSuffix.set(base, suffix);
    }
    this.taken.add(id);
    return id;
  }

  /**
   * A fresh id of the same length, letters and digits only: some providers validate the shape
   * (Mistral answers 422 unless an id is exactly 9 characters of `[a-zA-Z0-9]`), so a renamed id
   * keeps the format the provider itself uses.
   */
  private sameShape(providerId: string): string {
    const width = providerId.length;
    let counter = this.nextSuffix.get(`#${width}`) ?? 1;
    let id: string;
    do {
      const digits = counter.toString(36);
      id = `gb${digits.padStart(width - 2, '0')}`.slice(-width);
      counter += 1;
    } while (this.taken.has(id));
    this.nextSuffix.set(`#${width}`, counter);
    return id;
  }
}
