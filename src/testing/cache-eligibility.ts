// How much of a request a provider's prefix cache could serve: the longest common prefix with the
// request before it, in whole pieces (each tool, system block and message), in the order the
// providers render a prompt (tools, then system, then messages). Tokens are the chars/4 estimate.
// Anthropic's rule that a changed `tool_choice` invalidates the cached message blocks (tools and
// system stay cached; platform.claude.com/docs/en/agents-and-tools/tool-use/define-tools) is
// applied; cache breakpoints and minimum lengths are not (anthropic-prompt-cache.ts models those).

import type { WireApi } from '../model/index.js';

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stripMarkers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripMarkers);
  if (!isRecord(value)) return value;
  const out: Json = {};
  for (const [key, entry] of Object.entries(value)) if (key !== 'cache_control') out[key] = stripMarkers(entry);
  return out;
}

interface Pieces {
  head: string[];
  messages: string[];
}

/** Anthropic Messages: the system blocks head the prompt; consecutive same-role content is one turn on the wire, each block a piece. */
function anthropicPieces(body: Json, head: string[], messages: string[]): void {
  const system = body.system;
  if (typeof system === 'string') head.push(`system:${system}`);
  else for (const block of (system as unknown[] | undefined) ?? []) head.push(`system:${JSON.stringify(stripMarkers(block))}`);
  for (const message of (body.messages as Json[] | undefined) ?? []) {
    const content = message.content;
    if (typeof content === 'string') messages.push(`${String(message.role)}:${content}`);
    else for (const block of (content as unknown[]) ?? []) messages.push(`${String(message.role)}:${JSON.stringify(stripMarkers(block))}`);
  }
}

/** OpenAI's wires: `instructions` (Responses) heads the prompt; each message or input item is a piece. */
function openAiPieces(listField: string): (body: Json, head: string[], messages: string[]) => void {
  return (body, head, messages) => {
    if (typeof body.instructions === 'string') head.push(`instructions:${body.instructions}`);
    for (const message of (body[listField] as unknown[] | undefined) ?? []) messages.push(JSON.stringify(message));
  };
}

/** How each wire renders its prompt, and whether changing `tool_choice` invalidates the cached messages. */
const WIRE_PROMPTS: {
  readonly [Name in WireApi]: { pieces: (body: Json, head: string[], messages: string[]) => void; choiceInvalidates: boolean };
} = {
  chat: { pieces: openAiPieces('messages'), choiceInvalidates: false },
  responses: { pieces: openAiPieces('input'), choiceInvalidates: false },
  anthropic: { pieces: anthropicPieces, choiceInvalidates: true },
};

function pieces(body: Json, wireApi: WireApi): Pieces {
  const head: string[] = [];
  const messages: string[] = [];
  for (const tool of (body.tools as unknown[] | undefined) ?? []) head.push(`tool:${JSON.stringify(stripMarkers(tool))}`);
  WIRE_PROMPTS[wireApi].pieces(body, head, messages);
  return { head, messages };
}

function tokens(list: readonly string[]): number {
  return Math.ceil(list.reduce((sum, piece) => sum + piece.length, 0) / 4);
}

function commonPrefix(a: readonly string[], b: readonly string[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n += 1;
  return n;
}

export interface CacheEligibility {
  /** Estimated tokens of the request's prompt (tools, system, messages). */
  tokens: number;
  /** Of those, the tokens in the longest common prefix with the previous request. */
  eligible: number;
  /** Tokens of the part no request could have cached: tools and system (what survives any compaction). */
  headTokens: number;
}

/** The cache-eligible part of `body`, given the request sent before it (null: the first request). */
export function cacheEligibility(body: Json, previous: Json | null, wireApi: WireApi): CacheEligibility {
  const current = pieces(body, wireApi);
  const all = [...current.head, ...current.messages];
  const total = tokens(all);
  const headTokens = tokens(current.head);
  if (previous === null) return { tokens: total, eligible: 0, headTokens };
  const before = pieces(previous, wireApi);
  const headCommon = commonPrefix(current.head, before.head);
  if (headCommon < current.head.length || headCommon < before.head.length) {
    return { tokens: total, eligible: tokens(current.head.slice(0, headCommon)), headTokens };
  }
  const choiceChanged =
    WIRE_PROMPTS[wireApi].choiceInvalidates && JSON.stringify(body.tool_choice) !== JSON.stringify(previous.tool_choice);
  const messageCommon = choiceChanged ? 0 : commonPrefix(current.messages, before.messages);
  return { tokens: total, eligible: headTokens + tokens(current.messages.slice(0, messageCommon)), headTokens };
}
