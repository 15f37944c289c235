// Sessions written before Glassbox gave reused tool-call ids ids of its own hold colliding ids
// (`call_1` in every round, twice in one round, empty). Replay pairs outputs with calls within
// their round and renames the collisions the same way every time, so such a session resumes into
// a history every provider accepts, and keeps doing so.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { itemsToModelMessages, type FunctionCallItem, type ResponseItem } from '../../src/agent/index.js';
import {
  INTERRUPTED_CALL_OUTPUT,
  MemorySessionStore,
  parseSessionRecord,
  replaySession,
  resumeSession,
  type NewSessionRecord,
  type SessionRecord,
  type SessionStore,
} from '../../src/sessions/index.js';
import { assertToolItemsWellFormed, toolItemsOfMessages } from '../agent/sent-tool-calls.js';
import {
  META,
  appendAll,
  assistant,
  call,
  itemRecord,
  modelCall,
  output,
  toolTurn,
  turnCompleted,
  turnStarted,
  user,
} from './session-fixtures.js';

async function sessionWith(store: SessionStore, records: readonly NewSessionRecord[]): Promise<string> {
  const writer = await store.create(META);
  await appendAll(writer, records);
  await writer.close();
  return writer.sessionId;
}

/** The outputs the provider would be shown, call by call, after checking ids and pairing. */
function answers(history: readonly ResponseItem[], where: string): string[] {
  return assertToolItemsWellFormed(toolItemsOfMessages(itemsToModelMessages(history)), where);
}

function calls(history: readonly ResponseItem[]): FunctionCallItem[] {
  return history.filter((item): item is FunctionCallItem => item.type === 'function_call');
}

/** Turn 1 as today's code wrote it: call_1 answered in round 1, call_1 again in round 2, then a crash. */
const crashedRoundTwo: NewSessionRecord[] = [
  turnStarted(1, 'first'),
  itemRecord(1, user('first')),
  modelCall(1, 1),
  itemRecord(1, call('call_1', 'read_file', '{"path":"a"}')),
  itemRecord(1, output('call_1', 'read_file', 'contents of a')),
  modelCall(1, 2),
  itemRecord(1, call('call_1', 'read_file', '{"path":"b"}')),
];

describe('sessions with colliding call ids', () => {
  it('resume after a crash following a reused id: each call gets exactly its own output, ids unique', async () => {
    const store = new MemorySessionStore();
    const sessionId = await sessionWith(store, crashedRoundTwo);
    const resumed = await resumeSession(store, sessionId);
    assert.deepEqual(answers(resumed.history, 'resumed'), ['contents of a', INTERRUPTED_CALL_OUTPUT]);
    const [first, second] = calls(resumed.history);
    assert.ok(first && second);
    assert.equal(first.callId, 'call_1');
    assert.notEqual(second.callId, 'call_1');
    assert.equal(second.providerCallId, 'call_1');
    assert.deepEqual(resumed.repaired, [{ callId: second.callId, name: 'read_file', turn: 1 }]);

    // The repair is filed under the call's turn and the new id; replaying the file gives the same history.
    const records = (await store.read(sessionId)).records;
    const repair = records.at(-1);
    assert.ok(
      repair?.type === 'response_item' && repair.repaired === true && repair.turn === 1 && repair.item.type === 'function_call_output',
    );
    assert.equal(repair.item.type === 'function_call_output' && repair.item.callId, second.callId);
    assert.equal(JSON.stringify(replaySession(records).history), JSON.stringify(resumed.history));

    // A later turn written the old way (call_1 once more, answered): still one output per call.
    await appendAll(resumed.writer, [
      turnStarted(2, 'second'),
      itemRecord(2, user('second')),
      itemRecord(2, call('call_1', 'read_file', '{"path":"c"}')),
      itemRecord(2, output('call_1', 'read_file', 'contents of c')),
      itemRecord(2, assistant('done', true)),
      turnCompleted(2),
    ]);
    await resumed.writer.close();
    const again = await resumeSession(store, sessionId);
    await again.writer.close();
    assert.deepEqual(again.repaired, []);
    assert.deepEqual(answers(again.history, 'resumed again'), ['contents of a', INTERRUPTED_CALL_OUTPUT, 'contents of c']);
    assert.deepEqual(again.history.slice(0, resumed.history.length), resumed.history);
  });

  it('a repaired call_1 followed by an answered call_1 in a later turn stays answered in its own round', async () => {
    // Today's code paired turn 2's output with turn 1's call (first-in first-out by id) and the
    // repair with turn 2's call, leaving turn 1's call unanswered: rejected on every later turn.
    const store = new MemorySessionStore();
    const sessionId = await sessionWith(store, [
      turnStarted(1, 'first'),
      itemRecord(1, user('first')),
      itemRecord(1, call('call_1', 'shell', '{"command":"make"}')),
      {
        type: 'response_item',
        turn: 1,
        item: { type: 'function_call_output', callId: 'call_1', name: 'shell', output: INTERRUPTED_CALL_OUTPUT, isError: true },
        repaired: true,
      },
      turnStarted(2, 'second'),
      itemRecord(2, user('second')),
      itemRecord(2, call('call_1', 'read_file')),
      itemRecord(2, output('call_1', 'read_file', 'the file')),
      itemRecord(2, assistant('done', true)),
      turnCompleted(2),
    ]);
    const resumed = await resumeSession(store, sessionId);
    await resumed.writer.close();
    assert.deepEqual(resumed.repaired, []);
    assert.deepEqual(answers(resumed.history, 'resumed'), [INTERRUPTED_CALL_OUTPUT, 'the file']);
    assert.deepEqual(
      resumed.history.map((item) => item.type),
      ['message', 'function_call', 'function_call_output', 'message', 'function_call', 'function_call_output', 'message'],
    );
  });

  it('two calls of one round with the same id are paired in order, and a missing second output is repaired', async () => {
    const round = [
      turnStarted(1, 'first'),
      itemRecord(1, user('first')),
      itemRecord(1, call('call_1', 'read_file', '{"path":"a"}')),
      itemRecord(1, call('call_1', 'read_file', '{"path":"b"}')),
      itemRecord(1, output('call_1', 'read_file', 'A')),
    ];
    const complete = replaySession(recordsOf([...round, itemRecord(1, output('call_1', 'read_file', 'B'))]));
    assert.deepEqual(answers(complete.history, 'complete'), ['A', 'B']);
    assert.deepEqual(complete.orphans, []);

    const store = new MemorySessionStore();
    const sessionId = await sessionWith(store, round);
    const resumed = await resumeSession(store, sessionId);
    await resumed.writer.close();
    assert.deepEqual(answers(resumed.history, 'torn'), ['A', INTERRUPTED_CALL_OUTPUT]);
    assert.equal(resumed.repaired.length, 1);
    const again = await resumeSession(store, sessionId);
    await again.writer.close();
    assert.deepEqual(again.repaired, []);
    assert.deepEqual(again.history, resumed.history);
  });

  it('empty call ids get ids of their own', () => {
    const replay = replaySession(
      recordsOf([
        turnStarted(1, 'first'),
        itemRecord(1, user('first')),
        itemRecord(1, call('')),
        itemRecord(1, call('')),
        itemRecord(1, output('', 'read_file', 'one')),
        itemRecord(1, output('', 'read_file', 'two')),
        itemRecord(1, call('')),
        itemRecord(1, output('', 'read_file', 'three')),
      ]),
    );
    assert.deepEqual(answers(replay.history, 'empty ids'), ['one', 'two', 'three']);
    assert.deepEqual(
      calls(replay.history).map((item) => item.providerCallId),
      ['', '', ''],
    );
  });

  it('a session without colliding ids replays item for item as written', () => {
    const records = recordsOf([...toolTurn(1, 'first'), ...toolTurn(2, 'second')]);
    const written = records.flatMap((record) => (record.type === 'response_item' ? [record.item] : []));
    const replay = replaySession(records);
    assert.deepEqual(replay.history, written);
    for (let index = 0; index < written.length; index += 1) assert.equal(replay.history[index], written[index]);
  });

  it('a recorded providerCallId is kept, and must be a string', () => {
    const renamed = { type: 'response_item', ts: 't', turn: 1, item: { ...call('call_1_gb2'), providerCallId: 'call_1' } };
    const parsed = parseSessionRecord(renamed);
    assert.equal(parsed.kind, 'record');
    assert.equal(parsed.kind === 'record' && parsed.record, renamed);
    const bad = parseSessionRecord({ ...renamed, item: { ...renamed.item, providerCallId: 7 } });
    assert.equal(bad.kind, 'invalid');
  });

  it('after a summary compaction a reused id gets a fresh repair, not the repair of the compacted call', async () => {
    const store = new MemorySessionStore();
    const sessionId = await sessionWith(store, [
      turnStarted(1, 'first'),
      itemRecord(1, user('first')),
      itemRecord(1, call('call_1', 'shell', '{"command":"make"}')),
      {
        type: 'response_item',
        turn: 1,
        item: { type: 'function_call_output', callId: 'call_1', name: 'shell', output: INTERRUPTED_CALL_OUTPUT, isError: true },
        repaired: true,
      },
      turnStarted(2, 'second'),
      itemRecord(2, user('second')),
      {
        type: 'compaction',
        turn: 2,
        compactionId: 'cmp_1',
        kind: 'summary',
        trigger: 'manual',
        phase: 'manual',
        tokensBefore: 100,
        tokensAfter: 10,
        itemsRemoved: 2,
        itemsKept: 2,
        reason: 'test',
        estimated: true,
        summary: 'summary',
        userBudgetTokens: 1000,
      },
      itemRecord(2, call('call_1', 'read_file')),
    ]);
    const resumed = await resumeSession(store, sessionId);
    await resumed.writer.close();
    assert.deepEqual(resumed.repaired, [{ callId: 'call_1', name: 'read_file', turn: 2 }]);
    assert.deepEqual(answers(resumed.history, 'compacted'), [INTERRUPTED_CALL_OUTPUT]);
    const repair = resumed.history.at(-1);
    assert.equal(repair?.type === 'function_call_output' && repair.name, 'read_file');
  });
});

/** Records as a reader returns them (meta first, `ts` stamped). */
function recordsOf(records: readonly NewSessionRecord[]): SessionRecord[] {
  const meta = { type: 'session_meta', ts: 't', formatVersion: 1, sessionId: 's', createdAt: 't', parent: null, ...META } as const;
  return [meta, ...records.map((record) => ({ ts: 't', ...record }) as SessionRecord)];
}
