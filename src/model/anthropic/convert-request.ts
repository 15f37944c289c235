// IR request → Anthropic Messages request body.
//
// - System messages become the top-level `system` text blocks; the rest alternate user/assistant.
//   Tool outputs are `tool_result` blocks in the user turn after the calls (consecutive user
//   content is one turn, tool results first, as the API requires).
// - An assistant turn is its blocks in the order received: the `thinking` / `redacted_thinking`
//   blocks exactly as received and in their place (the API checks their signatures, refuses a
//   tool turn without them while thinking is on, and answers 400 "thinking blocks … cannot be
//   modified" when interleaved thinking comes back regrouped), text and `tool_use` blocks between.
//   Reasoning from another dialect is dropped: its state means nothing here.
// - Prompt caching: `cache_control` marks the last tool, the system prompt, the last block of the
//   request (the moving tail, written for the next round to read) and the last block of the user
//   turn before the latest assistant turn (where the previous round's tail was written, so the
//   read does not depend on the API's 20-block lookback). Four breakpoints, the API's maximum.
//   A request that ends in a one-off suffix (`cacheWrite: 'prefix'`, the live summary request)
//   leaves the new tail unmarked: writing it costs 1.25× input and nothing would ever read it. A
//   request nothing later repeats (`cacheWrite: 'none'`) carries no breakpoint at all.
// - `toolChoice: 'none'` is not sent as `{type: 'none'}`: Anthropic documents that changing
//   `tool_choice` invalidates the cached message blocks (only tools and system stay cached), which
//   would make the live summary request a full cache miss. It keeps `auto`, as the rounds before it
//   did; the request's own instruction forbids tool calls, and a call made anyway fails the attempt.
// - Tools go out with their schema as written, without `strict`: Anthropic's strict tool use is
//   not on every model or compatible server, and the arguments are validated on arrival anyway.
// - `temperature` is not sent: API version 2026-10-21, the one SDK 1.x speaks, refuses sampling
//   parameters ("temperature: Extra inputs are not permitted"), and the SDK's types no longer have it.

import type {
  CacheControlEphemeral,
  ContentBlockParam,
  MessageCreateParamsNonStreaming,
  MessageCreateParamsStreaming,
  MessageParam,
  TextBlockParam,
  Tool,
} from '@anthropic-ai/sdk/resources/messages';
import {
  contentParts,
  type CacheWrite,
  type ModelMessage,
  type ModelReasoning,
  type ModelRequest,
  type ModelToolCall,
  type ModelToolDefinition,
} from '../ir.js';
import { jsonNestsDeeperThan } from '../json-depth.js';
import { thinkingSettings } from './thinking-config.js';

const CACHE_BREAKPOINT: CacheControlEphemeral = { type: 'ephemeral' };

type Role = 'user' | 'assistant';

interface Turn {
  role: Role;
  content: ContentBlockParam[];
}

/** Tool use ids must match ^[a-zA-Z0-9_-]+$; ids from other providers are made to fit, the same way on both ends. */
export function wireToolUseId(id: string): string {
  const cleaned = id.replace(/[^a-zA-Z0-9_-]/g, '_');
  return cleaned === '' ? 'toolu_' : cleaned;
}

/**
 * A call's `input` object from the raw argument string. Anthropic's own calls always parse; a
 * call from another dialect's history that does not (or is not an object) keeps its text under
 * `_raw_arguments`, so the model still sees what it sent.
 */
function toolInput(argumentsText: string): Record<string, unknown> {
  if (argumentsText.trim() === '') return {};
  // Serialising the body recurses: a call nested deeper than any tool accepts (it got an
  // INVALID_ARGUMENTS output) goes back as its text.
  if (jsonNestsDeeperThan(argumentsText)) return { _raw_arguments: argumentsText };
  try {
    const parsed: unknown = JSON.parse(argumentsText);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // Kept as text below.
  }
  return { _raw_arguments: argumentsText };
}

/** The thinking block to send back: anthropic-format state, unchanged; null for anything else. */
function reasoningBlock(entry: ModelReasoning): ContentBlockParam | null {
  const state = entry.state;
  if (entry.format !== 'anthropic' || state === null) return null;
  if (state.type !== 'thinking' && state.type !== 'redacted_thinking') return null;
  return state as unknown as ContentBlockParam;
}

function toolUseBlock(call: ModelToolCall): ContentBlockParam {
  const extra = call.providerFields?.format === 'anthropic' ? call.providerFields.fields : {};
  return { ...extra, type: 'tool_use', id: wireToolUseId(call.id), name: call.name, input: toolInput(call.arguments) } as ContentBlockParam;
}

function assistantBlocks(message: Extract<ModelMessage, { role: 'assistant' }>): ContentBlockParam[] {
  const blocks: ContentBlockParam[] = [];
  for (const part of contentParts({ ...message, text: message.content })) {
    if (part.type === 'reasoning') {
      const block = reasoningBlock(part.reasoning);
      if (block !== null) blocks.push(block);
    } else if (part.type === 'text') {
      // Empty text blocks are refused ("text content blocks must be non-empty").
      if (part.text !== '') blocks.push({ type: 'text', text: part.text });
    } else {
      blocks.push(toolUseBlock(part.call));
    }
  }
  return blocks;
}

function toolResultBlock(message: Extract<ModelMessage, { role: 'tool' }>): ContentBlockParam {
  return {
    type: 'tool_result',
    tool_use_id: wireToolUseId(message.toolCallId),
    ...(message.content === '' ? {} : { content: message.content }),
    ...(message.isError ? { is_error: true } : {}),
  };
}

export interface AnthropicConversation {
  system: TextBlockParam[];
  messages: MessageParam[];
}

export function toAnthropicConversation(messages: readonly ModelMessage[], cacheWrite: CacheWrite = 'extend'): AnthropicConversation {
  const system: TextBlockParam[] = [];
  const turns: Turn[] = [];
  const append = (role: Role, blocks: ContentBlockParam[]): void => {
    if (blocks.length === 0) return;
    const last = turns[turns.length - 1];
    if (last !== undefined && last.role === role) {
      // Tool results lead their user turn: the API wants them right after the calls.
      if (role === 'user' && blocks[0]?.type === 'tool_result') {
        const firstOther = last.content.findIndex((block) => block.type !== 'tool_result');
        if (firstOther !== -1) {
          last.content.splice(firstOther, 0, ...blocks);
          return;
        }
      }
      last.content.push(...blocks);
    } else {
      turns.push({ role, content: [...blocks] });
    }
  };
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        if (message.content !== '') system.push({ type: 'text', text: message.content });
        break;
      case 'user':
        append('user', message.content === '' ? [] : [{ type: 'text', text: message.content }]);
        break;
      case 'assistant':
        append('assistant', assistantBlocks(message));
        break;
      case 'tool':
        append('user', [toolResultBlock(message)]);
        break;
    }
  }
  if (cacheWrite !== 'none') markCacheBreakpoints(system, turns, cacheWrite === 'extend');
  return { system, messages: turns.map((turn) => ({ role: turn.role, content: turn.content })) };
}

/** Marks the last block that may carry a breakpoint (thinking blocks may not). */
function markLast(blocks: ContentBlockParam[]): void {
  for (let i = blocks.length - 1; i >= 0; i--) {
    const block = blocks[i]!;
    if (block.type === 'thinking' || block.type === 'redacted_thinking') continue;
    blocks[i] = { ...block, cache_control: CACHE_BREAKPOINT } as ContentBlockParam;
    return;
  }
}

function markCacheBreakpoints(system: TextBlockParam[], turns: Turn[], markTail: boolean): void {
  const lastSystem = system.at(-1);
  if (lastSystem !== undefined) system[system.length - 1] = { ...lastSystem, cache_control: CACHE_BREAKPOINT };
  const lastTurn = turns.at(-1);
  if (lastTurn === undefined) return;
  if (markTail) markLast(lastTurn.content);
  const lastAssistant = turns.findLastIndex((turn) => turn.role === 'assistant');
  for (let i = lastAssistant - 1; i >= 0; i--) {
    const turn = turns[i]!;
    if (turn.role === 'user') {
      if (i !== turns.length - 1) markLast(turn.content);
      return;
    }
  }
}

export function toAnthropicTool(tool: ModelToolDefinition, last: boolean): Tool {
  return {
    name: tool.name,
    description: tool.description,
    input_schema: tool.parameters as Tool['input_schema'],
    ...(last ? { cache_control: CACHE_BREAKPOINT } : {}),
  };
}

type AnthropicBody<Stream extends boolean> = Stream extends true ? MessageCreateParamsStreaming : MessageCreateParamsNonStreaming;

export function buildAnthropicRequest<Stream extends boolean>(request: ModelRequest, stream: Stream): AnthropicBody<Stream> {
  const cacheWrite = request.cacheWrite ?? 'extend';
  const { system, messages } = toAnthropicConversation(request.messages, cacheWrite);
  const { max_tokens, thinking, output_config } = thinkingSettings(request.model, request.reasoningEffort, request.maxOutputTokens);
  const body: MessageCreateParamsNonStreaming = { model: request.model, max_tokens, messages };
  if (system.length > 0) body.system = system;
  const tools = request.tools ?? [];
  if (tools.length > 0) {
    body.tools = tools.map((tool, index) => toAnthropicTool(tool, cacheWrite !== 'none' && index === tools.length - 1));
    body.tool_choice = { type: 'auto' };
  }
  if (thinking !== undefined) body.thinking = thinking;
  if (output_config !== undefined) body.output_config = output_config;
  if (!stream) return body as AnthropicBody<Stream>;
  const streaming: MessageCreateParamsStreaming = { ...body, stream: true };
  return streaming as AnthropicBody<Stream>;
}
