// Renders one resolved turn in the Chat Completions dialect: the `chat.completion` object for a
// plain request, or the `chat.completion.chunk` SSE sequence for `stream: true`. Shapes follow the
// `ChatCompletion` / `ChatCompletionChunk` types of the openai SDK.

import { jsonFrame, type SseFrame } from './sse.js';
import { splitIntoChunks, type ResolvedTurn, type ResolvedUsage } from './scripted-turn.js';
import { wireErrorBody } from './wire-error.js';
import type { WireMeta, WireReply } from './wire-meta.js';

function chatUsage(usage: ResolvedUsage): Record<string, unknown> {
  const wire: Record<string, unknown> = {
    prompt_tokens: usage.input,
    completion_tokens: usage.output,
    total_tokens: usage.input + usage.output,
    completion_tokens_details: {
      reasoning_tokens: usage.reasoning,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
  // A provider that does not report caching omits the details object entirely.
  if (usage.cached !== null) wire.prompt_tokens_details = { cached_tokens: usage.cached, audio_tokens: 0 };
  return wire;
}

function messageContent(turn: ResolvedTurn): string | null {
  // Like the real API: a message that only calls tools or only refuses has null content.
  if (turn.text === '' && (turn.toolCalls.length > 0 || turn.refusal !== null)) return null;
  return turn.text;
}

function failureReply(turn: ResolvedTurn): WireReply | null {
  const fault = turn.fault;
  if (fault?.kind === 'response_failed') {
    return { status: 500, body: wireErrorBody(fault.message, 'server_error', fault.code ?? 'server_error') };
  }
  if (fault?.kind === 'stream_error_event') {
    return { status: 500, body: wireErrorBody(fault.message, 'server_error', 'server_error') };
  }
  return null;
}

/** The non-streaming answer. In-band failure faults become HTTP 500, as Chat has no failed status. */
export function buildChatCompletion(turn: ResolvedTurn, meta: WireMeta): WireReply {
  const failure = failureReply(turn);
  if (failure !== null) return failure;
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: messageContent(turn),
    refusal: turn.refusal,
    annotations: [],
  };
  if (turn.reasoning !== null) message[turn.reasoning.field] = turn.reasoning.text;
  if (turn.toolCalls.length > 0) {
    message.tool_calls = turn.toolCalls.map((call) => ({
      ...call.fields,
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  const body: Record<string, unknown> = {
    id: meta.ids.next('chatcmpl-'),
    object: 'chat.completion',
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: turn.finishReason }],
    service_tier: 'default',
    system_fingerprint: 'fp_glassbox_fake',
  };
  if (turn.usage !== null) body.usage = chatUsage(turn.usage);
  return { status: 200, body };
}

function includeUsageRequested(body: Record<string, unknown>): boolean {
  const options = body.stream_options;
  return typeof options === 'object' && options !== null && (options as Record<string, unknown>).include_usage === true;
}

/**
 * The SSE sequence for `stream: true`: a role chunk, content/refusal/tool-call deltas, a finish
 * chunk, then (only when `stream_options.include_usage` is set and usage is reported) a usage chunk
 * with empty `choices`, then `[DONE]`. In-band failure faults replace the ending with an `error`
 * chunk, which the SDK turns into a thrown `APIError`.
 */
export function buildChatCompletionFrames(turn: ResolvedTurn, meta: WireMeta): SseFrame[] {
  const id = meta.ids.next('chatcmpl-');
  const includeUsage = includeUsageRequested(meta.request.body);
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}): SseFrame => {
    const payload: Record<string, unknown> = {
      id,
      object: 'chat.completion.chunk',
      created: meta.created,
      model: meta.model,
      service_tier: 'default',
      system_fingerprint: 'fp_glassbox_fake',
      choices,
    };
    // With include_usage the real API sends `usage: null` on every chunk but the last.
    if (includeUsage) payload.usage = null;
    return jsonFrame({ ...payload, ...extra });
  };
  const delta = (value: Record<string, unknown>, finishReason: string | null = null): SseFrame =>
    chunk([{ index: 0, delta: value, logprobs: null, finish_reason: finishReason }]);

  const frames: SseFrame[] = [delta({ role: 'assistant', content: '', refusal: null })];
  const reasoning = turn.reasoning;
  if (reasoning !== null) {
    for (const piece of splitIntoChunks(reasoning.text, turn.chunkSize)) frames.push(delta({ [reasoning.field]: piece }));
  }
  for (const piece of splitIntoChunks(turn.text, turn.chunkSize)) frames.push(delta({ content: piece }));
  if (turn.refusal !== null) {
    for (const piece of splitIntoChunks(turn.refusal, turn.chunkSize)) frames.push(delta({ refusal: piece }));
  }
  turn.toolCalls.forEach((call, index) => {
    frames.push(
      delta({
        tool_calls: [{ ...call.fields, index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
      }),
    );
    for (const piece of splitIntoChunks(call.arguments, turn.chunkSize)) {
      frames.push(delta({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });

  const fault = turn.fault;
  if (fault?.kind === 'response_failed' || fault?.kind === 'stream_error_event') {
    const code = fault.kind === 'response_failed' ? (fault.code ?? 'server_error') : 'server_error';
    frames.push(jsonFrame(wireErrorBody(fault.message, 'server_error', code)));
    return frames;
  }

  frames.push(delta({}, turn.finishReason));
  if (includeUsage && turn.usage !== null) frames.push(chunk([], { usage: chatUsage(turn.usage) }));
  frames.push({ data: '[DONE]' });
  return frames;
}
