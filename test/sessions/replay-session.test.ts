import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { itemsToModelMessages, type ResponseItem } from '../../src/agent/index.js';
import {
  HistoryReplay,
  INTERRUPTED_CALL_OUTPUT,
  MemorySessionStore,
  repairOrphans,
  replaySession,
  type SessionRecord,
} from '../../src/sessions/index.js';
import { applyPrune } from '../../src/compaction/index.js';
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
    assert.deepEqual(whole.orphans, [{ callId: 'dangling', name: 'read_file', turn: 3 }]);
  });

  it('replays compaction instead of returning the uncompacted transcript', async () => {
    const records = await recordsOf(2);
    const base = records.length;
    const store = new MemorySessionStore();
    const writer = await store.create(META);
    await appendAll(writer, toolTurn(1, 'prompt 1'));
    await appendAll(writer, toolTurn(2, 'prompt 2'));
    await writer.append({
      type: 'compaction',
      turn: 2,
      compactionId: 'cmp-9',
      kind: 'summary',
      trigger: 'auto',
      phase: 'mid_turn',
      tokensBefore: 9000,
      tokensAfter: 100,
      itemsRemoved: 16,
      itemsKept: 2,
      reason: 'Reported token usage 9000 reached the compaction threshold 8000.',
      estimated: false,
      summary: 'Both prompts were handled.',
      userBudgetTokens: 20_000,
    });
    await appendAll(writer, [{ type: 'response_item', turn: 3, item: user('prompt 3') }]);
    await writer.close();
    const contents = await store.read(writer.sessionId);
    // Append-only: every original item is still in the file.
    assert.equal(
      contents.records.filter((record) => record.type === 'response_item').length,
      records.slice(1, base).filter((r) => r.type === 'response_item').length + 1,
    );
    assert.deepEqual(replaySession(contents.records).history, [
      { type: 'compaction_summary', compactionId: 'cmp-9', summary: 'Both prompts were handled.' },
      user('prompt 1'),
      user('prompt 2'),
      user('prompt 3'),
    ]);
  });

  it('replays a prune record: the listed outputs get their placeholder, nothing else changes', async () => {
    const records = await recordsOf(1);
    const prune = {
      type: 'compaction',
      ts: '2025-01-01T00:00:00.000Z',
      turn: 1,
      compactionId: 'cmp-p',
      kind: 'prune',
      trigger: 'auto',
      phase: 'mid_turn',
      tokensBefore: 10,
      tokensAfter: 5,
      itemsRemoved: 1,
      itemsKept: 7,
      reason: 'test',
      estimated: false,
      prunedCallIds: ['t1-a'],
    } as SessionRecord;
    const plain = replaySession(records).history;
    const pruned = replaySession([...records, prune]).history;
    assert.equal(pruned.length, plain.length);
    const index = plain.findIndex((item) => item.type === 'function_call_output' && item.callId === 't1-a');
    const elided = pruned[index]!;
    assert.ok(elided.type === 'function_call_output' && elided.output.startsWith('[Tool output elided to save context: read_file'));
    pruned.forEach((item, position) => {
      if (position !== index) assert.deepEqual(item, plain[position]);
    });
  });

  it('repairs interrupted calls before applying a compaction, as the live run saw them', () => {
    const ts = '2025-01-01T00:00:00.000Z';
    const records: SessionRecord[] = [
      { type: 'response_item', ts, turn: 1, item: user('go') },
      { type: 'response_item', ts, turn: 1, item: call('lost') },
      { type: 'response_item', ts, turn: 1, item: { ...synthetic('lost') }, repaired: true },
      { type: 'response_item', ts, turn: 2, item: user('again') },
      {
        type: 'compaction',
        ts,
        turn: 2,
        compactionId: 'cmp-r',
        kind: 'prune',
        trigger: 'auto',
        phase: 'pre_turn',
        tokensBefore: 10,
        tokensAfter: 10,
        itemsRemoved: 0,
        itemsKept: 4,
        reason: 'test',
        estimated: true,
        prunedCallIds: ['lost'],
      },
      { type: 'response_item', ts, turn: 2, item: call('next') },
      { type: 'response_item', ts, turn: 2, item: output('next') },
    ];
    const replay = replaySession(records);
    // The live run pruned the repaired output it held; replay must prune that same output.
    const live = applyPrune([user('go'), call('lost'), synthetic('lost'), user('again')], ['lost']);
    assert.deepEqual(replay.history, [...live, call('next'), output('next')]);
    assert.notDeepEqual(live[2], synthetic('lost'));
    assert.deepEqual(replay.added, []);
  });
});

describe('repairOrphans', () => {
  it('answers an orphan right after its batch and the outputs that follow it, before the next call', () => {
    const history = [user('go'), call('a'), call('b'), output('a'), call('c'), output('c'), assistant('done', true)];
    const repair = repairOrphans(history);
    assert.deepEqual(repair.history, [
      user('go'),
      call('a'),
      call('b'),
      output('a'),
      synthetic('b'),
      call('c'),
      output('c'),
      assistant('done', true),
    ]);
    assert.deepEqual(repair.orphans, [{ callId: 'b', name: 'read_file', turn: null }]);
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
    assert.deepEqual(
      messages.map((message) => message.role),
      ['assistant', 'tool', 'user'],
    );
  });

  it('reuses persisted repairs instead of inventing new ones', () => {
    const persisted = new Map([['b', { ...output('b'), output: 'persisted text', isError: true }]]);
    const repair = repairOrphans([call('a'), call('b'), output('a')], persisted);
    assert.deepEqual(repair.history[3], persisted.get('b'));
    assert.deepEqual(repair.orphans, []);
  });

  it('pairs repeated call ids within their round, never with a call of another round', () => {
    const repair = repairOrphans([call('dup'), output('dup'), call('dup')]);
    assert.deepEqual(repair.history, [call('dup'), output('dup'), call('dup'), synthetic('dup')]);
    // A later round's output is not taken for an earlier round's unanswered call of the same id.
    const later = repairOrphans([call('dup'), user('next'), call('dup'), output('dup')]);
    assert.deepEqual(later.history, [call('dup'), synthetic('dup'), user('next'), call('dup'), output('dup')]);
    // Twice in one batch: both answered, one output each.
    assert.deepEqual(repairOrphans([call('dup'), call('dup'), output('dup'), output('dup')]).orphans, []);
  });

  it('leaves a complete history alone', () => {
    const history = [call('a'), output('a')];
    assert.deepEqual(repairOrphans(history), { history, orphans: [], added: [] });
  });
});
