// What every SessionStore must do alike, as one suite run against each store
// (test/sessions/store-conformance.test.ts): the loop, the CLI and the server see only the
// interface, so a store that differs here would change what they do.

import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import {
  SessionError,
  SessionNotFoundError,
  replaySession,
  resumeSession,
  type SessionRecord,
  type SessionStore,
} from '../../src/sessions/index.js';
import { META, appendAll, itemRecord, toolTurn, turnStarted, user } from './session-fixtures.js';

export interface StoreUnderTest {
  store: SessionStore;
  /** Replace a session's lines as stored (to plant damage a crash or a hand edit could leave); omitted where a store has no stored lines to damage. */
  rewriteLines?: (sessionId: string, edit: (lines: string[]) => string[]) => Promise<void>;
}

/** A fresh, empty store; `now` is the store's clock. */
export type MakeStore = (options: { now?: () => Date }) => Promise<StoreUnderTest>;

async function oneTurnSession(store: SessionStore, prompt = 'hello'): Promise<string> {
  const writer = await store.create(META);
  await appendAll(writer, toolTurn(1, prompt));
  await writer.close();
  return writer.sessionId;
}

function hasCode(code: string) {
  return (error: unknown) => error instanceof SessionError && error.code === code;
}

function isNotFound(reference: string, location: string) {
  return (error: unknown) => {
    assert.ok(error instanceof SessionNotFoundError);
    assert.equal(error.message, `no session ${reference} in ${location}`);
    assert.equal(error.exitCode, 2);
    return true;
  };
}

export async function storeConformance(t: TestContext, make: MakeStore): Promise<void> {
  await t.test('writes, reads back and summarises a session', async () => {
    const { store } = await make({});
    const sessionId = await oneTurnSession(store, 'the prompt');
    const { records, problems, tornTail } = await store.read(sessionId);
    assert.deepEqual(problems, []);
    assert.equal(tornTail, null);
    assert.equal(records.length, 17);
    assert.equal(records[0]!.type, 'session_meta');
    const [summary] = (await store.list()).sessions;
    assert.equal(summary?.sessionId, sessionId);
    assert.equal(summary?.title, 'the prompt');
    assert.equal(summary?.turns, 1);
    assert.ok((summary?.totalTokens ?? 0) > 0);
  });

  await t.test('serialises concurrent appends into whole records in call order', async () => {
    const { store } = await make({});
    const writer = await store.create(META);
    const big = 'x'.repeat(16 * 1024);
    await Promise.all(Array.from({ length: 100 }, (_, index) => writer.append(itemRecord(1, user(`${index} ${big}`)))));
    await writer.close();
    const { records, problems } = await store.read(writer.sessionId);
    assert.deepEqual(problems, []);
    const order = records
      .slice(1)
      .map((record) =>
        record.type === 'response_item' && record.item.type === 'message' ? Number(record.item.content.split(' ')[0]) : -1,
      );
    assert.deepEqual(
      order,
      Array.from({ length: 100 }, (_, index) => index),
    );
  });

  await t.test('one writer at a time: a second open and a delete are refused until close', async () => {
    const { store } = await make({});
    const sessionId = await oneTurnSession(store);
    const writer = await store.openForAppend(sessionId);
    await assert.rejects(store.openForAppend(sessionId), hasCode('SESSION_LOCKED'));
    await assert.rejects(store.delete(sessionId), hasCode('SESSION_LOCKED'));
    await writer.append(itemRecord(2, user('still mine')));
    await Promise.all([writer.close(), writer.close()]);
    await assert.rejects(writer.append(turnStarted(2, 'y')), hasCode('SESSION_CLOSED'));
    await assert.rejects(writer.sync(), hasCode('SESSION_CLOSED'));
    const again = await store.openForAppend(sessionId);
    await again.close();
    assert.deepEqual(replaySession((await store.read(sessionId)).records).history.at(-1), user('still mine'));
  });

  await t.test('will not create a session over an existing one or with a bad id', async () => {
    const { store } = await make({});
    const sessionId = await oneTurnSession(store);
    await assert.rejects(store.create({ ...META, sessionId }), /already exists/);
    await assert.rejects(store.create({ ...META, sessionId: 'not-a-uuid' }), /lowercase UUIDv7/);
    assert.equal((await store.read(sessionId)).records.length, 17);
  });

  await t.test('resolves last, prefixes and full ids, and names the store for unknown ids', async () => {
    let clock = Date.parse('2025-03-01T10:00:00.000Z');
    const { store } = await make({ now: () => new Date((clock += 1000)) });
    const location = store.location;
    await assert.rejects(store.resolveId('last'), isNotFound('last', location));
    const first = await oneTurnSession(store);
    const second = await oneTurnSession(store);
    assert.equal(await store.resolveId('last'), second);
    assert.equal(await store.resolveId(first), first);
    assert.equal(await store.resolveId(first.slice(0, 30)), first);
    assert.equal(await store.resolveId(second.toUpperCase()), second);
    await assert.rejects(store.resolveId(first.slice(0, 4)), hasCode('SESSION_AMBIGUOUS'));
    await assert.rejects(store.resolveId('ffffffff'), isNotFound('ffffffff', location));
    await assert.rejects(store.resolveId('../etc'), isNotFound('../etc', location));
    const missing = '0190a4b2-7c3d-7e5f-8a6b-7c8d9e0f1a2b';
    await assert.rejects(store.read(missing), isNotFound(missing, location));
    await assert.rejects(store.openForAppend(missing), isNotFound(missing, location));
    await assert.rejects(store.openForAppend('nope'), isNotFound('nope', location));
    await assert.rejects(store.readPage('nope'), isNotFound('nope', location));
    await assert.rejects(store.delete(missing), isNotFound(missing, location));
  });

  await t.test('pages hold every record once, in order, and reject a bad cursor or limit', async () => {
    const { store } = await make({});
    const sessionId = await oneTurnSession(store);
    const all = await store.read(sessionId);
    const seen: { line: number; type: string }[] = [];
    let cursor: string | null = null;
    do {
      const page = await store.readPage(sessionId, { cursor, limit: 5 });
      assert.ok(page.entries.length <= 5);
      seen.push(...page.entries.map(({ line, record }) => ({ line, type: record.type })));
      cursor = page.nextCursor;
    } while (cursor !== null);
    assert.deepEqual(
      seen,
      all.records.map((record, index) => ({ line: index + 1, type: record.type })),
    );
    await assert.rejects(store.readPage(sessionId, { cursor: 'banana' }), /invalid record page cursor|does not point at a line/);
    await assert.rejects(store.readPage(sessionId, { limit: 0 }), /page limit must be a positive integer/);
  });

  await t.test('openAndReplay hands out what scan does, then appends after it', async () => {
    const { store } = await make({});
    const sessionId = await oneTurnSession(store);
    const scanned: SessionRecord[] = [];
    await store.scan(sessionId, (record) => scanned.push(record));
    const replayed: SessionRecord[] = [];
    const { writer, scan } = await store.openAndReplay(sessionId, (record) => replayed.push(record));
    assert.deepEqual(replayed, scanned);
    assert.equal(scan.meta.sessionId, sessionId);
    await writer.append(itemRecord(2, user('after replay')));
    await writer.close();
    const resumed = await resumeSession(store, sessionId);
    assert.deepEqual(resumed.history.at(-1), user('after replay'));
    await resumed.writer.close();
  });

  await t.test('a revision stays while nothing is written and changes with every append; unknown ids are not found', async () => {
    const { store } = await make({});
    const sessionId = await oneTurnSession(store);
    const other = await oneTurnSession(store, 'another');
    const first = await store.revision(sessionId);
    await store.read(sessionId);
    await store.readPage(sessionId, { limit: 2 });
    assert.equal(await store.revision(sessionId), first);
    const seen = new Set([first]);
    const writer = await store.openForAppend(sessionId);
    for (const record of toolTurn(2, 'more').slice(0, 3)) {
      await writer.append(record);
      await writer.sync();
      const next = await store.revision(sessionId);
      assert.ok(!seen.has(next), `the revision after an append is new (${next})`);
      seen.add(next);
    }
    await writer.close();
    assert.notEqual(await store.revision(other), await store.revision(sessionId));
    const missing = '01900000-0000-7000-8000-000000000000';
    await assert.rejects(store.revision(missing), isNotFound(missing, store.location));
  });

  await t.test('deletes a session: gone from the list, reads and ids', async () => {
    const { store } = await make({});
    const kept = await oneTurnSession(store, 'kept');
    const doomed = await oneTurnSession(store, 'doomed');
    await store.delete(doomed);
    assert.deepEqual(
      (await store.list()).sessions.map((summary) => summary.sessionId),
      [kept],
    );
    await assert.rejects(store.read(doomed), isNotFound(doomed, store.location));
    await assert.rejects(store.delete(doomed), isNotFound(doomed, store.location));
    await assert.rejects(store.resolveId(doomed), isNotFound(doomed, store.location));
    assert.equal((await store.read(kept)).records.length, 17);
  });

  await t.test('exportLines gives back exactly what importSession stored; a held id or a bad line is refused whole', async () => {
    const { store: source } = await make({});
    const sessionId = await oneTurnSession(source, 'moved');
    const lines: string[] = [];
    await source.exportLines(sessionId, (text) => lines.push(text));
    assert.equal(lines.length, 17);
    const { store } = await make({});
    const checked = await store.importSession(lines, 'moved.jsonl');
    assert.equal(checked.meta.sessionId, sessionId);
    const back: string[] = [];
    await store.exportLines(sessionId, (text) => back.push(text));
    assert.deepEqual(back, lines);
    assert.deepEqual((await store.read(sessionId)).records, (await source.read(sessionId)).records);
    assert.deepEqual((await store.list()).sessions, (await source.list()).sessions);

    await assert.rejects(store.importSession(lines, 'moved.jsonl'), (error: unknown) => {
      assert.ok(error instanceof SessionError && error.code === 'SESSION_INVALID_ARGUMENT' && error.exitCode === 2);
      assert.match(error.message, /already exists/);
      return true;
    });
    const damaged = [...lines.slice(0, 5), '{"type":"audit","ts":"2025-01-01T00:00:00.000Z"}', ...lines.slice(6)];
    const { store: empty } = await make({});
    await assert.rejects(empty.importSession(damaged, 'damaged.jsonl'), (error: unknown) => {
      assert.ok(error instanceof SessionError && error.code === 'SESSION_INVALID_RECORD' && error.exitCode === 2);
      assert.match(error.message, /^damaged\.jsonl:6: /);
      return true;
    });
    assert.deepEqual((await empty.list()).sessions, []);
    await assert.rejects(
      empty.exportLines(sessionId, () => undefined),
      isNotFound(sessionId, empty.location),
    );

    // An imported session is an ordinary one: it resumes and takes appends.
    const writer = await store.openForAppend(sessionId);
    await appendAll(writer, [turnStarted(2, 'after the move')]);
    await writer.close();
    assert.equal((await store.read(sessionId)).records.length, 18);
  });

  await t.test('reports damaged lines by number and reads the rest; refuses to append to a newer format', async (sub) => {
    const made = await make({});
    const { store, rewriteLines } = made;
    if (rewriteLines === undefined) {
      sub.skip('this store keeps no lines that could be damaged');
      return;
    }
    const sessionId = await oneTurnSession(store, 'damaged');
    await rewriteLines(sessionId, (lines) => {
      const edited = [...lines];
      edited.splice(3, 0, 'this is not json');
      edited.splice(5, 0, '{"type":"response_item","ts":"2025-01-01T00:00:00.000Z","turn":1,"item":{"type":"function_call"}}');
      edited.splice(7, 0, '{"type":"hologram","ts":"2025-01-01T00:00:00.000Z"}');
      return edited;
    });
    const contents = await store.read(sessionId);
    assert.deepEqual(
      contents.problems.map((problem) => problem.line),
      [4, 6, 8],
    );
    assert.match(contents.problems[0]!.message, /^invalid JSON/);
    assert.match(contents.problems[1]!.message, /response_item record: item\.callId/);
    assert.match(contents.problems[2]!.message, /unknown record type "hologram"/);
    assert.equal(replaySession(contents.records).history.length, 9);

    await rewriteLines(sessionId, (lines) => [lines[0]!.replace('"formatVersion":1', '"formatVersion":2'), ...lines.slice(1)]);
    assert.match((await store.read(sessionId)).problems[0]!.message, /session format 2/);
    await assert.rejects(store.openForAppend(sessionId), hasCode('SESSION_UNSUPPORTED'));
    // The refused writer let go of the session: the same refusal again, not SESSION_LOCKED.
    await assert.rejects(store.openForAppend(sessionId), hasCode('SESSION_UNSUPPORTED'));

    const good = await oneTurnSession(store, 'good');
    await rewriteLines(sessionId, (lines) => ['garbage', ...lines.slice(1)]);
    await assert.rejects(store.read(sessionId), hasCode('SESSION_CORRUPT'));
    // One broken session does not break the listing of the others.
    assert.ok((await store.list()).sessions.some((summary) => summary.sessionId === good));
  });
}
