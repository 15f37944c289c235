// Anthropic stream events → IR stream events. Pure and synchronous. The wire sends
// `message_start`, then per content block `content_block_start` → `content_block_delta`* →
// `content_block_stop` (text_delta, input_json_delta, thinking_delta, signature_delta), then
// `message_delta` (stop_reason, cumulative usage) and `message_stop`. `ping` and `error` events
// never get here: the SDK drops the first and throws the second. Every accumulated string is
// size-checked before it is kept (response-limits.ts).

import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import type { ModelContentPart, ModelReasoning, ModelStreamEvent, ModelToolCall, ProviderFields, Usage } from '../ir.js';
import { ModelError } from '../model-error.js';
import { ResponseSizeGuard, type ResponseLimits } from '../response-limits.js';
import type { StreamMapper } from '../run-call.js';
import { closingEvents, successfulResponse } from '../successful-response.js';
import { anthropicUsage, checkStopReason, mergeUsage, reasoningFromBlock, reasoningSize } from './convert-response.js';

/**
 * The message's content in block order, which the API wants back unchanged: with interleaved
 * thinking a message is `[thinking, tool_use, thinking, tool_use]`, and regrouping it is a 400.
 * Adjacent text blocks share one entry (their text is joined, as the IR's `text` is).
 */
type OrderEntry =
  | { kind: 'text'; text: string }
  | { kind: 'reasoning'; entry: ModelReasoning | null }
  | { kind: 'tool'; slot: ToolCallSlot };

type Block =
  | { kind: 'text'; order: Extract<OrderEntry, { kind: 'text' }> }
  | { kind: 'tool'; slot: ToolCallSlot }
  | { kind: 'thinking'; state: ProviderFields; thinking: string; signature: string; order: Extract<OrderEntry, { kind: 'reasoning' }> }
  | { kind: 'redacted'; state: ProviderFields; order: Extract<OrderEntry, { kind: 'reasoning' }> }
  | { kind: 'other' };

interface ToolCallSlot {
  /** Position among the message's tool calls: the IR index. */
  index: number;
  id: string;
  name: string;
  arguments: string;
  /** The input object of content_block_start, used when no input_json_delta arrives. */
  startInput: unknown;
  ended: boolean;
}

export class AnthropicStreamMapper implements StreamMapper<RawMessageStreamEvent> {
  private text = '';
  private responseId: string | null = null;
  private model: string | null = null;
  private usage: Record<string, unknown> | null = null;
  private readonly blocks = new Map<number, Block>();
  private readonly slots: ToolCallSlot[] = [];
  private readonly reasoning: ModelReasoning[] = [];
  private readonly order: OrderEntry[] = [];
  /** Finished reasoning plus the thinking text streaming now. */
  private reasoningChars = 0;
  private done = false;
  private readonly guard: ResponseSizeGuard;

  constructor(limits?: ResponseLimits) {
    this.guard = new ResponseSizeGuard(limits);
  }

  get complete(): boolean {
    return this.done;
  }

  get ended(): boolean {
    return this.done;
  }

  push(event: RawMessageStreamEvent): ModelStreamEvent[] {
    const events: ModelStreamEvent[] = [];
    if (this.done) return events;
    switch (event.type) {
      case 'message_start': {
        const message = event.message;
        if (typeof message?.id === 'string' && message.id !== '') this.responseId = message.id;
        if (typeof message?.model === 'string' && message.model !== '') this.model = message.model;
        if (message?.usage) this.usage = mergeUsage(null, message.usage);
        break;
      }
      case 'content_block_start':
        this.startBlock(event.index, event.content_block as unknown as ProviderFields, events);
        break;
      case 'content_block_delta':
        this.delta(event.index, event.delta as unknown as ProviderFields, events);
        break;
      case 'content_block_stop':
        this.stopBlock(event.index, events);
        break;
      case 'message_delta':
        if (event.usage) this.usage = mergeUsage(this.usage, event.usage);
        checkStopReason(event.delta?.stop_reason, (event.delta as { stop_details?: unknown } | undefined)?.stop_details);
        break;
      case 'message_stop':
        this.finishMessage(events);
        break;
      default:
        break;
    }
    return events;
  }

  finish(): ModelStreamEvent[] {
    if (!this.done) throw new ModelError('STREAM_INTERRUPTED', 'The stream ended before message_stop was sent.');
    return [];
  }

  private startBlock(index: number, block: ProviderFields, events: ModelStreamEvent[]): void {
    switch (block.type) {
      case 'text': {
        const last = this.order.at(-1);
        const order: Extract<OrderEntry, { kind: 'text' }> = last?.kind === 'text' ? last : { kind: 'text', text: '' };
        if (order !== last) this.order.push(order);
        this.blocks.set(index, { kind: 'text', order });
        if (typeof block.text === 'string' && block.text !== '') this.addText(order, block.text, events);
        break;
      }
      case 'tool_use': {
        if (typeof block.id !== 'string' || block.id === '' || typeof block.name !== 'string' || block.name === '') {
          const missing = typeof block.id === 'string' && block.id !== '' ? 'a name' : 'an id';
          throw new ModelError('MALFORMED_STREAM', `The provider streamed a tool_use block without ${missing}.`);
        }
        const slot: ToolCallSlot = {
          index: this.slots.length,
          id: block.id,
          name: block.name,
          arguments: '',
          startInput: block.input,
          ended: false,
        };
        this.slots.push(slot);
        this.order.push({ kind: 'tool', slot });
        this.blocks.set(index, { kind: 'tool', slot });
        events.push({ type: 'tool-call-start', index: slot.index, id: slot.id, name: slot.name });
        break;
      }
      case 'thinking': {
        const thinking = typeof block.thinking === 'string' ? block.thinking : '';
        const signature = typeof block.signature === 'string' ? block.signature : '';
        const order: Extract<OrderEntry, { kind: 'reasoning' }> = { kind: 'reasoning', entry: null };
        this.order.push(order);
        this.blocks.set(index, { kind: 'thinking', state: { ...block }, thinking: '', signature, order });
        if (thinking !== '') this.addThinking(index, thinking, events);
        break;
      }
      case 'redacted_thinking': {
        const order: Extract<OrderEntry, { kind: 'reasoning' }> = { kind: 'reasoning', entry: null };
        this.order.push(order);
        this.blocks.set(index, { kind: 'redacted', state: { ...block }, order });
        break;
      }
      default:
        // Server tool blocks and the like: Glassbox asks for none, so there is nothing to keep.
        this.blocks.set(index, { kind: 'other' });
        break;
    }
  }

  private delta(index: number, delta: ProviderFields, events: ModelStreamEvent[]): void {
    let block = this.blocks.get(index);
    if (block === undefined) {
      // A compatible server that skips content_block_start: text and thinking can still be placed.
      if (delta.type === 'text_delta') this.startBlock(index, { type: 'text', text: '' }, events);
      else if (delta.type === 'thinking_delta') this.startBlock(index, { type: 'thinking', thinking: '', signature: '' }, events);
      else
        throw new ModelError(
          'MALFORMED_STREAM',
          `The provider streamed a ${String(delta.type)} for content block ${index}, which it never started.`,
        );
      block = this.blocks.get(index) as Block;
    }
    switch (delta.type) {
      case 'text_delta':
        if (block.kind === 'text' && typeof delta.text === 'string' && delta.text !== '') this.addText(block.order, delta.text, events);
        break;
      case 'input_json_delta': {
        if (block.kind !== 'tool') break;
        const piece = typeof delta.partial_json === 'string' ? delta.partial_json : '';
        const slot = block.slot;
        if (piece === '' || slot.ended) break;
        this.guard.arguments(slot.index, slot.name, slot.arguments.length + piece.length);
        slot.arguments += piece;
        events.push({ type: 'tool-call-delta', index: slot.index, delta: piece });
        break;
      }
      case 'thinking_delta':
        if (block.kind === 'thinking' && typeof delta.thinking === 'string' && delta.thinking !== '')
          this.addThinking(index, delta.thinking, events);
        break;
      case 'signature_delta':
        if (block.kind === 'thinking' && typeof delta.signature === 'string') {
          this.reasoningChars += delta.signature.length;
          this.guard.reasoning(this.reasoningChars);
          block.signature += delta.signature;
        }
        break;
      default:
        // citations_delta and future kinds carry nothing the IR holds.
        break;
    }
  }

  private addText(order: Extract<OrderEntry, { kind: 'text' }>, piece: string, events: ModelStreamEvent[]): void {
    this.guard.text(this.text.length + piece.length);
    this.text += piece;
    order.text += piece;
    events.push({ type: 'text-delta', delta: piece });
  }

  private addThinking(index: number, piece: string, events: ModelStreamEvent[]): void {
    const block = this.blocks.get(index);
    if (block?.kind !== 'thinking') return;
    this.reasoningChars += piece.length;
    this.guard.reasoning(this.reasoningChars);
    block.thinking += piece;
    events.push({ type: 'reasoning-delta', delta: piece });
  }

  private stopBlock(index: number, events: ModelStreamEvent[]): void {
    const block = this.blocks.get(index);
    if (block === undefined) return;
    if (block.kind === 'tool') {
      this.endCall(block.slot, events);
    } else if (block.kind === 'thinking') {
      block.order.entry = this.addReasoning(
        reasoningFromBlock({ ...block.state, type: 'thinking', thinking: block.thinking, signature: block.signature }),
        block.thinking.length + block.signature.length,
      );
    } else if (block.kind === 'redacted') {
      block.order.entry = this.addReasoning(reasoningFromBlock(block.state), 0);
    }
    // A block is finished once; a repeated stop changes nothing.
    this.blocks.set(index, { kind: 'other' });
  }

  /** `alreadyCounted`: the part of the entry's size the streamed deltas added already. */
  private addReasoning(entry: ModelReasoning, alreadyCounted: number): ModelReasoning {
    this.reasoningChars += reasoningSize(entry) - alreadyCounted;
    this.guard.reasoning(this.reasoningChars);
    this.reasoning.push(entry);
    return entry;
  }

  private endCall(slot: ToolCallSlot, events: ModelStreamEvent[]): void {
    if (slot.ended) return;
    // No input_json_delta at all: the input came whole with content_block_start ({} for no arguments).
    if (slot.arguments === '') {
      const whole = JSON.stringify(slot.startInput ?? {});
      this.guard.arguments(slot.index, slot.name, whole.length);
      slot.arguments = whole;
      events.push({ type: 'tool-call-delta', index: slot.index, delta: whole });
    }
    slot.ended = true;
    events.push({ type: 'tool-call-end', index: slot.index, call: { id: slot.id, name: slot.name, arguments: slot.arguments } });
  }

  private finishMessage(events: ModelStreamEvent[]): void {
    // Blocks the provider never stopped are finished with the message.
    for (const index of [...this.blocks.keys()]) this.stopBlock(index, events);
    const toolCalls: ModelToolCall[] = this.slots.map((slot) => ({ id: slot.id, name: slot.name, arguments: slot.arguments }));
    const parts: ModelContentPart[] = [];
    for (const entry of this.order) {
      if (entry.kind === 'text' && entry.text !== '') parts.push({ type: 'text', text: entry.text });
      else if (entry.kind === 'reasoning' && entry.entry !== null) parts.push({ type: 'reasoning', reasoning: entry.entry });
      else if (entry.kind === 'tool') parts.push({ type: 'tool-call', call: toolCalls[entry.slot.index]! });
    }
    const usage: Usage | null = this.usage === null ? null : anthropicUsage(this.usage);
    const response = successfulResponse({
      text: this.text,
      toolCalls,
      reasoning: [...this.reasoning],
      parts,
      usage,
      responseId: this.responseId,
      model: this.model,
    });
    events.push(...closingEvents(response));
    this.done = true;
  }
}
