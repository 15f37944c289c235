import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import {
  JsonlSessionStore,
  MemorySessionStore,
  SessionError,
  SessionNotFoundError,
  forkSession,
  replaySession,
  resumeSession,
  type SessionRecord,
  type SessionStore,
} from '../../src/sessions/index.js';
import { withTempDir } from '../helpers/temp-dir.js';
import { META, appendAll, call, itemRecord, toolTurn, turnStarted, user } from './session-fixtures.js';

async function sessionWithTurns(store: SessionStore, turns: number): Promise<string> {
  const writer = await store.create(META);
  for (let turn = 1; turn <= turns; turn += 1) await appendAll(writer, toolTurn(turn, `prompt ${turn}`));
  await writer.close();
  return writer.sessionId;
}

function historyUpTo(records: readonly SessionRecord[], turn: number): string {
  return JSON.stringify(
    replaySession(records.filter((record) => !('turn' in record) || record.turn === null || record.turn <= turn)).history,
  );
}

describe('forkSession', () => {
  it('gives the fork a byte-identical prefix of the parent history', async () => {
    await withTempDir(async (dir) => {
      const store = new JsonlSessionStore(join(dir, 'sessions'));
      const parentId = await sessionWithTurns(store, 3);
      const parent = await store.read(parentId);
      const parentHistory = replaySession(parent.records).history;

      const forkId = await forkSession(store, parentId, { atTurn: 2 });
      assert.notEqual(forkId, parentId);
      const fork = await store.read(forkId);
      assert.deepEqual(fork.problems, []);
      assert.deepEqual(fork.meta.parent, { sessionId: parentId, atTurn: 2 });
      assert.equal(fork.meta.cwd, META.cwd);

      const forkHistory = JSON.stringify(replaySession(fork.records).history);
      assert.equal(forkHistory, historyUpTo(parent.records, 2));
      assert.equal(forkHistory, JSON.stringify(parentHistory.slice(0, replaySession(fork.records).history.length)));
      assert.ok(replaySession(fork.records).history.length < parentHistory.length);

      // Only history and its framing are copied; the parent's audit trail stays with it.
      assert.deepEqual([...new Set(fork.records.map((record) => record.type))].sort(), [
        'response_item',
        'session_meta',
        'turn_completed',
        'turn_started',
      ]);
      assert.equal(replaySession(fork.records).turns, 2);

      // The fork lists with its parent and is resumable like any session.
      const listed = await store.list();
      assert.deepEqual(listed.sessions.find((summary) => summary.sessionId === forkId)?.parent, { sessionId: parentId, atTurn: 2 });
      const resumed = await resumeSession(store, forkId);
      assert.deepEqual(resumed.repaired, []);
      assert.equal(resumed.turns, 2);
      await resumed.writer.close();
    });
  });

  it('forks at the last turn that ended by default, leaving out an unfinished one', async () => {
    const store = new MemorySessionStore();
    const writer = await store.create(META);
    await appendAll(writer, toolTurn(1, 'one'));
    await appendAll(writer, toolTurn(2, 'two'));
    await appendAll(writer, [turnStarted(3, 'three'), itemRecord(3, user('three')), itemRecord(3, call('t3-x'))]);
    await writer.close();

    const forkId = await forkSession(store, writer.sessionId);
    const fork = await store.read(forkId);
    assert.deepEqual(fork.meta.parent, { sessionId: writer.sessionId, atTurn: 2 });
    assert.equal(JSON.stringify(replaySession(fork.records).history), historyUpTo((await store.read(writer.sessionId)).records, 2));

    // Forking the unfinished turn explicitly carries its orphan, repaired the same way on both sides.
    const parentRecords = (await store.read(writer.sessionId)).records;
    const withOrphan = await store.read(await forkSession(store, writer.sessionId, { atTurn: 3 }));
    assert.equal(JSON.stringify(replaySession(withOrphan.records).history), JSON.stringify(replaySession(parentRecords).history));
    assert.equal(replaySession(withOrphan.records).orphans.length, 1);

    const empty = await store.read(await forkSession(store, writer.sessionId, { atTurn: 0 }));
    assert.deepEqual(replaySession(empty.records).history, []);
  });

  it('copies repairs appended after later turns into a fork of an earlier turn', async () => {
    const store = new MemorySessionStore();
    const writer = await store.create(META);
    await appendAll(writer, [turnStarted(1, 'one'), itemRecord(1, user('one')), itemRecord(1, call('lost'))]);
    await writer.close();
    const resumed = await resumeSession(store, writer.sessionId);
    await appendAll(resumed.writer, toolTurn(2, 'two'));
    await resumed.writer.close();

    const parent = await store.read(writer.sessionId);
    const fork = await store.read(await forkSession(store, writer.sessionId, { atTurn: 1 }));
    assert.equal(JSON.stringify(replaySession(fork.records).history), historyUpTo(parent.records, 1));
    assert.deepEqual(replaySession(fork.records).orphans, [], 'the persisted repair came along');
  });

  it('rejects a turn beyond the last one, and unknown sessions', async () => {
    const store = new MemorySessionStore();
    const sessionId = await sessionWithTurns(store, 2);
    await assert.rejects(forkSession(store, sessionId, { atTurn: 3 }), (error: unknown) => {
      assert.ok(error instanceof SessionError);
      assert.equal(error.exitCode, 2);
      assert.match(error.message, /cannot fork session .* at turn 3: it has 2 turns/);
      return true;
    });
    await assert.rejects(forkSession(store, sessionId, { atTurn: -1 }), /at turn -1/);
    await assert.rejects(forkSession(store, sessionId, { atTurn: 1.5 }), /at turn 1.5/);
    await assert.rejects(forkSession(store, '0190a4b2-7c3d-7e5f-8a6b-7c8d9e0f1a2b'), SessionNotFoundError);
    assert.equal((await store.list()).sessions.length, 1, 'nothing was created');
  });
});
