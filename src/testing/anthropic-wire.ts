// Renders one resolved turn in the Anthropic Messages dialect: the `message` object for a plain
// request, or the SSE event sequence for `stream: true`, as the real API sends it (recorded in
// test/fixtures/providers/anthropic/): `message_start`, a `ping` after the first block starts,
// per block `content_block_start` → `content_block_delta`* → `content_block_stop` (thinking blocks
// end with an empty thinking_delta and a `signature_delta`; tool_use blocks start with `input: {}`
// and an empty input_json_delta), then `message_delta` (stop_reason, cumulative usage) and
// `message_stop`. Every frame has its `event:` line: the SDK skips data without one.
// Errors use Anthropic's envelope: {"type":"error","error":{"type":…,"message":…},"request_id":…}.

import { createHash } from 'node:crypto';
import { jsonFrame, type SseFrame } from './sse.js';
import { splitIntoChunks, type ResolvedReasoning, type ResolvedTurn, type ResolvedUsage } from './scripted-turn.js';
import type { WireMeta, WireReply } from './wire-meta.js';

type Json = Record<string, unknown>;

/** The `error.type` the real API puts on an HTTP error of this status (platform.claude.com/docs/en/api/errors). */
export function anthropicErrorType(status: number): string {
  switch (status) {
    case 401:
      return 'authentication_error';
    case 402:
      return 'billing_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 409:
      return 'conflict_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 504:
      return 'timeout_error';
    case 529:
      return 'overloaded_error';
    default:
      return status >= 500 ? 'api_error' : 'invalid_request_error';
  }
}

export function anthropicErrorBody(type: string, message: string, requestId: string | null = null): Json {
  return { type: 'error', error: { type, message }, request_id: requestId };
}

/**
 * The thinking block a resolved reasoning becomes, with a deterministic fake signature (or
 * redacted data). The reasoning ledger compares what comes back against exactly this.
 */
export function anthropicThinkingBlock(reasoning: ResolvedReasoning): Json {
  const digest = createHash('sha256').update(`${reasoning.token}\n${reasoning.text}`).digest('base64');
  if (reasoning.redacted) return { type: 'redacted_thinking', data: `Glassbox-fake-redacted-${reasoning.token}-${digest}` };
  return { type: 'thinking', thinking: reasoning.text, signature: `Glassbox-fake-signature-${reasoning.token}-${digest}` };
}

/** Wire usage. `usage.input` is the whole input; Anthropic reports the part past the cache on its own. */
function anthropicUsage(usage: ResolvedUsage, stage: 'start' | 'final'): Json {
  const cacheRead = usage.cached ?? 0;
  const cacheWrite = usage.cacheWrite ?? 0;
  const wire: Json = { input_tokens: Math.max(0, usage.input - cacheRead - cacheWrite) };
  // A compatible server that does not cache reports no cache fields at all.
  if (usage.cached !== null) {
    wire.cache_creation_input_tokens = cacheWrite;
    wire.cache_read_input_tokens = cacheRead;
    if (stage === 'start') wire.cache_creation = { ephemeral_5m_input_tokens: cacheWrite, ephemeral_1h_input_tokens: 0 };
  }
  // message_start reports the first token or so; message_delta the cumulative count.
  wire.output_tokens = stage === 'start' ? Math.min(1, usage.output) : usage.output;
  if (stage === 'final') wire.output_tokens_details = { thinking_tokens: usage.reasoning };
  else wire.service_tier = 'standard';
  return wire;
}

function stopReason(turn: ResolvedTurn): string {
  if (turn.refusal !== null || turn.finishReason === 'content_filter') return 'refusal';
  if (turn.finishReason === 'length') return 'max_tokens';
  if (turn.finishReason === 'tool_calls') return 'tool_use';
  return 'end_turn';
}

function stopDetails(turn: ResolvedTurn): Json | null {
  if (turn.refusal !== null) return { type: 'refusal', category: null, explanation: turn.refusal };
  if (turn.finishReason === 'content_filter') return { type: 'refusal', category: 'general_harms', explanation: null };
  return null;
}

/** The content blocks of the answer, complete (as in a non-streamed message). */
function contentBlocks(turn: ResolvedTurn): Json[] {
  const blocks: Json[] = [];
  if (turn.reasoning !== null) blocks.push(anthropicThinkingBlock(turn.reasoning));
  if (turn.text !== '' || (turn.toolCalls.length === 0 && turn.refusal === null)) blocks.push({ type: 'text', text: turn.text });
  for (const call of turn.toolCalls) {
    // The API hands back the parsed input; arguments scripted as invalid JSON travel as a string,
    // and so do arguments nested too deep for this server to serialise again (streamed, that is
    // exactly the text the API sends).
    let input: unknown = call.arguments;
    try {
      const parsed: unknown = JSON.parse(call.arguments);
      JSON.stringify(parsed);
      input = parsed;
    } catch {
      // Kept as the string.
    }
    blocks.push({ type: 'tool_use', id: call.id, name: call.name, input, caller: { type: 'direct' } });
  }
  return blocks;
}

function baseMessage(meta: WireMeta, id: string): Json {
  return {
    model: meta.model,
    id,
    type: 'message',
    role: 'assistant',
    content: [],
    stop_reason: null,
    stop_sequence: null,
    stop_details: null,
  };
}

function failure(turn: ResolvedTurn): { type: string; message: string } | null {
  const fault = turn.fault;
  if (fault?.kind === 'response_failed') return { type: fault.code ?? 'api_error', message: fault.message };
  if (fault?.kind === 'stream_error_event') return { type: 'api_error', message: fault.message };
  return null;
}

/** The non-streaming answer. In-band failure faults become HTTP 500, as there is no failed message. */
export function buildAnthropicMessage(turn: ResolvedTurn, meta: WireMeta): WireReply {
  const failed = failure(turn);
  if (failed !== null) return { status: 500, body: anthropicErrorBody(failed.type, failed.message, meta.ids.next('req_fake_')) };
  const id = meta.ids.next('msg_fake_');
  const body: Json = {
    ...baseMessage(meta, id),
    content: contentBlocks(turn),
    stop_reason: stopReason(turn),
    stop_details: stopDetails(turn),
    container: null,
  };
  if (turn.usage !== null) body.usage = { ...anthropicUsage(turn.usage, 'start'), ...anthropicUsage(turn.usage, 'final') };
  return { status: 200, body };
}

/** One content block's events, from its start to its stop. */
function blockFrames(index: number, block: Json, turn: ResolvedTurn): Json[] {
  const events: Json[] = [];
  const delta = (value: Json): void => {
    events.push({ type: 'content_block_delta', index, delta: value });
  };
  switch (block.type) {
    case 'thinking':
      events.push({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } });
      for (const piece of splitIntoChunks(String(block.thinking), turn.chunkSize)) delta({ type: 'thinking_delta', thinking: piece });
      delta({ type: 'thinking_delta', thinking: '' });
      delta({ type: 'signature_delta', signature: block.signature });
      break;
    case 'redacted_thinking':
      events.push({ type: 'content_block_start', index, content_block: block });
      break;
    case 'text':
      events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const piece of splitIntoChunks(String(block.text), turn.chunkSize)) delta({ type: 'text_delta', text: piece });
      break;
    case 'tool_use': {
      events.push({ type: 'content_block_start', index, content_block: { ...block, input: {} } });
      delta({ type: 'input_json_delta', partial_json: '' });
      const raw = typeof block.input === 'string' ? block.input : JSON.stringify(block.input);
      for (const piece of splitIntoChunks(raw, turn.chunkSize)) delta({ type: 'input_json_delta', partial_json: piece });
      break;
    }
  }
  events.push({ type: 'content_block_stop', index });
  return events;
}

/** The SSE sequence for `stream: true`. In-band failure faults end it with an `error` event. */
export function buildAnthropicFrames(turn: ResolvedTurn, meta: WireMeta): SseFrame[] {
  const id = meta.ids.next('msg_fake_');
  const start: Json = { ...baseMessage(meta, id) };
  if (turn.usage !== null) start.usage = anthropicUsage(turn.usage, 'start');
  const events: Json[] = [{ type: 'message_start', message: start }];
  const failed = failure(turn);
  if (turn.fault?.kind !== 'stream_error_event') {
    contentBlocks(turn).forEach((block, index) => {
      const frames = blockFrames(index, block, turn);
      events.push(frames[0]!); // every block has at least its stop frame
      // The real API pings once, right after the first block starts.
      if (index === 0) events.push({ type: 'ping' });
      events.push(...frames.slice(1));
    });
  }
  if (failed !== null) {
    events.push(anthropicErrorBody(failed.type, failed.message, meta.ids.next('req_fake_')));
  } else {
    const delta: Json = {
      type: 'message_delta',
      delta: { stop_reason: stopReason(turn), stop_sequence: null, stop_details: stopDetails(turn) },
    };
    delta.usage = turn.usage === null ? { output_tokens: 0 } : anthropicUsage(turn.usage, 'final');
    events.push(delta, { type: 'message_stop' });
  }
  return events.map((event) => jsonFrame(event, String(event.type)));
}
