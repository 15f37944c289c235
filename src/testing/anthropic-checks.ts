// What the real Messages API refuses, checked by the fake provider on the anthropic wire so a
// conversion mistake fails a test the way it would fail against Anthropic. Each message is the
// API's own wording, as quoted in public bug reports:
// - "messages.6: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_…"
//   (anthropics/claude-code#5060), "messages.48.content.1: unexpected `tool_use_id` found in
//   `tool_result` blocks: toolu_…" (anthropics/claude-code#13460), "Did not find 1 tool_result
//   block(s) at the beginning of this message…" (anthropics/anthropic-sdk-typescript#653).
// - "messages: at least one message is required", "thinking.enabled.budget_tokens: Input should be
//   greater than or equal to 1024" (danny-avila/LibreChat#7346), "`max_tokens` must be greater
//   than `thinking.budget_tokens`…" (liuw1535/antigravity2api-nodejs#149).
// - Sampling parameters under API version 2026-10-21: "temperature: Extra inputs are not
//   permitted" (Synthorai, "Anthropic API 2026-10-21: temperature … 400").
// - Thinking blocks: "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but
//   found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a
//   thinking block …" (anomalyco/opencode#3077) and "messages.1.content.0: Invalid `signature` in
//   `thinking` block" (anthropics/claude-code#10627).

import type { ResolvedReasoning } from './scripted-turn.js';
import { anthropicThinkingBlock } from './anthropic-wire.js';

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function blocksOf(message: Json): Json[] {
  if (typeof message.content === 'string') return [{ type: 'text', text: message.content }];
  return Array.isArray(message.content) ? message.content.filter(isRecord) : [];
}

const TOOL_USE_ID = /^[a-zA-Z0-9_-]+$/;
const MAX_CACHE_BREAKPOINTS = 4;

function countCacheControl(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((sum: number, entry) => sum + countCacheControl(entry), 0);
  if (!isRecord(value)) return 0;
  return value.cache_control !== undefined && value.cache_control !== null ? 1 : 0;
}

function toolPairingProblem(messages: Json[]): string | null {
  for (const [i, message] of messages.entries()) {
    const blocks = blocksOf(message);
    if (message.role === 'assistant') {
      const ids = blocks.filter((block) => block.type === 'tool_use').map((block) => String(block.id));
      for (const [k, block] of blocks.entries()) {
        if (block.type === 'tool_use' && !TOOL_USE_ID.test(String(block.id))) {
          return `messages.${i}.content.${k}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`;
        }
      }
      if (ids.length === 0) continue;
      const next = messages[i + 1];
      const answered = new Set(
        next?.role === 'user'
          ? blocksOf(next)
              .filter((b) => b.type === 'tool_result')
              .map((b) => String(b.tool_use_id))
          : [],
      );
      const missing = ids.filter((id) => !answered.has(id));
      if (missing.length > 0) {
        return `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
      }
      // `next` is there: without it every id would be missing.
      const leading = blocksOf(next!).slice(0, ids.length);
      if (leading.some((block) => block.type !== 'tool_result')) {
        return `messages.${i + 1}: Did not find ${ids.length} tool_result block(s) at the beginning of this message. Messages following tool_use blocks must begin with a matching number of tool_result blocks.`;
      }
    } else {
      const before = messages[i - 1];
      const previous = before !== undefined && before.role === 'assistant' ? blocksOf(before) : [];
      const issued = new Set(previous.filter((b) => b.type === 'tool_use').map((b) => String(b.id)));
      for (const [k, block] of blocks.entries()) {
        if (block.type === 'tool_result' && !issued.has(String(block.tool_use_id))) {
          return `messages.${i}.content.${k}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(block.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
        }
      }
    }
  }
  return null;
}

/** Why the real API would answer this body with 400 invalid_request_error, or null. */
export function anthropicRequestProblem(body: Json, headers: Record<string, string>): string | null {
  if (body.max_tokens === undefined) return 'max_tokens: Field required';
  if (typeof body.max_tokens !== 'number' || !Number.isInteger(body.max_tokens) || body.max_tokens < 1) {
    return 'max_tokens: Input should be greater than or equal to 1';
  }
  if (!Array.isArray(body.messages)) return 'messages: Field required';
  if (body.messages.length === 0) return 'messages: at least one message is required';
  // API version 2026-10-21 (the one SDK 1.x sends) has no sampling parameters any more.
  if ((headers['anthropic-version'] ?? '') >= '2026-10-21') {
    for (const field of ['temperature', 'top_p', 'top_k']) {
      if (field in body) return `${field}: Extra inputs are not permitted`;
    }
  }
  const thinking = body.thinking;
  if (isRecord(thinking) && thinking.type === 'enabled') {
    const budget = thinking.budget_tokens;
    if (typeof budget !== 'number' || budget < 1024) return 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024';
    if (budget >= body.max_tokens) {
      return '`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size';
    }
  }
  const messages = body.messages.filter(isRecord);
  const systemBlocks = Array.isArray(body.system) ? body.system : [];
  const breakpoints =
    countCacheControl(body.tools ?? []) +
    countCacheControl(systemBlocks) +
    messages.reduce((sum, message) => sum + countCacheControl(blocksOf(message)), 0);
  if (breakpoints > MAX_CACHE_BREAKPOINTS)
    return `A maximum of ${MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found ${breakpoints}.`;
  for (const message of messages) {
    for (const block of blocksOf(message)) {
      if (block.type === 'text' && block.text === '') return 'messages: text content blocks must be non-empty';
    }
  }
  const usesTools = messages.some((message) =>
    blocksOf(message).some((block) => block.type === 'tool_use' || block.type === 'tool_result'),
  );
  if (usesTools && (!Array.isArray(body.tools) || body.tools.length === 0))
    return 'Requests which include `tool_use` or `tool_result` blocks must define tools.';
  return toolPairingProblem(messages);
}

function withoutCacheControl(block: Json): string {
  const { cache_control: _ignored, ...rest } = block;
  return JSON.stringify(rest);
}

/**
 * The thinking check behind `requireReasoningBack`: an assistant turn whose tool calls came with
 * a thinking block must carry exactly that block back. Missing on the last assistant turn (the one
 * the tool loop continues), the API asks for it; changed anywhere, the signature fails. `issuedFor`
 * gives the reasoning handed out with a tool call id, if any.
 */
export function anthropicThinkingProblem(body: Json, issuedFor: (callId: string) => ResolvedReasoning | null): string | null {
  const messages = Array.isArray(body.messages) ? body.messages.filter(isRecord) : [];
  let lastAssistant = -1;
  messages.forEach((message, i) => {
    if (message.role === 'assistant') lastAssistant = i;
  });
  for (const [i, message] of messages.entries()) {
    if (message.role !== 'assistant') continue;
    const blocks = blocksOf(message);
    const expected = blocks
      .filter((block) => block.type === 'tool_use')
      .map((block) => issuedFor(String(block.id)))
      .find((reasoning): reasoning is ResolvedReasoning => reasoning !== null);
    if (expected === undefined) continue;
    const wanted = JSON.stringify(anthropicThinkingBlock(expected));
    if (blocks.some((block) => withoutCacheControl(block) === wanted)) continue;
    const thinkingAt = blocks.findIndex((block) => block.type === 'thinking' || block.type === 'redacted_thinking');
    if (thinkingAt !== -1) return `messages.${i}.content.${thinkingAt}: Invalid \`signature\` in \`thinking\` block`;
    if (i === lastAssistant) {
      return (
        `messages.${i}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(blocks[0]?.type)}\`. ` +
        'When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). ' +
        'We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. ' +
        'Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking'
      );
    }
  }
  return null;
}
