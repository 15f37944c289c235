// How much of each request a provider's prompt cache could serve, measured from the bodies the
// fake provider captured: each request is cut into the pieces a provider renders, in its render
// order (tools, then system or instructions, then messages), each piece the JSON we sent with any
// `cache_control` marker taken out (markers steer the cache, they are not prompt text), and
// tokenized with gpt-tokenizer's o200k encoding, piece by piece (a chat template separates
// messages with special tokens, so no token spans two). What is cache-eligible then follows each
// provider's documented rule:
//
// - OpenAI (Chat Completions, Responses; automatic caching): the longest common token prefix with
//   any earlier request of the session, counted only from 1,024 tokens and in steps of 128 (OpenAI
//   Cookbook, "Prompt Caching 201", §1.1). Top-level settings (`tool_choice`, reasoning effort,
//   `prompt_cache_key`) are not rendered as prompt tokens and are not compared.
// - Anthropic (explicit caching, platform.claude.com prompt caching): only a prefix a `cache_control`
//   breakpoint wrote can be read, whole blocks only, at a breakpoint or up to 20 blocks before one;
//   a prefix under 1,024 tokens is never written (Sonnet's minimum); a changed `tool_choice` or
//   `thinking` invalidates the message blocks (tools and system stay cached). What lies between the
//   read and the last breakpoint is written (billed at the write rate).
//
// Not modelled: time-to-live (every request of a session is assumed to be inside it), eviction,
// and the providers' own tokenizers (o200k is OpenAI's; Claude's counts differ by some percent,
// which scales numerator and denominator alike).

import { createHash } from 'node:crypto';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import type { WireApi } from '../src/model/index.js';

type Json = Record<string, unknown>;

export const OPENAI_MIN_CACHED_TOKENS = 1_024;
export const OPENAI_CACHE_STEP_TOKENS = 128;
export const ANTHROPIC_MIN_CACHED_TOKENS = 1_024;
const ANTHROPIC_LOOKBACK_BLOCKS = 20;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function withoutMarker(value: unknown): { json: string; breakpoint: boolean } {
  if (!isRecord(value)) return { json: JSON.stringify(value), breakpoint: false };
  const { cache_control: marker, ...rest } = value;
  return { json: JSON.stringify(rest), breakpoint: marker !== undefined && marker !== null };
}

interface RawPiece {
  text: string;
  breakpoint: boolean;
  /** Tools and system/instructions: what every request of a session starts with. */
  head: boolean;
  /** The first piece of the message blocks (where Anthropic's tool_choice rule cuts). */
  firstMessage: boolean;
}

function rawPieces(body: Json, wireApi: WireApi): RawPiece[] {
  const pieces: RawPiece[] = [];
  const push = (text: string, breakpoint: boolean, head: boolean): void => {
    const firstMessage = !head && !pieces.some((piece) => !piece.head);
    pieces.push({ text, breakpoint, head, firstMessage });
  };
  for (const tool of (body.tools as unknown[] | undefined) ?? []) {
    const { json, breakpoint } = withoutMarker(tool);
    push(`tool:${json}`, breakpoint, true);
  }
  if (wireApi === 'anthropic') {
    if (typeof body.system === 'string') push(`system:${body.system}`, false, true);
    for (const block of (body.system as unknown[] | undefined) ?? []) {
      const { json, breakpoint } = withoutMarker(block);
      push(`system:${json}`, breakpoint, true);
    }
    // A turn's blocks follow one another; only the turn's first block carries the role, so a block
    // appended to the last turn leaves the pieces before it unchanged, as it leaves the prompt.
    for (const message of (body.messages as Json[] | undefined) ?? []) {
      const role = `${String(message.role)}:`;
      const content = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : (message.content as unknown[]);
      content.forEach((block, index) => {
        const { json, breakpoint } = withoutMarker(block);
        push(`${index === 0 ? role : ''}${json}`, breakpoint, false);
      });
    }
    return pieces;
  }
  if (typeof body.instructions === 'string') push(`instructions:${body.instructions}`, false, true);
  const list = ((wireApi === 'chat' ? body.messages : body.input) as Json[] | undefined) ?? [];
  list.forEach((message, index) => {
    // Leading system messages are part of every request of the session, like the tools.
    const head = message.role === 'system' && list.slice(0, index).every((earlier) => earlier.role === 'system');
    push(JSON.stringify(message), false, head);
  });
  return pieces;
}

/** One request as the meter sees it. */
export interface MeasuredPrompt {
  /** Prompt tokens (tools, system, messages). */
  tokens: number;
  /** Of those, the tokens in the head (tools and system): what survives any compaction. */
  headTokens: number;
  /** Of those, the tokens the provider's cache could serve. */
  eligible: number;
  /** Anthropic: tokens this request writes to the cache (billed at the write rate); 0 on OpenAI. */
  written: number;
}

interface Prompt {
  ids: number[];
  /** cumulative[k]: tokens of the first k pieces. */
  cumulative: number[];
}

/** OpenAI's granularity: nothing under 1,024 tokens, then whole steps of 128. */
export function openAiCachedTokens(prefix: number): number {
  if (prefix < OPENAI_MIN_CACHED_TOKENS) return 0;
  return OPENAI_MIN_CACHED_TOKENS + Math.floor((prefix - OPENAI_MIN_CACHED_TOKENS) / OPENAI_CACHE_STEP_TOKENS) * OPENAI_CACHE_STEP_TOKENS;
}

/**
 * The cache of one session on one wire. Feed it every request the provider accepted, in order;
 * each answer says what the cache held for it, given what the requests before it left there.
 */
export class PromptCacheMeter {
  private readonly pieceIds = new Map<string, number>();
  private readonly pieceTokens: number[][] = [];
  private readonly earlier: Prompt[] = [];
  /** Anthropic: the prefixes breakpoints wrote, by chained hash, with their tokens. */
  private readonly written = new Map<string, number>();

  constructor(private readonly wireApi: WireApi) {}

  private intern(text: string): number {
    let id = this.pieceIds.get(text);
    if (id === undefined) {
      id = this.pieceTokens.length;
      this.pieceIds.set(text, id);
      this.pieceTokens.push(encode(text));
    }
    return id;
  }

  /** Tokens of the longest common prefix of two prompts, token by token inside the first piece that differs. */
  private commonTokens(a: Prompt, b: Prompt): number {
    let k = 0;
    while (k < a.ids.length && k < b.ids.length && a.ids[k] === b.ids[k]) k += 1;
    let tokens = a.cumulative[k]!;
    if (k < a.ids.length && k < b.ids.length) {
      const x = this.pieceTokens[a.ids[k]!]!;
      const y = this.pieceTokens[b.ids[k]!]!;
      let n = 0;
      while (n < x.length && n < y.length && x[n] === y[n]) n += 1;
      tokens += n;
    }
    return tokens;
  }

  measure(body: Json): MeasuredPrompt {
    const pieces = rawPieces(body, this.wireApi);
    const ids = pieces.map((piece) => this.intern(piece.text));
    const cumulative = [0];
    for (const id of ids) cumulative.push(cumulative.at(-1)! + this.pieceTokens[id]!.length);
    const prompt: Prompt = { ids, cumulative };
    const tokens = cumulative.at(-1)!;
    const headTokens = cumulative[pieces.filter((piece) => piece.head).length]!;
    const result = this.wireApi === 'anthropic' ? this.anthropic(body, pieces, prompt) : this.openAi(prompt);
    this.earlier.push(prompt);
    return { tokens, headTokens, ...result };
  }

  private openAi(prompt: Prompt): { eligible: number; written: number } {
    let longest = 0;
    for (const before of this.earlier) longest = Math.max(longest, this.commonTokens(prompt, before));
    return { eligible: openAiCachedTokens(longest), written: 0 };
  }

  private anthropic(body: Json, pieces: RawPiece[], prompt: Prompt): { eligible: number; written: number } {
    // The message blocks' cache depends on tool_choice and thinking: they enter the chain there.
    const messageKey = JSON.stringify({ tool_choice: body.tool_choice ?? null, thinking: body.thinking ?? null });
    const hashes: string[] = [];
    let hash = String(body.model ?? '');
    pieces.forEach((piece, index) => {
      const update = createHash('sha256').update(hash);
      if (piece.firstMessage) update.update(`\n${messageKey}`);
      hash = update.update('\n').update(String(prompt.ids[index])).digest('hex');
      hashes.push(hash);
    });
    const breakpoints = pieces.flatMap((piece, index) => (piece.breakpoint ? [index] : []));
    let read = 0;
    for (const breakpoint of breakpoints) {
      for (let index = breakpoint; index >= 0 && index > breakpoint - ANTHROPIC_LOOKBACK_BLOCKS; index -= 1) {
        const tokens = this.written.get(hashes[index]!);
        if (tokens !== undefined) {
          read = Math.max(read, tokens);
          break;
        }
      }
    }
    let written = 0;
    for (const breakpoint of breakpoints) {
      const tokens = prompt.cumulative[breakpoint + 1]!;
      if (tokens < ANTHROPIC_MIN_CACHED_TOKENS) continue;
      this.written.set(hashes[breakpoint]!, tokens);
      written = Math.max(written, tokens - read);
    }
    return { eligible: read, written };
  }
}
