// Renders one resolved turn in the Responses dialect: the `response` object for a plain request,
// or the typed SSE event sequence (`response.created` … `response.completed`) for `stream: true`.
// Shapes follow the `Response` / `ResponseStreamEvent` types of the openai SDK, and the event
// order is one the SDK's own accumulator (`responses.stream()`) accepts.

import { jsonFrame, type SseFrame } from './sse.js';
import { splitIntoChunks, type ResolvedReasoning, type ResolvedTurn, type ResolvedUsage } from './scripted-turn.js';
import { wireErrorBody } from './wire-error.js';
import type { WireMeta, WireReply } from './wire-meta.js';

type Json = Record<string, unknown>;

/** An event before its `sequence_number` is assigned. */
type PendingEvent = Json & { type: string };

interface RenderedOutput {
  items: Json[];
  events: PendingEvent[];
}

function responsesUsage(usage: ResolvedUsage): Json {
  const wire: Json = {
    input_tokens: usage.input,
    output_tokens: usage.output,
    output_tokens_details: { reasoning_tokens: usage.reasoning },
    total_tokens: usage.input + usage.output,
  };
  // A provider that does not report caching omits the details object entirely.
  if (usage.cached !== null) wire.input_tokens_details = { cached_tokens: usage.cached };
  return wire;
}

function baseResponse(meta: WireMeta, id: string): Json {
  const body = meta.request.body;
  return {
    id,
    object: 'response',
    created_at: meta.created,
    status: 'in_progress',
    background: false,
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    metadata: body.metadata ?? {},
    model: meta.model,
    output: [],
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    reasoning: { effort: null, summary: null },
    service_tier: 'default',
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    text: body.text ?? { format: { type: 'text' } },
    tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [],
    top_p: body.top_p ?? 1,
    truncation: body.truncation ?? 'disabled',
    usage: null,
  };
}

/** The real API returns a reasoning item's encrypted content only when the request asks for it. */
function encryptedContentRequested(meta: WireMeta): boolean {
  const include = meta.request.body.include;
  return Array.isArray(include) && include.includes('reasoning.encrypted_content');
}

function renderReasoning(reasoning: ResolvedReasoning, turn: ResolvedTurn, meta: WireMeta, outputIndex: number): RenderedOutput {
  const id = meta.ids.next('rs_');
  const summary = reasoning.text;
  const part = { type: 'summary_text', text: summary };
  const where = { item_id: id, output_index: outputIndex, summary_index: 0 };
  const events: PendingEvent[] = [
    { type: 'response.output_item.added', output_index: outputIndex, item: { id, type: 'reasoning', summary: [] } },
    { type: 'response.reasoning_summary_part.added', ...where, part: { type: 'summary_text', text: '' } },
    ...splitIntoChunks(summary, turn.chunkSize).map(
      (delta): PendingEvent => ({ type: 'response.reasoning_summary_text.delta', ...where, delta }),
    ),
    { type: 'response.reasoning_summary_text.done', ...where, text: summary },
    { type: 'response.reasoning_summary_part.done', ...where, part },
  ];
  const item: Json = { id, type: 'reasoning', summary: [part] };
  if (encryptedContentRequested(meta)) item.encrypted_content = reasoning.token;
  events.push({ type: 'response.output_item.done', output_index: outputIndex, item });
  return { items: [item], events };
}

function renderMessage(turn: ResolvedTurn, meta: WireMeta, outputIndex: number, status: string): RenderedOutput {
  const id = meta.ids.next('msg_');
  const events: PendingEvent[] = [
    {
      type: 'response.output_item.added',
      output_index: outputIndex,
      item: { id, type: 'message', role: 'assistant', status: 'in_progress', content: [] },
    },
  ];
  const content: Json[] = [];
  const where = (contentIndex: number) => ({ item_id: id, output_index: outputIndex, content_index: contentIndex });

  if (turn.text !== '' || turn.refusal === null) {
    const contentIndex = content.length;
    const part = { type: 'output_text', text: turn.text, annotations: [], logprobs: [] };
    events.push({ type: 'response.content_part.added', ...where(contentIndex), part: { ...part, text: '' } });
    for (const delta of splitIntoChunks(turn.text, turn.chunkSize)) {
      events.push({ type: 'response.output_text.delta', ...where(contentIndex), delta, logprobs: [] });
    }
    events.push({ type: 'response.output_text.done', ...where(contentIndex), text: turn.text, logprobs: [] });
    events.push({ type: 'response.content_part.done', ...where(contentIndex), part });
    content.push(part);
  }
  if (turn.refusal !== null) {
    const contentIndex = content.length;
    const part = { type: 'refusal', refusal: turn.refusal };
    events.push({ type: 'response.content_part.added', ...where(contentIndex), part: { ...part, refusal: '' } });
    for (const delta of splitIntoChunks(turn.refusal, turn.chunkSize)) {
      events.push({ type: 'response.refusal.delta', ...where(contentIndex), delta });
    }
    events.push({ type: 'response.refusal.done', ...where(contentIndex), refusal: turn.refusal });
    events.push({ type: 'response.content_part.done', ...where(contentIndex), part });
    content.push(part);
  }
  const item = { id, type: 'message', role: 'assistant', status, content };
  events.push({ type: 'response.output_item.done', output_index: outputIndex, item });
  return { items: [item], events };
}

function renderFunctionCall(
  call: ResolvedTurn['toolCalls'][number],
  turn: ResolvedTurn,
  meta: WireMeta,
  outputIndex: number,
  status: string,
): RenderedOutput {
  const id = meta.ids.next('fc_');
  const where = { item_id: id, output_index: outputIndex };
  const started = { id, type: 'function_call', status: 'in_progress', arguments: '', call_id: call.id, name: call.name };
  const item = { ...started, status, arguments: call.arguments };
  const events: PendingEvent[] = [
    { type: 'response.output_item.added', output_index: outputIndex, item: started },
    ...splitIntoChunks(call.arguments, turn.chunkSize).map(
      (delta): PendingEvent => ({ type: 'response.function_call_arguments.delta', ...where, delta }),
    ),
    { type: 'response.function_call_arguments.done', ...where, name: call.name, arguments: call.arguments },
    { type: 'response.output_item.done', output_index: outputIndex, item },
  ];
  return { items: [item], events };
}

function renderOutput(turn: ResolvedTurn, meta: WireMeta): RenderedOutput {
  const parts: Array<(outputIndex: number, status: string) => RenderedOutput> = [];
  const reasoning = turn.reasoning;
  if (reasoning !== null) parts.push((outputIndex) => renderReasoning(reasoning, turn, meta, outputIndex));
  if (turn.text !== '' || turn.refusal !== null || turn.toolCalls.length === 0) {
    parts.push((outputIndex, status) => renderMessage(turn, meta, outputIndex, status));
  }
  for (const call of turn.toolCalls) {
    parts.push((outputIndex, status) => renderFunctionCall(call, turn, meta, outputIndex, status));
  }
  const truncated = turn.finishReason === 'length' || turn.finishReason === 'content_filter';
  const rendered: RenderedOutput = { items: [], events: [] };
  parts.forEach((render, outputIndex) => {
    // When output is cut short, the item being generated at the time is the incomplete one.
    const status = truncated && outputIndex === parts.length - 1 ? 'incomplete' : 'completed';
    const { items, events } = render(outputIndex, status);
    rendered.items.push(...items);
    rendered.events.push(...events);
  });
  return rendered;
}

type Terminal = { type: 'response.completed' | 'response.incomplete' | 'response.failed'; response: Json };

function terminalResponse(turn: ResolvedTurn, meta: WireMeta, id: string, items: Json[]): Terminal {
  const response: Json = { ...baseResponse(meta, id), output: items };
  const fault = turn.fault;
  if (fault?.kind === 'response_failed') {
    response.status = 'failed';
    response.error = { code: fault.code ?? 'server_error', message: fault.message };
    return { type: 'response.failed', response };
  }
  response.usage = turn.usage === null ? null : responsesUsage(turn.usage);
  if (turn.finishReason === 'length' || turn.finishReason === 'content_filter') {
    response.status = 'incomplete';
    response.incomplete_details = { reason: turn.finishReason === 'length' ? 'max_output_tokens' : 'content_filter' };
    return { type: 'response.incomplete', response };
  }
  response.status = 'completed';
  response.completed_at = meta.created;
  return { type: 'response.completed', response };
}

/**
 * The non-streaming answer: the final `response` object (status `completed`, `incomplete` or
 * `failed`). A `stream_error_event` fault has no non-streaming form, so it becomes HTTP 500.
 */
export function buildResponse(turn: ResolvedTurn, meta: WireMeta): WireReply {
  if (turn.fault?.kind === 'stream_error_event') {
    return { status: 500, body: wireErrorBody(turn.fault.message, 'server_error', 'server_error') };
  }
  const id = meta.ids.next('resp_');
  const { items } = renderOutput(turn, meta);
  return { status: 200, body: terminalResponse(turn, meta, id, items).response };
}

/** The SSE event sequence for `stream: true`, with `event:` lines and increasing `sequence_number`s. */
export function buildResponseFrames(turn: ResolvedTurn, meta: WireMeta): SseFrame[] {
  const id = meta.ids.next('resp_');
  const pending: PendingEvent[] = [
    { type: 'response.created', response: baseResponse(meta, id) },
    { type: 'response.in_progress', response: baseResponse(meta, id) },
  ];
  if (turn.fault?.kind === 'stream_error_event') {
    pending.push({ type: 'error', code: 'server_error', message: turn.fault.message, param: null });
  } else {
    const { items, events } = renderOutput(turn, meta);
    pending.push(...events, terminalResponse(turn, meta, id, items));
  }
  return pending.map((event, index) => jsonFrame({ ...event, sequence_number: index }, event.type));
}
