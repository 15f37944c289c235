// Chat Completions chunks → IR stream events. Pure and synchronous, so the fiddly parts (tool
// call deltas accumulated by index, the usage chunk after the finish chunk) are testable without
// a server. Every accumulated string is size-checked before it grows (response-limits.ts).

import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { ModelStreamEvent, ModelToolCall, ProviderFields, Usage } from '../ir.js';
import { ModelError } from '../model-error.js';
import { ResponseSizeGuard, type ResponseLimits } from '../response-limits.js';
import type { StreamMapper } from '../run-call.js';
import { closingEvents, successfulResponse } from '../successful-response.js';
import { argumentsText, ChatReasoningCollector, extraCallFields, readContentChunks } from './chat-reasoning.js';
import { chatUsage, checkChatEnding } from './convert-response.js';
import { InlineThinkSplitter, type InlineThinkPiece, withInlineThink } from './inline-think.js';

interface ToolCallSlot {
  /** Position in the assistant message: the IR index. */
  index: number;
  id: string;
  name: string;
  arguments: string;
  started: boolean;
  /** Provider fields beyond the standard ones (Gemini's extra_content), merged over the deltas. */
  extras: ProviderFields | null;
}

type ToolCallDelta = NonNullable<ChatCompletionChunk.Choice.Delta['tool_calls']>[number];

function isCompleteJson(text: string): boolean {
  if (text.trim() === '') return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

export class ChatStreamMapper implements StreamMapper<ChatCompletionChunk> {
  private text = '';
  private refusal = '';
  private finishReason: string | null = null;
  private filterResults: unknown = null;
  private usage: Usage | null = null;
  private responseId: string | null = null;
  private model: string | null = null;
  private readonly slots: ToolCallSlot[] = [];
  private readonly reasoning = new ChatReasoningCollector();
  /** A leading `<think>` block in the content (MiniMax): shown as reasoning, sent back as it came. */
  private readonly think = new InlineThinkSplitter();
  private thinkChars = 0;
  private readonly slotByWireIndex = new Map<number, ToolCallSlot>();
  private readonly guard: ResponseSizeGuard;

  constructor(limits?: ResponseLimits) {
    this.guard = new ResponseSizeGuard(limits);
  }

  /** True once the provider said why the message ended; only then may `finish` be called. */
  get complete(): boolean {
    return this.finishReason !== null;
  }

  /** Chat sends usage after the finish chunk, so the wire is always read to its end. */
  get ended(): boolean {
    return false;
  }

  push(chunk: ChatCompletionChunk): ModelStreamEvent[] {
    const events: ModelStreamEvent[] = [];
    if (typeof chunk.id === 'string' && chunk.id !== '') this.responseId ??= chunk.id;
    if (typeof chunk.model === 'string' && chunk.model !== '') this.model ??= chunk.model;
    // Groq reported usage only in its own `x_groq` object before it added the standard field.
    const usage = chunk.usage ?? (chunk as { x_groq?: { usage?: unknown } }).x_groq?.usage;
    if (usage) this.usage = chatUsage(usage);
    // We never ask for n > 1, so only the first choice exists.
    const choice = chunk.choices?.find((candidate) => (candidate.index ?? 0) === 0);
    if (!choice) return events;
    const delta = choice.delta ?? {};
    const thought = this.reasoning.add(delta);
    if (thought !== '') {
      this.guard.reasoning(this.reasoning.size);
      events.push({ type: 'reasoning-delta', delta: thought });
    }
    const chunks = readContentChunks(delta.content);
    if (chunks !== null && chunks.thinking !== '') {
      this.reasoning.addThinking(chunks.thinking);
      this.guard.reasoning(this.reasoning.size);
      events.push({ type: 'reasoning-delta', delta: chunks.thinking });
    }
    const content = chunks !== null ? chunks.text : delta.content;
    if (typeof content === 'string' && content !== '') this.pushContent(this.think.push(content), events);
    if (typeof delta.refusal === 'string') {
      this.guard.text(this.text.length + this.refusal.length + delta.refusal.length);
      this.refusal += delta.refusal;
    }
    for (const call of delta.tool_calls ?? []) this.pushToolCall(call, events);
    // Azure annotates choices with its content filter's findings; the last ones name why it stopped.
    const filterResults = (choice as { content_filter_results?: unknown }).content_filter_results;
    if (typeof filterResults === 'object' && filterResults !== null && Object.keys(filterResults).length > 0)
      this.filterResults = filterResults;
    if (choice.finish_reason) {
      this.finishReason = choice.finish_reason;
      checkChatEnding(this.finishReason, this.refusal, this.filterResults);
    }
    return events;
  }

  private pushContent(piece: InlineThinkPiece, events: ModelStreamEvent[]): void {
    if (piece.reasoning !== '') {
      this.thinkChars += piece.reasoning.length;
      this.guard.reasoning(this.reasoning.size + this.thinkChars);
      events.push({ type: 'reasoning-delta', delta: piece.reasoning });
    }
    if (piece.text !== '') {
      this.guard.text(this.text.length + piece.text.length + this.refusal.length);
      this.text += piece.text;
      events.push({ type: 'text-delta', delta: piece.text });
    }
  }

  private pushToolCall(delta: ToolCallDelta, events: ModelStreamEvent[]): void {
    const wireIndex = typeof delta.index === 'number' ? delta.index : this.slots.length - (delta.id ? 0 : 1);
    let slot = this.slotByWireIndex.get(wireIndex);
    // Some compatible servers send every call at index 0 and tell them apart only by id.
    if (slot && delta.id && slot.id !== '' && delta.id !== slot.id) slot = undefined;
    if (!slot && delta.id) {
      // Vertex AI repeats the id on every delta of a call but gives each call's first delta a
      // different index than the rest: a delta naming a call whose arguments are still incomplete
      // continues that call. (A call whose arguments are complete JSON is not continued: some
      // servers give two calls of one answer the same id.)
      slot = this.slots.find((candidate) => candidate.id === delta.id && !isCompleteJson(candidate.arguments));
      if (slot) this.slotByWireIndex.set(wireIndex, slot);
    }
    if (!slot) {
      slot = { index: this.slots.length, id: '', name: '', arguments: '', started: false, extras: null };
      this.slots.push(slot);
      this.slotByWireIndex.set(wireIndex, slot);
    }
    if (delta.id && slot.id === '') slot.id = delta.id;
    const extras = extraCallFields(delta);
    if (extras !== null) slot.extras = { ...slot.extras, ...extras };
    const name = delta.function?.name;
    if (name && !slot.started) slot.name = name;
    // A server that sends arguments as a JSON object sends the whole object in one delta.
    const piece = argumentsText(delta.function?.arguments);
    this.guard.arguments(slot.index, slot.name, slot.arguments.length + piece.length);
    slot.arguments += piece;
    if (!slot.started) {
      // Start only once id and name are known; arguments seen before that are sent as one delta.
      if (slot.id === '' || slot.name === '') return;
      slot.started = true;
      events.push({ type: 'tool-call-start', index: slot.index, id: slot.id, name: slot.name });
      if (slot.arguments !== '') events.push({ type: 'tool-call-delta', index: slot.index, delta: slot.arguments });
      return;
    }
    if (piece !== '') events.push({ type: 'tool-call-delta', index: slot.index, delta: piece });
  }

  /** The closing events once the stream has ended: tool-call-end per call, message-done, completed. */
  finish(): ModelStreamEvent[] {
    if (this.finishReason === null) {
      throw new ModelError('STREAM_INTERRUPTED', 'The stream ended before the model finished (no finish_reason was sent).');
    }
    const events: ModelStreamEvent[] = [];
    this.pushContent(this.think.finish(), events);
    const toolCalls: ModelToolCall[] = [];
    for (const slot of this.slots) {
      if (!slot.started) {
        const missing = slot.id === '' ? 'an id' : 'a name';
        throw new ModelError('MALFORMED_STREAM', `The provider streamed tool call #${slot.index} without ${missing}.`);
      }
      const call: ModelToolCall = { id: slot.id, name: slot.name, arguments: slot.arguments };
      if (slot.extras !== null) call.providerFields = { format: 'chat', fields: slot.extras };
      toolCalls.push(call);
      events.push({ type: 'tool-call-end', index: slot.index, call });
    }
    const response = successfulResponse({
      text: this.text,
      toolCalls,
      reasoning: withInlineThink(this.reasoning.result(), this.think.reasoning()),
      usage: this.usage,
      responseId: this.responseId,
      model: this.model,
    });
    events.push(...closingEvents(response));
    return events;
  }
}
