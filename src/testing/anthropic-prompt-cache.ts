// The fake provider's model of Anthropic prompt caching, so derived usage on the anthropic wire
// reports cache reads and writes the way the API would for the breakpoints a request marks
// (platform.claude.com, prompt caching): the prefix is rendered tools → system → messages; a
// `cache_control` breakpoint writes the prefix up to and including its block; a later request
// reads the longest written prefix it finds at one of its breakpoints or up to 20 blocks before
// one (the lookback); what lies between that read and the last breakpoint is written.
// Simplified: prefixes are compared by content, token counts are the chars/4 estimate, and the
// minimum cacheable length (1024+ tokens) and TTL are not modelled.

import { createHash } from 'node:crypto';
import type { ResolvedUsage } from './scripted-turn.js';

type Json = Record<string, unknown>;

const LOOKBACK_BLOCKS = 20;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

interface Piece {
  json: string;
  breakpoint: boolean;
}

function piece(value: unknown, prefix = ''): Piece {
  if (!isRecord(value)) return { json: prefix + JSON.stringify(value), breakpoint: false };
  const { cache_control: marker, ...rest } = value;
  return { json: prefix + JSON.stringify(rest), breakpoint: marker !== undefined && marker !== null };
}

/** Every cacheable block of the request, in render order. */
function linearize(body: Json): Piece[] {
  const pieces: Piece[] = [];
  if (Array.isArray(body.tools)) for (const tool of body.tools) pieces.push(piece(tool, 'tool:'));
  if (typeof body.system === 'string') pieces.push(piece(body.system, 'system:'));
  else if (Array.isArray(body.system)) for (const block of body.system) pieces.push(piece(block, 'system:'));
  if (Array.isArray(body.messages)) {
    body.messages.forEach((message, index) => {
      if (!isRecord(message)) return;
      const role = `${index}:${String(message.role)}:`;
      if (typeof message.content === 'string') pieces.push(piece({ type: 'text', text: message.content }, role));
      else if (Array.isArray(message.content)) for (const block of message.content) pieces.push(piece(block, role));
    });
  }
  return pieces;
}

export class AnthropicPromptCache {
  private readonly written = new Set<string>();

  /** Records what the request writes and returns its usage with the cache read and write filled in. */
  apply(body: Json, usage: ResolvedUsage): ResolvedUsage {
    const pieces = linearize(body);
    const hashes: string[] = [];
    const tokens: number[] = [];
    let hash = String(body.model ?? '');
    let chars = 0;
    for (const entry of pieces) {
      hash = createHash('sha256').update(hash).update('\n').update(entry.json).digest('hex');
      chars += entry.json.length;
      hashes.push(hash);
      tokens.push(Math.ceil(chars / 4));
    }
    const breakpoints = pieces.flatMap((entry, index) => (entry.breakpoint ? [index] : []));
    if (breakpoints.length === 0) return { ...usage, cached: usage.cached === null ? null : 0, cacheWrite: 0 };
    let read = 0;
    for (const breakpoint of breakpoints) {
      for (let index = breakpoint; index >= 0 && index > breakpoint - LOOKBACK_BLOCKS; index--) {
        if (this.written.has(hashes[index]!)) {
          read = Math.max(read, tokens[index]!);
          break;
        }
      }
    }
    const last = breakpoints[breakpoints.length - 1]!;
    const write = Math.max(0, tokens[last]! - read);
    for (const breakpoint of breakpoints) this.written.add(hashes[breakpoint]!);
    return { ...usage, input: Math.max(usage.input, read + write), cached: read, cacheWrite: write };
  }
}
