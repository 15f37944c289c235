// What a captured request told the provider about tool calls, in either wire format, and the
// check every provider applies to it: each call id unique, each call answered exactly once by the
// outputs that directly follow its batch. Shared by the call-id tests (test/agent, test/sessions).

import assert from 'node:assert/strict';
import type { ModelMessage, WireApi } from '../../src/model/index.js';
import { sentEntries } from '../helpers/sent-requests.js';

export type SentToolItem = { kind: 'call'; id: string; name: string } | { kind: 'output'; id: string; output: string } | { kind: 'other' };

/** The tool calls, tool outputs and other messages of a captured request body, in order, in any wire format. */
export function toolItemsSent(body: Record<string, unknown>, wireApi: WireApi): SentToolItem[] {
  return sentEntries(body, wireApi).map((entry): SentToolItem => {
    if (entry.kind === 'call') return { kind: 'call', id: entry.callId, name: entry.name };
    if (entry.kind === 'output') return { kind: 'output', id: entry.callId, output: entry.text };
    return { kind: 'other' };
  });
}

/** The same view of IR messages (what the loop hands the gateway). */
export function toolItemsOfMessages(messages: readonly ModelMessage[]): SentToolItem[] {
  const items: SentToolItem[] = [];
  for (const message of messages) {
    if (message.role === 'tool') items.push({ kind: 'output', id: message.toolCallId, output: message.content });
    else if (message.role === 'assistant' && message.toolCalls.length > 0) {
      for (const call of message.toolCalls) items.push({ kind: 'call', id: call.id, name: call.name });
    } else items.push({ kind: 'other' });
  }
  return items;
}

/**
 * Every call id is non-empty and unique, and every batch of calls is directly followed by exactly
 * one output per call (and no other output). Returns the outputs, call by call, in call order.
 */
export function assertToolItemsWellFormed(items: readonly SentToolItem[], where: string): string[] {
  const seen = new Set<string>();
  const answers: string[] = [];
  let index = 0;
  while (index < items.length) {
    const item = items[index]!;
    assert.notEqual(
      item.kind,
      'output',
      `${where}: output ${item.kind === 'output' ? item.id : ''} at #${index} does not follow a batch of calls`,
    );
    if (item.kind !== 'call') {
      index += 1;
      continue;
    }
    const batch: string[] = [];
    while (index < items.length && items[index]!.kind === 'call') {
      const call = items[index] as Extract<SentToolItem, { kind: 'call' }>;
      assert.notEqual(call.id, '', `${where}: a call was sent with an empty id`);
      assert.ok(!seen.has(call.id), `${where}: call id ${JSON.stringify(call.id)} was sent twice`);
      seen.add(call.id);
      batch.push(call.id);
      index += 1;
    }
    const outputs = new Map<string, string>();
    while (index < items.length && items[index]!.kind === 'output') {
      const output = items[index] as Extract<SentToolItem, { kind: 'output' }>;
      assert.ok(
        batch.includes(output.id),
        `${where}: output for ${JSON.stringify(output.id)} does not belong to the batch ${JSON.stringify(batch)}`,
      );
      assert.ok(!outputs.has(output.id), `${where}: call ${JSON.stringify(output.id)} has two outputs`);
      outputs.set(output.id, output.output);
      index += 1;
    }
    for (const id of batch) {
      assert.ok(outputs.has(id), `${where}: call ${JSON.stringify(id)} is not answered before the next message`);
      answers.push(outputs.get(id) as string);
    }
  }
  return answers;
}
