// What the fake provider handed out that a real provider insists on getting back, and the check
// that it did. With `requireReasoningBack` the fake answers like the real APIs do when a client
// drops reasoning state between rounds (each message below is the provider's own wording):
// - DeepSeek's thinking mode, on an assistant tool-call message without its `reasoning_content`:
//   400 "The `reasoning_content` in the thinking mode must be passed back to the API."
// - Gemini 3 (OpenAI-compatible), on a tool call without its `extra_content` thought signature:
//   400, as a JSON array, "Function call is missing a thought_signature in functionCall parts. …"
// - OpenAI Responses with `store: false`, on a reasoning item sent by id without its
//   `encrypted_content`: 404 "Item with id '…' not found. Items are not persisted when `store` is
//   set to false. …"; and a function call whose reasoning item was dropped is answered as DeepSeek
//   does, since the model would have lost its chain of thought.
// - Anthropic, on a tool turn without the thinking block it came with: 400 "messages.N.content.0.type:
//   Expected `thinking` or `redacted_thinking`, but found `tool_use`. …", and on a changed block
//   "Invalid `signature` in `thinking` block" (see anthropic-checks.ts).

import type { WireApi } from '../model/index.js';
import { anthropicThinkingProblem } from './anthropic-checks.js';
import { anthropicErrorBody } from './anthropic-wire.js';
import type { CapturedRequest, ResolvedReasoning, ResolvedTurn } from './scripted-turn.js';

interface Issued {
  wireApi: WireApi;
  reasoning: ResolvedReasoning | null;
  fields: Record<string, unknown> | null;
  name: string;
}

export interface LedgerRejection {
  status: number;
  /** The body exactly as the provider sends it. */
  body: unknown;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const DEEPSEEK_MESSAGE = 'The `reasoning_content` in the thinking mode must be passed back to the API.';

function openAiStyle(message: string, status = 400, code: string | null = 'invalid_request_error'): LedgerRejection {
  return { status, body: { error: { message, type: 'invalid_request_error', param: null, code } } };
}

export class ReasoningLedger {
  private readonly byCall = new Map<string, Issued>();

  /** Remember what an answer carried that must come back with its tool calls. */
  record(turn: ResolvedTurn, wireApi: WireApi): void {
    for (const call of turn.toolCalls) {
      if (turn.reasoning === null && call.fields === null) continue;
      this.byCall.set(call.id, { wireApi, reasoning: turn.reasoning, fields: call.fields, name: call.name });
    }
  }

  /** Why the real provider would reject this request, or null. */
  check(request: CapturedRequest): LedgerRejection | null {
    return CHECKS[request.wireApi](this, request.body, request.wireApi);
  }

  /** What was handed out with the call, when it was handed out on this wire (state means nothing on another). */
  private issuedOn(callId: string, wireApi: WireApi): Issued | undefined {
    const issued = this.byCall.get(callId);
    return issued?.wireApi === wireApi ? issued : undefined;
  }

  /** Anthropic: the thinking block handed out with a tool call comes back unchanged (anthropic-checks.ts). */
  checkAnthropic(body: Record<string, unknown>, wireApi: WireApi): LedgerRejection | null {
    const problem = anthropicThinkingProblem(body, (callId) => this.issuedOn(callId, wireApi)?.reasoning ?? null);
    return problem === null ? null : { status: 400, body: anthropicErrorBody('invalid_request_error', problem, 'req_fake_reasoning') };
  }

  checkChat(body: Record<string, unknown>, wireApi: WireApi): LedgerRejection | null {
    const messages = Array.isArray(body.messages) ? body.messages : [];
    let position = 0;
    for (const message of messages) {
      position++;
      if (!isRecord(message) || message.role !== 'assistant' || !Array.isArray(message.tool_calls)) continue;
      for (const call of message.tool_calls) {
        if (!isRecord(call) || typeof call.id !== 'string') continue;
        const issued = this.issuedOn(call.id, wireApi);
        if (issued === undefined) continue;
        const reasoning = issued.reasoning;
        if (reasoning !== null && message[reasoning.field] !== reasoning.text) return openAiStyle(DEEPSEEK_MESSAGE);
        for (const [key, value] of Object.entries(issued.fields ?? {})) {
          if (JSON.stringify(call[key]) === JSON.stringify(value)) continue;
          const message =
            'Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, ' +
            'and missing thought_signature may lead to degraded model performance. Additional data, function call ' +
            `\`default_api:${issued.name}\` , position ${position}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`;
          return { status: 400, body: [{ error: { code: 400, message, status: 'INVALID_ARGUMENT' } }] };
        }
      }
    }
    return null;
  }

  checkResponses(body: Record<string, unknown>, wireApi: WireApi): LedgerRejection | null {
    const input = Array.isArray(body.input) ? body.input : [];
    const stored = body.store !== false;
    const sentReasoning = new Set<string>();
    for (const item of input) {
      if (!isRecord(item)) continue;
      if (item.type === 'reasoning') {
        const encrypted = typeof item.encrypted_content === 'string' ? item.encrypted_content : null;
        if (!stored && encrypted === null) {
          return openAiStyle(
            `Item with id '${String(item.id)}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
            404,
            null,
          );
        }
        if (encrypted !== null) sentReasoning.add(encrypted);
      } else if (item.type === 'function_call' && typeof item.call_id === 'string') {
        const reasoning = this.issuedOn(item.call_id, wireApi)?.reasoning ?? null;
        if (reasoning !== null && !sentReasoning.has(reasoning.token)) {
          return openAiStyle(
            `The reasoning item that produced function call ${item.call_id} was not passed back with its encrypted_content.`,
          );
        }
      }
    }
    return null;
  }
}

type LedgerCheck = (ledger: ReasoningLedger, body: Record<string, unknown>, wireApi: WireApi) => LedgerRejection | null;

/** Each wire's check, in its own provider's words. */
const CHECKS: { readonly [Name in WireApi]: LedgerCheck } = {
  chat: (ledger, body, wireApi) => ledger.checkChat(body, wireApi),
  responses: (ledger, body, wireApi) => ledger.checkResponses(body, wireApi),
  anthropic: (ledger, body, wireApi) => ledger.checkAnthropic(body, wireApi),
};
