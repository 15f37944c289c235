import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  JsonlSessionStore,
  MemorySessionStore,
  SessionError,
  SessionNotFoundError,
  createSessionIdGenerator,
  replaySession,
  type SessionStore,
} from '../../src/sessions/index.js';
import { withTempDir } from '../helpers/temp-dir.js';
import { META, appendAll, itemRecord, toolTurn, turnStarted, user } from './session-fixtures.js';

async function oneTurnSession(store: SessionStore, prompt = 'hello'): Promise<string> {
  const writer = await store.create(META);
  await appendAll(writer, toolTurn(1, prompt));
  await writer.close();
  return writer.sessionId;
}

function isNotFound(reference: string, location: string) {
  return (error: unknown) => {
    assert.ok(error instanceof SessionNotFoundError);
    assert.equal(error.message, `no session ${reference} in ${location}`);
    assert.equal(error.exitCode, 2);
    return true;
  };
}

describe('JsonlSessionStore', () => {
  it('ignores a torn last line on read and cuts it off before the next append', async () => {
    await withTempDir(async (dir) => {
      const store = new JsonlSessionStore(join(dir, 'sessions'));
      const sessionId = await oneTurnSession(store);
      const path = store.sessionPath(sessionId);
      const intact = await readFile(path, 'utf8');
      const lines = intact.split('\n').length - 1;
      const partial = '{"type":"response_item","ts":"2025-01-01T00:00:00.000Z","turn":1,"item":{"type":"mess';
      await appendFile(path, partial);

      const torn = await store.read(sessionId);
      assert.deepEqual(torn.problems, []);
      assert.deepEqual(torn.tornTail, { line: lines + 1, bytes: partial.length });
      assert.equal(torn.records.length, lines);

      const writer = await store.openForAppend(sessionId);
      assert.equal(await readFile(path, 'utf8'), intact, 'the torn bytes are gone before anything is appended');
      await writer.append(itemRecord(1, user('after the crash')));
      await writer.close();

      const repaired = await store.read(sessionId);
      assert.deepEqual(repaired.problems, []);
      assert.equal(repaired.tornTail, null);
      assert.deepEqual(replaySession(repaired.records).history.at(-1), user('after the crash'));
      assert.ok((await readFile(path, 'utf8')).endsWith('"content":"after the crash"}}\n'));
    });
  });

  it('reports bad middle lines with their line numbers and reads everything else', async () => {
    await withTempDir(async (dir) => {
      const store = new JsonlSessionStore(dir);
      const other = await oneTurnSession(store, 'the other session');
      const sessionId = await oneTurnSession(store, 'damaged session');
      const path = store.sessionPath(sessionId);
      const lines = (await readFile(path, 'utf8')).split('\n');
      lines.splice(3, 0, 'this is not json');
      lines.splice(5, 0, '{"type":"response_item","ts":"2025-01-01T00:00:00.000Z","turn":1,"item":{"type":"function_call"}}');
      lines.splice(7, 0, '{"type":"hologram","ts":"2025-01-01T00:00:00.000Z"}');
      lines.splice(8, 0, '');
      await writeFile(path, lines.join('\n'));

      const contents = await store.read(sessionId);
      assert.deepEqual(
        contents.problems.map((problem) => problem.line),
        [4, 6, 8],
      );
      assert.match(contents.problems[0]!.message, /^invalid JSON/);
      assert.match(contents.problems[1]!.message, /response_item record: item\.callId/);
      assert.match(contents.problems[2]!.message, /unknown record type "hologram"/);
      // Every valid record survived: the replayed history is the intact one.
      assert.equal(replaySession(contents.records).history.length, 9);
      assert.equal(contents.records.length, lines.length - 5);

      const listed = await store.list();
      assert.deepEqual(listed.problems, []);
      assert.deepEqual(new Set(listed.sessions.map((summary) => summary.sessionId)), new Set([other, sessionId]));
    });
  });

  it('keeps listing other sessions when one has no usable first line', async () => {
    await withTempDir(async (dir) => {
      const store = new JsonlSessionStore(dir);
      const good = await oneTurnSession(store);
      const broken = createSessionIdGenerator()();
      await writeFile(store.sessionPath(broken), 'garbage\n{"type":"turn_started"}\n');
      const listed = await store.list();
      assert.deepEqual(
        listed.sessions.map((summary) => summary.sessionId),
        [good],
      );
      assert.equal(listed.problems.length, 1);
      assert.equal(listed.problems[0]!.sessionId, broken);
      assert.match(listed.problems[0]!.message, /line 1 is not a valid session_meta record/);
      await assert.rejects(store.read(broken), (error: unknown) => error instanceof SessionError && error.code === 'SESSION_CORRUPT');
    });
  });

  it('pages through records by line with an opaque cursor', async () => {
    await withTempDir(async (dir) => {
      const store = new JsonlSessionStore(dir);
      const sessionId = await oneTurnSession(store);
      const all = await store.read(sessionId);
      const seen: { line: number; type: string }[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page = await store.readPage(sessionId, { cursor, limit: 5 });
        assert.ok(page.entries.length <= 5);
        seen.push(...page.entries.map(({ line, record }) => ({ line, type: record.type })));
        cursor = page.nextCursor;
        pages += 1;
      } while (cursor !== null);
      assert.equal(pages, Math.ceil(all.records.length / 5) + (all.records.length % 5 === 0 ? 1 : 0));
      assert.deepEqual(
        seen,
        all.records.map((record, index) => ({ line: index + 1, type: record.type })),
      );
      await assert.rejects(store.readPage(sessionId, { cursor: '2:7' }), /does not point at a line/);
      await assert.rejects(store.readPage(sessionId, { cursor: 'banana' }), /invalid record page cursor/);
      await assert.rejects(store.readPage(sessionId, { limit: 0 }), /page limit must be a positive integer/);
    });
  });

  it('resolves last, prefixes and full ids, and names the folder for unknown ids', async () => {
    await withTempDir(async (dir) => {
      const location = join(dir, 'sessions');
      let clock = Date.parse('2025-03-01T10:00:00.000Z');
      const store = new JsonlSessionStore(location, { now: () => new Date((clock += 1000)) });
      await assert.rejects(store.resolveId('last'), isNotFound('last', location));
      const first = await oneTurnSession(store);
      const second = await oneTurnSession(store);
      assert.equal(await store.resolveId('last'), second);
      assert.equal(await store.resolveId(first), first);
      assert.equal(await store.resolveId(first.slice(0, 30)), first);
      assert.equal(await store.resolveId(second.toUpperCase()), second);
      // Both ids were made in the same run, so their first characters agree.
      await assert.rejects(store.resolveId(first.slice(0, 4)), (error: unknown) => {
        assert.ok(error instanceof SessionError);
        assert.equal(error.code, 'SESSION_AMBIGUOUS');
        assert.equal(error.exitCode, 2);
        return true;
      });
      await assert.rejects(store.resolveId('ffffffff'), isNotFound('ffffffff', location));
      await assert.rejects(store.resolveId('../etc'), isNotFound('../etc', location));
      await assert.rejects(
        store.read('0190a4b2-7c3d-7e5f-8a6b-7c8d9e0f1a2b'),
        isNotFound('0190a4b2-7c3d-7e5f-8a6b-7c8d9e0f1a2b', location),
      );
      await assert.rejects(store.openForAppend('nope'), isNotFound('nope', location));
      await assert.rejects(store.readPage('nope'), isNotFound('nope', location));
    });
  });

  it('serialises concurrent appends into whole lines in call order', async () => {
    await withTempDir(async (dir) => {
      const store = new JsonlSessionStore(dir);
      const writer = await store.create(META);
      const big = 'x'.repeat(64 * 1024);
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
  });

  it('closes idempotently and refuses appends after close', async () => {
    await withTempDir(async (dir) => {
      const store = new JsonlSessionStore(dir);
      const writer = await store.create(META);
      await writer.append(turnStarted(1, 'x'));
      await Promise.all([writer.close(), writer.close()]);
      await assert.rejects(
        writer.append(turnStarted(2, 'y')),
        (error: unknown) => error instanceof SessionError && error.code === 'SESSION_CLOSED',
      );
      await assert.rejects(writer.sync(), (error: unknown) => error instanceof SessionError && error.code === 'SESSION_CLOSED');
      // The lock went with the close: the session can be reopened.
      const again = await store.openForAppend(writer.sessionId);
      await again.close();
    });
  });

  it('will not create a session over an existing one', async () => {
    await withTempDir(async (dir) => {
      const store = new JsonlSessionStore(dir);
      const sessionId = await oneTurnSession(store);
      await assert.rejects(store.create({ ...META, sessionId }), /already exists/);
      await assert.rejects(store.create({ ...META, sessionId: 'not-a-uuid' }), /lowercase UUIDv7/);
      assert.equal((await store.read(sessionId)).records.length, 17);
    });
  });

  it('refuses to append to a session written in a newer format, but still reads it', async () => {
    await withTempDir(async (dir) => {
      const store = new JsonlSessionStore(dir);
      const sessionId = await oneTurnSession(store);
      const path = store.sessionPath(sessionId);
      const text = await readFile(path, 'utf8');
      await writeFile(path, text.replace('"formatVersion":1', '"formatVersion":2'));
      const contents = await store.read(sessionId);
      assert.equal(contents.problems[0]!.line, 1);
      assert.match(contents.problems[0]!.message, /session format 2/);
      await assert.rejects(
        store.openForAppend(sessionId),
        (error: unknown) => error instanceof SessionError && error.code === 'SESSION_UNSUPPORTED',
      );
      // The refused writer released its lock.
      await assert.rejects(
        store.openForAppend(sessionId),
        (error: unknown) => error instanceof SessionError && error.code === 'SESSION_UNSUPPORTED',
      );
    });
  });

  it('deletes a session: gone from the list and from reads, refused while a writer holds it', async () => {
    await withTempDir(async (dir) => {
      const store = new JsonlSessionStore(join(dir, 'sessions'));
      const kept = await oneTurnSession(store, 'kept');
      const doomed = await oneTurnSession(store, 'doomed');
      assert.equal((await store.list()).sessions.length, 2, 'both are in the index');

      const writer = await store.openForAppend(doomed);
      await assert.rejects(store.delete(doomed), (error: unknown) => error instanceof SessionError && error.code === 'SESSION_LOCKED');
      await writer.close();

      await store.delete(doomed);
      assert.deepEqual(
        (await store.list()).sessions.map((summary) => summary.sessionId),
        [kept],
        'the deleted session is not listed',
      );
      // Nothing of it is left on disk: the index line (its title is the first prompt) is gone too.
      const left = await readdir(join(dir, 'sessions'));
      for (const name of left) assert.ok(!(await readFile(join(dir, 'sessions', name), 'utf8')).includes(doomed), name);
      await assert.rejects(store.read(doomed), isNotFound(doomed, store.location));
      await assert.rejects(store.delete(doomed), isNotFound(doomed, store.location));
      await assert.rejects(store.resolveId(doomed), isNotFound(doomed, store.location));
      assert.equal((await store.read(kept)).records.length > 0, true);
    });
  });
});

describe('MemorySessionStore', () => {
  it('deletes a session unless a writer holds it', async () => {
    const store = new MemorySessionStore();
    const writer = await store.create(META);
    await assert.rejects(
      store.delete(writer.sessionId),
      (error: unknown) => error instanceof SessionError && error.code === 'SESSION_LOCKED',
    );
    await writer.close();
    await store.delete(writer.sessionId);
    await assert.rejects(store.read(writer.sessionId), isNotFound(writer.sessionId, 'memory'));
  });
});
