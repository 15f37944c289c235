import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { itemsToModelMessages, type ResponseItem } from '../../src/agent/index.js';
import {
  HistoryReplay,
  INTERRUPTED_CALL_OUTPUT,
  MemorySessionStore,
  SessionError,
  repairOrphans,
  replaySession,
  type SessionRecord,
} from '../../src/sessions/index.js';
import { META, appendAll, assistant, call, output, toolTurn, user } from './session-fixtures.js';

async function recordsOf(turns: number): Promise<SessionRecord[]> {
  const store = new MemorySessionStore();
  const writer = await store.create(META);
  for (let turn = 1; turn <= turns; turn += 1) await appendAll(writer, toolTurn(turn, `prompt ${turn}`));
  await writer.close();
  return (await store.read(writer.sessionId)).records;
}

function synthetic(callId: string, name = 'read_file'): ResponseItem {
  return { type: 'function_call_output', callId, name, output: INTERRUPTED_CALL_OUTPUT, isError: true };
}

describe('replaySession', () => {
  it('rebuilds a multi-round tool transcript from its response items, in order', async () => {
    const records = await recordsOf(2);
    const replay = replaySession(records);
    const expected = [1, 2].flatMap((turn) => [
      user(`prompt ${turn}`),
      assistant(`Looking at turn ${turn}.`),
      call(`t${turn}-a`),
      call(`t${turn}-b`, 'list_dir', '{"path":"."}'),
      output(`t${turn}-a`),
      output(`t${turn}-b`, 'list_dir'),
      call(`t${turn}-c`, 'grep', '{"pattern":"x"}'),
      output(`t${turn}-c`, 'grep'),
      assistant(`Answer ${turn}.`, true),
    ]);
    assert.deepEqual(replay.history, expected);
    assert.deepEqual(replay.orphans, []);
    assert.deepEqual(replay.added, []);
    assert.equal(replay.turns, 2);
    // Three model calls per turn of 20 in / 10 out each.
    assert.equal(replay.usage.calls, 6);
    assert.equal(replay.usage.total.totalTokens, 180);
    assert.equal(replay.usage.byStage.turn?.inputTokens, 120);
    // The replayed history is well-formed for a provider: every tool message answers a call.
    const messages = itemsToModelMessages(replay.history);
    assert.equal(messages.filter((message) => message.role === 'tool').length, 6);
  });

  it('is deterministic: replaying twice gives byte-identical histories', async () => {
    const records = await recordsOf(3);
    assert.equal(JSON.stringify(replaySession(records).history), JSON.stringify(replaySession(records).history));
  });

  it('gives the same result streamed through HistoryReplay as over a records array', async () => {
    const store = new MemorySessionStore();
    const writer = await store.create(META);
    for (let turn = 1; turn <= 3; turn += 1) await appendAll(writer, toolTurn(turn, `prompt ${turn}`));
    await writer.append({ type: 'response_item', turn: 3, item: call('dangling') });
    await writer.close();
    const streamed = new HistoryReplay();
    await store.scan(writer.sessionId, (record) => streamed.add(record));
    const whole = replaySession((await store.read(writer.sessionId)).records);
    assert.deepEqual(streamed.finish(), whole);
    assert.deepEqual(whole.orphans, [{ callId: 'dangling', name: 'read_file' }]);
  });

  it('refuses compaction records until compaction replay exists', () => {
    const records = [{ type: 'compaction', ts: '2025-01-01T00:00:00.000Z', turn: 2, compactionId: 'cmp-9' }] as SessionRecord[];
    assert.throws(() => replaySession(records), (error: unknown) => {
      assert.ok(error instanceof SessionError);
      assert.equal(error.code, 'SESSION_UNSUPPORTED');
      assert.match(error.message, /compaction record \(turn 2, cmp-9\)/);
      return true;
    });
  });
});

describe('repairOrphans', () => {
  it('answers an orphan right after its batch and the outputs that follow it, before the next call', () => {
    const history = [user('go'), call('a'), call('b'), output('a'), call('c'), output('c'), assistant('done', true)];
    const repair = repairOrphans(history);
    assert.deepEqual(repair.history, [user('go'), call('a'), call('b'), output('a'), synthetic('b'), call('c'), output('c'), assistant('done', true)]);
    assert.deepEqual(repair.orphans, [{ callId: 'b', name: 'read_file' }]);
    assert.deepEqual(repair.added, [synthetic('b')]);
    // The input is not modified.
    assert.equal(history.length, 7);
  });

  it('answers a whole unanswered batch at the end in call order', () => {
    const repair = repairOrphans([user('go'), assistant('two calls'), call('x', 'bash'), call('y')]);
    assert.deepEqual(repair.history.slice(4), [synthetic('x', 'bash'), synthetic('y')]);
  });

  it('answers before a later user message, so the provider never sees a dangling call', () => {
    const repair = repairOrphans([call('a'), user('next prompt')]);
    assert.deepEqual(repair.history, [call('a'), synthetic('a'), user('next prompt')]);
    const messages = itemsToModelMessages(repair.history);
    assert.deepEqual(messages.map((message) => message.role), ['assistant', 'tool', 'user']);
  });

  it('reuses persisted repairs instead of inventing new ones', () => {
    const persisted = new Map([['b', { ...output('b'), output: 'persisted text', isError: true }]]);
    const repair = repairOrphans([call('a'), call('b'), output('a')], persisted);
    assert.deepEqual(repair.history[3], persisted.get('b'));
    assert.deepEqual(repair.orphans, []);
  });

  it('pairs repeated call ids first in, first out', () => {
    const repair = repairOrphans([call('dup'), output('dup'), call('dup')]);
    assert.deepEqual(repair.history, [call('dup'), output('dup'), call('dup'), synthetic('dup')]);
  });

  it('leaves a complete history alone', () => {
    const history = [call('a'), output('a')];
    assert.deepEqual(repairOrphans(history), { history, orphans: [], added: [] });
  });
});
