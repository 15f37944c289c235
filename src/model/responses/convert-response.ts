// Responses reply → IR: usage normalization, the outcome checks that turn a failed, incomplete or
// refused response into an error, and the non-streaming response.

import type { Response, ResponseOutputItem, ResponseReasoningItem } from 'openai/resources/responses/responses';
import type { ModelContentPart, ModelReasoning, ModelResponse, ModelToolCall, Usage } from '../ir.js';
import { streamFailureError } from '../map-sdk-error.js';
import { ModelError } from '../model-error.js';
import { normalizeUsage } from '../normalize-usage.js';
import { successfulResponse } from '../successful-response.js';

/** Normalize a Responses `usage` object. `input_tokens` already includes cached tokens. */
export function responsesUsage(raw: unknown): Usage | null {
  return normalizeUsage(raw, {
    input: 'input_tokens',
    output: 'output_tokens',
    inputDetails: 'input_tokens_details',
    outputDetails: 'output_tokens_details',
  });
}

export function failedResponseError(response: Pick<Response, 'error'> | undefined): ModelError {
  const error = response?.error;
  return streamFailureError(error?.message ?? 'the response failed without an error message', error?.code ?? null, error);
}

export function incompleteResponseError(response: Pick<Response, 'incomplete_details'> | undefined): ModelError {
  const reason = response?.incomplete_details?.reason ?? null;
  if (reason === 'max_output_tokens') {
    return new ModelError(
      'OUTPUT_TRUNCATED',
      'The model hit its output token limit before finishing (incomplete: max_output_tokens); raise the output limit or ask for less.',
    );
  }
  if (reason === 'content_filter') {
    return new ModelError('CONTENT_FILTERED', "The provider's content filter stopped the response (incomplete: content_filter).");
  }
  return new ModelError('RESPONSE_FAILED', `The response ended incomplete (reason: ${reason ?? 'not given'}).`);
}

export function refusedError(refusal: string): ModelError {
  return new ModelError('MODEL_REFUSED', `The model refused: ${refusal === '' ? '(no reason given)' : refusal}`);
}

export interface OutputContent {
  text: string;
  refusal: string | null;
  toolCalls: ModelToolCall[];
  reasoning: ModelReasoning[];
  /** All of it in output order; a message's `phase` rides on its text part. */
  parts: ModelContentPart[];
}

/**
 * A `reasoning` output item as IR reasoning: its summary (or, from servers that expose it, its
 * raw reasoning text) to show, and the item itself (less `status`, which is output-only) as the
 * state to send back next round.
 */
export function responsesReasoning(item: ResponseReasoningItem): ModelReasoning {
  const { status: _status, ...state } = item;
  const summary = (item.summary ?? []).map((part) => part.text).join('\n\n');
  const content = (item.content ?? []).map((part) => part.text).join('');
  return { format: 'responses', text: summary !== '' ? summary : content, state };
}

/** Collect text, refusals and function calls from a response's output items, in order. */
export function readOutput(output: readonly ResponseOutputItem[] | undefined): OutputContent {
  let text = '';
  let refusal: string | null = null;
  const toolCalls: ModelToolCall[] = [];
  const reasoning: ModelReasoning[] = [];
  const parts: ModelContentPart[] = [];
  for (const item of output ?? []) {
    if (item.type === 'message') {
      let messageText = '';
      for (const part of item.content ?? []) {
        if (part.type === 'output_text') messageText += part.text;
        else if (part.type === 'refusal') refusal = (refusal ?? '') + part.refusal;
      }
      text += messageText;
      // gpt-5.3-codex and later label each message `commentary` or `final_answer` and want the
      // label back on every later request (the SDK's ResponseOutputMessage.phase).
      const phase = (item as { phase?: unknown }).phase;
      if (messageText !== '' || typeof phase === 'string') {
        parts.push({
          type: 'text',
          text: messageText,
          ...(typeof phase === 'string' ? { providerFields: { format: 'responses', fields: { phase } } } : {}),
        });
      }
    } else if (item.type === 'function_call') {
      const call: ModelToolCall = { id: item.call_id, name: item.name, arguments: item.arguments ?? '' };
      toolCalls.push(call);
      parts.push({ type: 'tool-call', call });
    } else if (item.type === 'reasoning') {
      const entry = responsesReasoning(item);
      reasoning.push(entry);
      parts.push({ type: 'reasoning', reasoning: entry });
    }
  }
  return { text, refusal, toolCalls, reasoning, parts };
}

/** Throw unless the response finished normally. A missing status (some compatible servers) counts as completed. */
export function checkResponseStatus(response: Response): void {
  switch (response.status) {
    case undefined:
    case 'completed':
      return;
    case 'failed':
      throw failedResponseError(response);
    case 'incomplete':
      throw incompleteResponseError(response);
    default:
      throw new ModelError('RESPONSE_FAILED', `The response is not finished (status: ${response.status}).`);
  }
}

export function responseToModelResponse(response: Response): ModelResponse {
  checkResponseStatus(response);
  const content = readOutput(response.output);
  if (content.refusal !== null) throw refusedError(content.refusal);
  return successfulResponse({
    text: content.text,
    toolCalls: content.toolCalls,
    reasoning: content.reasoning,
    parts: content.parts,
    usage: responsesUsage(response.usage),
    responseId: response.id ?? null,
    model: response.model ?? null,
  });
}
