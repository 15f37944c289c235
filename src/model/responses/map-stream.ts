// Responses stream events → IR stream events. Pure and synchronous. The typed events carry
// everything incrementally; `response.completed` carries the final response, which is used to
// fill in anything a compatible server did not stream (so message-done is always complete).
// Every accumulated or replaced string is size-checked before it is kept (response-limits.ts).

import type { Response, ResponseFunctionToolCall, ResponseOutputItem, ResponseStreamEvent } from 'openai/resources/responses/responses';
import type { ModelContentPart, ModelReasoning, ModelStreamEvent, ModelToolCall } from '../ir.js';
import { streamFailureError } from '../map-sdk-error.js';
import { ModelError } from '../model-error.js';
import { ResponseSizeGuard, type ResponseLimits } from '../response-limits.js';
import type { StreamMapper } from '../run-call.js';
import { closingEvents, successfulResponse } from '../successful-response.js';
import {
  failedResponseError,
  incompleteResponseError,
  readOutput,
  refusedError,
  responsesReasoning,
  responsesUsage,
} from './convert-response.js';

interface ToolCallSlot {
  index: number;
  id: string;
  name: string;
  itemId: string | null;
  outputIndex: number | null;
  arguments: string;
  ended: boolean;
}

export class ResponsesStreamMapper implements StreamMapper<ResponseStreamEvent> {
  private text = '';
  private refusal: string | null = null;
  private responseId: string | null = null;
  private model: string | null = null;
  private readonly slots: ToolCallSlot[] = [];
  /** Finished reasoning items, and the size of what has streamed of them so far. */
  private readonly reasoning: ModelReasoning[] = [];
  private reasoningChars = 0;
  /** Finished output items by position, for servers whose final response lists no output. */
  private readonly doneItems = new Map<number, ResponseOutputItem>();
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

  push(event: ResponseStreamEvent): ModelStreamEvent[] {
    const events: ModelStreamEvent[] = [];
    if (this.done) return events;
    switch (event.type) {
      case 'response.created':
      case 'response.in_progress':
        this.noteResponse(event.response);
        break;
      case 'response.output_text.delta':
        if (event.delta !== '') {
          this.guard.text(this.text.length + event.delta.length + (this.refusal?.length ?? 0));
          this.text += event.delta;
          events.push({ type: 'text-delta', delta: event.delta });
        }
        break;
      case 'response.refusal.delta':
        this.guard.text(this.text.length + (this.refusal?.length ?? 0) + event.delta.length);
        this.refusal = (this.refusal ?? '') + event.delta;
        break;
      case 'response.refusal.done':
        this.guard.text(this.text.length + event.refusal.length);
        this.refusal = event.refusal;
        break;
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        if (event.delta !== '') {
          this.reasoningChars += event.delta.length;
          this.guard.reasoning(this.reasoningChars);
          events.push({ type: 'reasoning-delta', delta: event.delta });
        }
        break;
      case 'response.output_item.added':
        if (event.item.type === 'function_call') this.startCall(event.item, event.output_index, events);
        break;
      case 'response.function_call_arguments.delta': {
        const slot = this.findSlot(event.item_id, event.output_index);
        if (!slot) {
          throw new ModelError('MALFORMED_STREAM', `The provider streamed arguments for unknown tool call item ${event.item_id}.`);
        }
        if (event.delta !== '' && !slot.ended) {
          this.guard.arguments(slot.index, slot.name, slot.arguments.length + event.delta.length);
          slot.arguments += event.delta;
          events.push({ type: 'tool-call-delta', index: slot.index, delta: event.delta });
        }
        break;
      }
      case 'response.function_call_arguments.done': {
        const slot = this.findSlot(event.item_id, event.output_index);
        if (slot && !slot.ended) this.replaceArguments(slot, event.arguments);
        break;
      }
      case 'response.output_item.done':
        if (typeof event.output_index === 'number') this.doneItems.set(event.output_index, event.item);
        if (event.item.type === 'function_call') {
          const slot = this.findSlot(event.item.id ?? null, event.output_index) ?? this.startCall(event.item, event.output_index, events);
          this.endCall(slot, event.item.arguments, events);
        } else if (event.item.type === 'message') {
          const { refusal } = readOutput([event.item]);
          if (refusal !== null) this.refusal = refusal;
        } else if (event.item.type === 'reasoning') {
          this.addReasoning(responsesReasoning(event.item));
        }
        break;
      case 'response.completed':
        this.completeWith(event.response, events);
        break;
      case 'response.failed':
        throw failedResponseError(event.response);
      case 'response.incomplete':
        throw incompleteResponseError(event.response);
      case 'error':
        throw streamFailureError(event.message ?? '', event.code ?? null, event);
      default:
        break;
    }
    return events;
  }

  finish(): ModelStreamEvent[] {
    if (!this.done) {
      throw new ModelError('STREAM_INTERRUPTED', 'The stream ended before response.completed was sent.');
    }
    return [];
  }

  private noteResponse(response: Response | undefined): void {
    if (typeof response?.id === 'string' && response.id !== '') this.responseId = response.id;
    if (typeof response?.model === 'string' && response.model !== '') this.model = response.model;
  }

  private findSlot(itemId: string | null, outputIndex: number | undefined): ToolCallSlot | undefined {
    if (itemId) {
      const byId = this.slots.find((slot) => slot.itemId === itemId);
      if (byId) return byId;
    }
    return outputIndex === undefined ? undefined : this.slots.find((slot) => slot.outputIndex === outputIndex);
  }

  private startCall(item: ResponseFunctionToolCall, outputIndex: number | null, events: ModelStreamEvent[]): ToolCallSlot {
    if (!item.call_id || !item.name) {
      const missing = item.call_id ? 'name' : 'call_id';
      throw new ModelError('MALFORMED_STREAM', `The provider streamed a function call without a ${missing}.`);
    }
    const slot: ToolCallSlot = {
      index: this.slots.length,
      id: item.call_id,
      name: item.name,
      itemId: item.id ?? null,
      outputIndex,
      arguments: '',
      ended: false,
    };
    this.replaceArguments(slot, item.arguments ?? '');
    this.slots.push(slot);
    events.push({ type: 'tool-call-start', index: slot.index, id: slot.id, name: slot.name });
    if (slot.arguments !== '') events.push({ type: 'tool-call-delta', index: slot.index, delta: slot.arguments });
    return slot;
  }

  private endCall(slot: ToolCallSlot, finalArguments: string | undefined, events: ModelStreamEvent[]): void {
    if (slot.ended) return;
    // The finished item is authoritative; the deltas were a preview of it.
    if (typeof finalArguments === 'string') this.replaceArguments(slot, finalArguments);
    slot.ended = true;
    events.push({ type: 'tool-call-end', index: slot.index, call: { id: slot.id, name: slot.name, arguments: slot.arguments } });
  }

  private addReasoning(entry: ModelReasoning): void {
    this.reasoningChars += entry.text.length + JSON.stringify(entry.state ?? null).length;
    this.guard.reasoning(this.reasoningChars);
    this.reasoning.push(entry);
  }

  /**
   * The answer's parts in output order (a message's `phase` with its text), from the final output
   * or the finished items. Only when they agree with what streamed (text, calls in order, reasoning
   * count); otherwise the plain order stands.
   */
  private orderedParts(response: Response | undefined, toolCalls: readonly ModelToolCall[]): { parts?: ModelContentPart[] } {
    const listed = response?.output ?? [];
    const items = listed.length > 0 ? listed : [...this.doneItems.entries()].sort(([a], [b]) => a - b).map(([, item]) => item);
    const { parts } = readOutput(items);
    let text = '';
    let call = 0;
    let reasoning = 0;
    const resolved: ModelContentPart[] = [];
    for (const part of parts) {
      if (part.type === 'text') {
        text += part.text;
        resolved.push(part);
      } else if (part.type === 'tool-call') {
        const streamed = toolCalls[call];
        if (streamed?.id !== part.call.id) return {};
        call += 1;
        resolved.push({ type: 'tool-call', call: streamed });
      } else {
        const entry = this.reasoning[reasoning];
        if (entry === undefined) return {};
        reasoning += 1;
        resolved.push({ type: 'reasoning', reasoning: entry });
      }
    }
    if (text !== this.text || call !== toolCalls.length || reasoning !== this.reasoning.length) return {};
    return { parts: resolved };
  }

  private replaceArguments(slot: ToolCallSlot, value: string): void {
    this.guard.arguments(slot.index, slot.name, value.length);
    slot.arguments = value;
  }

  private completeWith(response: Response, events: ModelStreamEvent[]): void {
    this.noteResponse(response);
    const output = readOutput(response?.output);
    const refusal = this.refusal ?? output.refusal;
    if (refusal !== null) throw refusedError(refusal);
    // Fill in what the server put only in the final response.
    if (this.text === '' && output.text !== '') {
      this.guard.text(output.text.length);
      this.text = output.text;
      events.push({ type: 'text-delta', delta: output.text });
    }
    for (const call of output.toolCalls) {
      const slot =
        this.slots.find((candidate) => candidate.id === call.id) ??
        this.startCall({ type: 'function_call', call_id: call.id, name: call.name, arguments: call.arguments }, null, events);
      this.endCall(slot, call.arguments, events);
    }
    for (const slot of this.slots) this.endCall(slot, undefined, events);
    const toolCalls: ModelToolCall[] = this.slots.map((slot) => ({ id: slot.id, name: slot.name, arguments: slot.arguments }));
    // The final output is authoritative where it lists reasoning; some servers only stream it.
    if (output.reasoning.length > 0) {
      this.reasoning.length = 0;
      this.reasoningChars = 0;
      for (const entry of output.reasoning) this.addReasoning(entry);
    }
    const usage = responsesUsage(response?.usage);
    const answer = successfulResponse({
      text: this.text,
      toolCalls,
      reasoning: [...this.reasoning],
      ...this.orderedParts(response, toolCalls),
      usage,
      responseId: this.responseId,
      model: this.model,
    });
    events.push(...closingEvents(answer));
    this.done = true;
  }
}
