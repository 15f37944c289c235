// A round's request is built from the whole history, but what a round converts must be what is new
// in it (issue 30): a standalone item (user or system message, tool output, summary) becomes its
// message once, and the wire message of that message is built once, however long the history.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { itemsToModelMessages, standaloneConversions, systemMessage, userMessage, type ResponseItem } from '../../src/agent/index.js';
import { buildChatRequest } from '../../src/model/chat-completions/convert-messages.js';

function round(history: ResponseItem[], n: number): void {
  history.push({ type: 'function_call', callId: `call_${n}`, name: 'read_file', arguments: `{"path":"f${n}"}` });
  history.push({ type: 'function_call_output', callId: `call_${n}`, name: 'read_file', output: `contents ${n}`, isError: false });
}

test('each round converts only its new standalone items, and the request is the one a fresh conversion gives', () => {
  const history: ResponseItem[] = [
    systemMessage('system'),
    userMessage('read them'),
    { type: 'compaction_summary', compactionId: 'c1', summary: 'so far' },
  ];
  itemsToModelMessages(history);
  const perRound: number[] = [];
  let previous: ReturnType<typeof buildChatRequest<true>> | null = null;
  for (let n = 1; n <= 60; n += 1) {
    round(history, n);
    const before = standaloneConversions();
    const messages = itemsToModelMessages(history);
    perRound.push(standaloneConversions() - before);
    const body = buildChatRequest({ model: 'm', messages }, true);
    // Same bytes as converting copies of the items that no cache has seen.
    const fresh = buildChatRequest({ model: 'm', messages: itemsToModelMessages(structuredClone(history)) }, true);
    assert.equal(JSON.stringify(body), JSON.stringify(fresh));
    // The tool message of an earlier round is the same wire object as in the previous request.
    if (previous !== null) assert.equal(body.messages[3], previous.messages[3]);
    previous = body;
  }
  assert.deepEqual(perRound, Array(60).fill(1));
});
