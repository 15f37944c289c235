import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  JsonlSessionStore,
  MemorySessionStore,
  parseSessionRecord,
  SessionError,
  type NewSessionRecord,
  type SessionStore,
} from '../../src/sessions/index.js';
import { withTempDir } from '../helpers/temp-dir.js';
import { META, assistant, call, output, stagedUsage, turnStarted, usage, user } from './session-fixtures.js';

/** One record of every type, and every response item and audit event shape. */
const EVERY_RECORD: NewSessionRecord[] = [
  turnStarted(1, 'Fix the failing test'),
  { type: 'response_item', turn: 1, item: { type: 'message', role: 'system', content: 'You are Glassbox.' } },
  { type: 'response_item', turn: 1, item: user('Fix the failing test') },
  { type: 'response_item', turn: 1, item: assistant('Looking.') },
  { type: 'response_item', turn: 1, item: call('c1', 'bash', '{"command":"npm test"}') },
  {
    type: 'audit',
    turn: 1,
    event: {
      type: 'tool_permission_decided',
      callId: 'c1',
      name: 'bash',
      decision: 'ask',
      reason: 'runs tests',
      rule: 'policy:on-request',
    },
  },
  {
    type: 'audit',
    turn: 1,
    event: {
      type: 'approval_requested',
      callId: 'c1',
      name: 'bash',
      summary: 'npm test',
      reason: 'runs tests',
      arguments: '{"command":"npm test"}',
    },
  },
  {
    type: 'audit',
    turn: 1,
    event: { type: 'approval_resolved', callId: 'c1', name: 'bash', decision: 'approve', by: 'user', message: null },
  },
  { type: 'audit', turn: 1, event: { type: 'tool_started', callId: 'c1', name: 'bash' } },
  { type: 'audit', turn: 1, event: { type: 'tool_finished', callId: 'c1', name: 'bash', isError: true, durationMs: 812 } },
  { type: 'response_item', turn: 1, item: { ...output('c1', 'bash', 'exit 1'), isError: true } },
  { type: 'response_item', turn: 1, item: output('c2', 'bash', 'repaired'), repaired: true },
  { type: 'response_item', turn: 1, item: { type: 'compaction_summary', compactionId: 'cmp-1', summary: 'Earlier work.' } },
  { type: 'response_item', turn: 1, item: assistant('Fixed.', true) },
  { type: 'model_call', turn: 1, round: 1, stage: 'turn', usage: usage(100, 20), durationMs: 340, finishReason: 'tool_calls', error: null },
  {
    type: 'model_call',
    turn: 1,
    round: 2,
    stage: 'compaction',
    usage: null,
    durationMs: 5,
    finishReason: null,
    error: { code: 'RATE_LIMITED', message: 'slow down' },
  },
  { type: 'warning', turn: 1, code: 'REPETITION', message: 'the same call three times' },
  { type: 'warning', turn: null, code: 'RESUMED', message: 'outside a turn' },
  { type: 'turn_completed', turn: 1, runId: 'run-1', usage: stagedUsage(100, 20), rounds: 2 },
  { type: 'turn_failed', turn: 2, runId: 'run-2', usage: stagedUsage(5, 1), rounds: 1, error: { code: 'AUTH_FAILED', message: 'bad key' } },
  { type: 'turn_cancelled', turn: 3, runId: 'run-3', usage: stagedUsage(0, 0, 0), rounds: 0, reason: 'user pressed Ctrl-C' },
  {
    type: 'compaction',
    turn: 3,
    compactionId: 'cmp-2',
    kind: 'summary',
    trigger: 'auto',
    phase: 'mid_turn',
    tokensBefore: 9000,
    tokensAfter: 1200,
    itemsRemoved: 12,
    itemsKept: 2,
    reason: 'Reported token usage 9000 reached the compaction threshold 8000.',
    estimated: false,
    summary: '## Goal\nFix the bug.',
    userBudgetTokens: 20000,
  },
  {
    type: 'compaction',
    turn: 3,
    compactionId: 'cmp-3',
    kind: 'prune',
    trigger: 'overflow',
    phase: 'pre_turn',
    tokensBefore: 9000,
    tokensAfter: 7000,
    itemsRemoved: 2,
    itemsKept: 10,
    reason: 'The provider rejected the request as too long.',
    estimated: true,
    prunedCallIds: ['c1', 'c2'],
  },
];

async function withStores(run: (store: SessionStore, label: string) => Promise<void>): Promise<void> {
  await run(new MemorySessionStore(), 'memory');
  await withTempDir(async (dir) => run(new JsonlSessionStore(join(dir, 'sessions')), 'jsonl'));
}

describe('session records', () => {
  it('round-trip every record type through both stores', async () => {
    await withStores(async (store, label) => {
      const writer = await store.create(META);
      const written = [];
      for (const record of EVERY_RECORD) written.push(await writer.append(record));
      await writer.sync();
      await writer.close();

      const contents = await store.read(writer.sessionId);
      assert.deepEqual(contents.problems, [], label);
      assert.equal(contents.tornTail, null);
      assert.equal(contents.meta.sessionId, writer.sessionId);
      assert.equal(contents.meta.formatVersion, 1);
      assert.deepEqual(contents.meta.parent, null);
      assert.deepEqual(contents.records.slice(1), written, label);
      for (const [index, record] of written.entries()) {
        assert.deepEqual({ ...record, ts: undefined }, { ...EVERY_RECORD[index], ts: undefined }, `${label} record ${index}`);
        assert.match(record.ts, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      }
    });
  });

  it('write one JSON object per line, type and ts first', async () => {
    await withTempDir(async (dir) => {
      const store = new JsonlSessionStore(dir);
      const writer = await store.create(META);
      await writer.append(EVERY_RECORD[0]!);
      await writer.close();
      const lines = (await readFile(store.sessionPath(writer.sessionId), 'utf8')).split('\n');
      assert.equal(lines.pop(), '', 'file ends with a newline');
      assert.equal(lines.length, 2);
      assert.match(lines[0]!, /^\{"type":"session_meta","ts":"[^"]+","formatVersion":1,"sessionId":"/);
      assert.match(lines[1]!, /^\{"type":"turn_started","ts":"/);
      // Prompts and tool output can hold secrets: only the owner may read sessions.
      assert.equal((await stat(store.sessionPath(writer.sessionId))).mode & 0o077, 0);
      assert.equal((await stat(join(dir, 'index.jsonl'))).mode & 0o077, 0);
    });
  });

  it('refuse records a reader could not read, and write nothing for them', async () => {
    await withStores(async (store, label) => {
      const writer = await store.create(META);
      const invalid: unknown[] = [
        { type: 'response_item', turn: 1, item: { type: 'function_call', name: 'x', arguments: '{}' } },
        { type: 'response_item', turn: 0, item: user('turn numbers start at 1') },
        { type: 'model_call', turn: 1, round: 1, stage: 'turn', usage: null, durationMs: 1, finishReason: 'length', error: null },
        { type: 'audit', turn: 1, event: { type: 'tool_requested', callId: 'c', name: 'x', round: 1, arguments: '{}' } },
        { type: 'turn_completed', turn: 1, runId: 'r', usage: undefined, rounds: 1 },
        { type: 'session_meta', sessionId: writer.sessionId },
        { type: 'not_a_record', turn: 1 },
        { type: 'compaction', turn: 1, compactionId: 'cmp-payload-missing' },
        {
          type: 'compaction',
          turn: 1,
          compactionId: 'cmp-x',
          kind: 'prune',
          trigger: 'auto',
          phase: 'mid_turn',
          tokensBefore: 1,
          tokensAfter: 1,
          itemsRemoved: 0,
          itemsKept: 0,
          reason: 'no ids',
          estimated: false,
        },
      ];
      for (const record of invalid) {
        await assert.rejects(writer.append(record as NewSessionRecord), (error: unknown) => {
          assert.ok(error instanceof SessionError, label);
          assert.equal(error.code, 'SESSION_INVALID_RECORD');
          return true;
        });
      }
      await writer.close();
      assert.equal((await store.read(writer.sessionId)).records.length, 1, `${label}: only the meta line`);
    });
  });

  it('classify values without tripping over prototype names', () => {
    assert.deepEqual(parseSessionRecord({ type: 'constructor', ts: 'x' }), { kind: 'unknown', type: 'constructor' });
    assert.equal(parseSessionRecord({ type: 'response_item', ts: 'x', turn: 1, item: { type: 'toString' } }).kind, 'invalid');
    assert.equal(parseSessionRecord({ type: 'audit', ts: 'x', turn: 1, event: { type: '__proto__' } }).kind, 'invalid');
    assert.equal(parseSessionRecord([1, 2]).kind, 'invalid');
    assert.equal(parseSessionRecord({ ts: 'x' }).kind, 'invalid');
  });

  it('refuse what the schemas refuse at the edges the fast checks once let through', () => {
    // zod's int() is a safe integer, so 2 ** 53 is no turn number; usage without `raw` is not
    // usage (writers always write it). record-checks-property.test.ts found both.
    assert.equal(parseSessionRecord({ type: 'response_item', ts: 'x', turn: 2 ** 53, item: user('hi') }).kind, 'invalid');
    const { raw: _raw, ...withoutRaw } = usage(1, 1);
    const modelCall = { type: 'model_call', ts: 'x', turn: 1, round: 0, stage: 'turn', durationMs: 1, finishReason: null, error: null };
    assert.equal(parseSessionRecord({ ...modelCall, usage: usage(1, 1) }).kind, 'record');
    assert.equal(parseSessionRecord({ ...modelCall, usage: withoutRaw }).kind, 'invalid');
    assert.equal(parseSessionRecord({ ...modelCall, usage: { ...usage(1, 1), raw: null } }).kind, 'record');
  });

  it('keep fields a newer writer added, so forks and copies do not lose them', async () => {
    const store = new MemorySessionStore();
    const writer = await store.create(META);
    const record = { ...turnStarted(1, 'hi'), futureField: { nested: true } } as unknown as NewSessionRecord;
    await writer.append(record);
    await writer.close();
    const [, started] = (await store.read(writer.sessionId)).records;
    assert.deepEqual((started as unknown as { futureField: unknown }).futureField, { nested: true });
  });
});
