// What a captured request told the provider, read back in one shape whatever its wire: the
// messages' text, the tool calls and the tool outputs, in the order sent. The one reader of
// captured request bodies: the offline demo model answers from it and the tests assert on it
// (test/helpers/sent-requests.ts), so a new wire's request shape is taught here once.

import type { CapturedRequest } from './scripted-turn.js';

export type SentEntry =
  /** A message's text (on Anthropic, one text block); reasoning is not an entry. */
  | { kind: 'message'; role: string; text: string }
  /** `arguments` as sent: the JSON text (Anthropic sends an object; this is its JSON). */
  | { kind: 'call'; callId: string; name: string; arguments: string }
  | { kind: 'output'; callId: string; text: string };

type Entry = Record<string, unknown>;

/** A content field as text: a string, or the texts of its parts joined; anything else is its JSON. */
export function contentText(content: unknown): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => String((part as { text?: unknown }).text ?? '')).join('');
  return JSON.stringify(content);
}

function list(value: unknown): Entry[] {
  return Array.isArray(value) ? (value as Entry[]) : [];
}

/** Anthropic Messages: the `system` blocks, then each turn's text, `tool_use` and `tool_result` blocks. */
function anthropicEntries(body: Entry): SentEntry[] {
  const out: SentEntry[] = [];
  if (typeof body.system === 'string') out.push({ kind: 'message', role: 'system', text: body.system });
  for (const block of list(body.system)) out.push({ kind: 'message', role: 'system', text: String(block.text ?? '') });
  for (const message of list(body.messages)) {
    const role = String(message.role);
    if (typeof message.content === 'string') {
      out.push({ kind: 'message', role, text: message.content });
      continue;
    }
    for (const block of list(message.content)) {
      if (block.type === 'text') out.push({ kind: 'message', role, text: String(block.text) });
      else if (block.type === 'tool_use')
        out.push({ kind: 'call', callId: String(block.id), name: String(block.name), arguments: JSON.stringify(block.input ?? {}) });
      // `content` is left out when the output is empty.
      else if (block.type === 'tool_result')
        out.push({ kind: 'output', callId: String(block.tool_use_id), text: contentText(block.content) });
    }
  }
  return out;
}

/** Chat Completions: messages; an assistant message's text (when any) comes before its `tool_calls`. */
function chatEntries(body: Entry): SentEntry[] {
  const out: SentEntry[] = [];
  for (const message of list(body.messages)) {
    const role = String(message.role);
    if (role === 'tool') {
      out.push({ kind: 'output', callId: String(message.tool_call_id), text: contentText(message.content) });
      continue;
    }
    const calls = list(message.tool_calls) as Array<{ id: string; function: { name: string; arguments: unknown } }>;
    const text = contentText(message.content);
    if (text !== '' || calls.length === 0) out.push({ kind: 'message', role, text });
    for (const call of calls) {
      const args = call.function.arguments;
      out.push({
        kind: 'call',
        callId: call.id,
        name: call.function.name,
        arguments: typeof args === 'string' ? args : JSON.stringify(args),
      });
    }
  }
  return out;
}

/** Responses: the `input` items; `reasoning` items are not entries. */
function responsesEntries(body: Entry): SentEntry[] {
  if (typeof body.input === 'string') return [{ kind: 'message', role: 'user', text: body.input }];
  const out: SentEntry[] = [];
  for (const item of list(body.input)) {
    if (item.type === 'function_call')
      out.push({ kind: 'call', callId: String(item.call_id), name: String(item.name), arguments: String(item.arguments) });
    else if (item.type === 'function_call_output')
      out.push({ kind: 'output', callId: String(item.call_id), text: contentText(item.output) });
    else if (item.type !== 'reasoning') out.push({ kind: 'message', role: String(item.role), text: contentText(item.content) });
  }
  return out;
}

const READERS: Readonly<Record<CapturedRequest['wireApi'], (body: Entry) => SentEntry[]>> = {
  chat: chatEntries,
  responses: responsesEntries,
  anthropic: anthropicEntries,
};

/** The conversation a captured request carried, in the order sent. */
export function sentTranscript(request: Pick<CapturedRequest, 'body' | 'wireApi'>): SentEntry[] {
  return READERS[request.wireApi](request.body);
}
