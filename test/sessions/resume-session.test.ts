import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import {
  INTERRUPTED_CALL_OUTPUT,
  JsonlSessionStore,
  MemorySessionStore,
  SessionLockedError,
  replaySession,
  resumeSession,
  type SessionStore,
} from '../../src/sessions/index.js';
import { withTempDir } from '../helpers/temp-dir.js';
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

/** A session whose second turn died while tools `t2-x` and `t2-y` ran (only `t2-x` answered). */
async function crashedSession(store: SessionStore): Promise<string> {
  const writer = await store.create(META);
  await appendAll(writer, toolTurn(1, 'first'));
  await appendAll(writer, [
    turnStarted(2, 'second'),
    itemRecord(2, user('second')),
    modelCall(2, 1),
    itemRecord(2, call('t2-x', 'bash', '{"command":"make"}')),
    itemRecord(2, call('t2-y')),
    itemRecord(2, output('t2-x', 'bash')),
  ]);
  await writer.close();
  return writer.sessionId;
}

async function check(store: SessionStore): Promise<void> {
  const sessionId = await crashedSession(store);
  const before = (await store.read(sessionId)).records.length;

  const resumed = await resumeSession(store, sessionId);
  assert.deepEqual(resumed.repaired, [{ callId: 't2-y', name: 'read_file', turn: 2 }]);
  assert.equal(resumed.turns, 2);
  const tail = resumed.history.slice(-4);
  assert.deepEqual(tail, [
    call('t2-x', 'bash', '{"command":"make"}'),
    call('t2-y'),
    output('t2-x', 'bash'),
    { type: 'function_call_output', callId: 't2-y', name: 'read_file', output: INTERRUPTED_CALL_OUTPUT, isError: true },
  ]);

  // The repair is appended, not rewritten: one new record, in the turn of the call, marked.
  const afterResume = await store.read(sessionId);
  assert.equal(afterResume.records.length, before + 1);
  const appended = afterResume.records[afterResume.records.length - 1]!;
  assert.equal(appended.type, 'response_item');
  assert.ok(appended.type === 'response_item' && appended.repaired === true && appended.turn === 2);
  assert.equal(JSON.stringify(replaySession(afterResume.records).history), JSON.stringify(resumed.history));

  // The next turn goes after the repair; replay still puts the repair after its batch.
  await appendAll(resumed.writer, [
    turnStarted(3, 'third'),
    itemRecord(3, user('third')),
    itemRecord(3, assistant('ok', true)),
    turnCompleted(3),
  ]);
  await resumed.writer.close();
  const replay = replaySession((await store.read(sessionId)).records);
  assert.deepEqual(replay.history.slice(0, resumed.history.length), resumed.history);
  assert.deepEqual(replay.history.slice(resumed.history.length), [user('third'), assistant('ok', true)]);
  assert.deepEqual(replay.orphans, []);

  // Resuming again finds nothing to repair and appends nothing.
  const count = (await store.read(sessionId)).records.length;
  const again = await resumeSession(store, sessionId);
  assert.deepEqual(again.repaired, []);
  await again.writer.close();
  assert.equal((await store.read(sessionId)).records.length, count);
}

describe('resumeSession', () => {
  it('appends synthetic outputs for interrupted calls, once (memory store)', async () => {
    await check(new MemorySessionStore());
  });

  it('appends synthetic outputs for interrupted calls, once (JSONL store)', async () => {
    await withTempDir(async (dir) => check(new JsonlSessionStore(join(dir, 'sessions'))));
  });

  it('holds the lock while the session is resumed', async () => {
    await withTempDir(async (dir) => {
      const store = new JsonlSessionStore(dir);
      const sessionId = await crashedSession(store);
      const resumed = await resumeSession(store, sessionId);
      try {
        await assert.rejects(resumeSession(store, sessionId), SessionLockedError);
      } finally {
        await resumed.writer.close();
      }
      const again = await resumeSession(store, sessionId);
      await again.writer.close();
    });
  });

  it('leaves the last round open for a takeover when one of its calls never started', async () => {
    const store = new MemorySessionStore();
    const writer = await store.create(META);
    await appendAll(writer, toolTurn(1, 'first'));
    await appendAll(writer, [
      turnStarted(2, 'second'),
      itemRecord(2, user('second')),
      modelCall(2, 1),
      itemRecord(2, call('t2-a')),
      itemRecord(2, call('t2-b', 'shell', '{"command":"make"}')),
      itemRecord(2, call('t2-c')),
    ]);
    await writer.close();
    const sessionId = writer.sessionId;
    const before = (await store.read(sessionId)).records.length;
    const asked: string[][] = [];
    const unstartedCalls = async (ids: readonly string[]) => {
      asked.push([...ids]);
      return new Set(['t2-b']);
    };

    // Another run's takeover leaves nothing open: the round is repaired as always.
    const other = await resumeSession(store, sessionId, { runId: 'run-1', unstartedCalls });
    assert.deepEqual(other.openBatch, []);
    assert.deepEqual(asked, []);
    await other.writer.close();
    assert.equal((await store.read(sessionId)).records.length, before + 3);
  });

  it('hands the open round to the loop: the unstarted call to run, the others with their made-up outputs', async () => {
    const store = new MemorySessionStore();
    const writer = await store.create(META);
    await appendAll(writer, [
      turnStarted(2, 'second'),
      itemRecord(2, user('second')),
      modelCall(2, 1),
      itemRecord(2, call('t2-a')),
      itemRecord(2, call('t2-b', 'shell', '{"command":"make"}')),
      itemRecord(2, call('t2-c')),
    ]);
    await writer.close();
    const sessionId = writer.sessionId;
    const before = (await store.read(sessionId)).records.length;
    const interrupted = (callId: string) => ({
      type: 'function_call_output' as const,
      callId,
      name: 'read_file',
      output: INTERRUPTED_CALL_OUTPUT,
      isError: true,
    });

    const resumed = await resumeSession(store, sessionId, { runId: 'run-2', unstartedCalls: async () => new Set(['t2-b']) });
    assert.deepEqual(resumed.openBatch, [
      { call: call('t2-a'), output: interrupted('t2-a') },
      { call: call('t2-b', 'shell', '{"command":"make"}'), output: null },
      { call: call('t2-c'), output: interrupted('t2-c') },
    ]);
    // The history ends with the round's calls; nothing is appended (the loop commits the outputs).
    assert.deepEqual(resumed.history.slice(-3), [call('t2-a'), call('t2-b', 'shell', '{"command":"make"}'), call('t2-c')]);
    assert.deepEqual(resumed.repaired, []);
    await resumed.writer.close();
    assert.equal((await store.read(sessionId)).records.length, before);

    // None of them provably unstarted: repaired as always.
    const again = await resumeSession(store, sessionId, { runId: 'run-2', unstartedCalls: async () => new Set() });
    assert.deepEqual(again.openBatch, []);
    assert.deepEqual(
      again.repaired.map((orphan) => orphan.callId),
      ['t2-a', 't2-b', 't2-c'],
    );
    await again.writer.close();
  });
});
