import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { JsonlSessionStore, createSessionIdGenerator, type SessionSummary } from '../../src/sessions/index.js';
import { withTempDir } from '../helpers/temp-dir.js';
import { META, appendAll, itemRecord, turnCompleted, turnStarted, user } from './session-fixtures.js';

const SESSION_COUNT = 3000;
/** Sessions created through the store; the rest are written as files the index has never seen. */
const WRITTEN_BY_STORE = 200;

function summaryIndex(title: string): number {
  return Number(/^task number (\d+)$/.exec(title)?.[1]);
}

/** Sessions with one ended turn each, created through the store in parallel batches. */
async function createMany(store: JsonlSessionStore, count: number, first = 0): Promise<string[]> {
  const ids: string[] = [];
  const batch = 50;
  for (let start = first; start < first + count; start += batch) {
    const created = await Promise.all(
      Array.from({ length: Math.min(batch, first + count - start) }, async (_, offset) => {
        const index = start + offset;
        const writer = await store.create({ ...META, cwd: `/work/project-${index % 7}` });
        await appendAll(writer, [
          turnStarted(1, `task number ${index}`),
          itemRecord(1, user(`task number ${index}`)),
          turnCompleted(1, 100 + index),
        ]);
        await writer.close();
        return writer.sessionId;
      }),
    );
    ids.push(...created);
  }
  return ids;
}

/** The same sessions as `createMany`, written straight to disk (as if copied from elsewhere). */
async function writeMany(store: JsonlSessionStore, count: number, first: number): Promise<void> {
  const newId = createSessionIdGenerator();
  const ts = '2025-04-01T00:00:00.000Z';
  const files = Array.from({ length: count }, (_, offset) => {
    const index = first + offset;
    const sessionId = newId();
    const meta = {
      type: 'session_meta',
      ts,
      formatVersion: 1,
      sessionId,
      createdAt: ts,
      cwd: `/work/project-${index % 7}`,
      model: 'test-model',
      wireApi: 'chat',
      parent: null,
      glassboxVersion: '0.1.0',
    };
    const records = [
      meta,
      turnStarted(1, `task number ${index}`),
      itemRecord(1, user(`task number ${index}`)),
      turnCompleted(1, 100 + index),
    ];
    return { path: store.sessionPath(sessionId), text: `${records.map((record) => JSON.stringify({ ts, ...record })).join('\n')}\n` };
  });
  for (let start = 0; start < files.length; start += 100) {
    await Promise.all(files.slice(start, start + 100).map((file) => writeFile(file.path, file.text)));
  }
}

function indexLines(store: JsonlSessionStore): Promise<string[]> {
  return readFile(join(store.directory, 'index.jsonl'), 'utf8').then((text) => text.split('\n').filter((line) => line !== ''));
}

describe('session index', () => {
  it('lists thousands of sessions from the index, and rebuilds it when it is deleted', async () => {
    await withTempDir(async (dir) => {
      // A clock that ticks per call gives every session a distinct update time.
      let clock = Date.parse('2025-05-01T00:00:00.000Z');
      const store = new JsonlSessionStore(dir, { now: () => new Date((clock += 1)) });
      await createMany(store, WRITTEN_BY_STORE);
      assert.equal((await indexLines(store)).length, WRITTEN_BY_STORE, 'one index line per closed session');
      await writeMany(store, SESSION_COUNT - WRITTEN_BY_STORE, WRITTEN_BY_STORE);

      // The first listing reads the heads of the unindexed files and adds them to the index.
      const all = await store.list();
      assert.equal(all.sessions.length, SESSION_COUNT);
      assert.deepEqual(all.problems, []);
      assert.equal((await indexLines(store)).length, SESSION_COUNT);
      const updated = all.sessions.map((summary) => Date.parse(summary.updatedAt));
      for (let index = 1; index < updated.length; index += 1) assert.ok(updated[index - 1]! >= updated[index]!, 'newest first');
      // Every session is there with its own summary.
      const titles = new Set<string>();
      for (const summary of all.sessions) {
        const index = summaryIndex(summary.title);
        titles.add(summary.title);
        assert.equal(summary.turns, 1);
        assert.equal(summary.totalTokens, 100 + index);
        assert.equal(summary.cwd, `/work/project-${index % 7}`);
      }
      assert.equal(titles.size, SESSION_COUNT);

      // Paging visits every session exactly once.
      const paged: SessionSummary[] = [];
      let cursor: string | null = null;
      do {
        const page = await store.list({ limit: 700, cursor });
        paged.push(...page.sessions);
        cursor = page.nextCursor;
      } while (cursor !== null);
      assert.deepEqual(
        paged.map((summary) => summary.sessionId),
        all.sessions.map((summary) => summary.sessionId),
      );

      const queried = await store.list({ query: 'TASK NUMBER 2999' });
      assert.deepEqual(
        queried.sessions.map((summary) => summary.title),
        ['task number 2999'],
      );
      assert.equal((await store.list({ query: 'project-3' })).sessions.length, Math.ceil((SESSION_COUNT - 3) / 7));

      // Make files disagree with the index (one the store wrote, one it only saw on disk): the
      // listing still shows the indexed summaries, so it came from the index, not the files.
      const probes = [
        all.sessions.find((summary) => summaryIndex(summary.title) < WRITTEN_BY_STORE),
        all.sessions.find((summary) => summaryIndex(summary.title) >= WRITTEN_BY_STORE),
      ].map((summary) => summary?.sessionId ?? '');
      for (const probe of probes) {
        const path = store.sessionPath(probe);
        const [metaLine] = (await readFile(path, 'utf8')).split('\n');
        await writeFile(path, `${metaLine}\n`);
      }
      const fromIndex = (await store.list()).sessions.filter((summary) => probes.includes(summary.sessionId));
      assert.deepEqual(
        fromIndex.map((summary) => summary.turns),
        [1, 1],
      );

      // Without the index, listing rebuilds it from the files, and then it is right again.
      await unlink(join(dir, 'index.jsonl'));
      const rebuilt = await store.list();
      assert.equal(rebuilt.sessions.length, SESSION_COUNT);
      const reread = rebuilt.sessions.filter((summary) => probes.includes(summary.sessionId));
      assert.deepEqual(
        reread.map((summary) => [summary.turns, summary.title]),
        [
          [0, ''],
          [0, ''],
        ],
      );
      assert.equal((await indexLines(store)).length, SESSION_COUNT);
    });
  });

  it('drops deleted sessions, summarises unindexed ones from their head, and skips corrupt index lines', async () => {
    await withTempDir(async (dir) => {
      const store = new JsonlSessionStore(dir);
      const ids = await createMany(store, 4);

      // Crash before the first turn ended: the file exists, the index has never heard of it.
      const crashed = await store.create({ ...META, cwd: '/crashed' });
      await appendAll(crashed, [turnStarted(1, 'interrupted   work\nwith newlines'), itemRecord(1, user('interrupted work'))]);

      await rm(store.sessionPath(ids[0]!));
      await appendFile(join(dir, 'index.jsonl'), '{"sessionId": "broken"\nnot json at all\n');

      const listed = await store.list();
      assert.deepEqual(listed.problems, []);
      const byId = new Map(listed.sessions.map((summary) => [summary.sessionId, summary]));
      assert.equal(byId.has(ids[0]!), false, 'deleted session dropped');
      assert.deepEqual([...byId.keys()].sort(), [...ids.slice(1), crashed.sessionId].sort());
      const head = byId.get(crashed.sessionId);
      assert.equal(head?.title, 'interrupted work with newlines');
      assert.equal(head?.turns, 1);
      assert.equal(head?.cwd, '/crashed');
      // The whole small file was read, so its exact summary joined the index.
      assert.ok((await indexLines(store)).some((line) => line.includes(crashed.sessionId)));
      await crashed.close();
    });
  });

  it('keeps a summary for a large unindexed session from its head alone', async () => {
    await withTempDir(async (dir) => {
      const store = new JsonlSessionStore(dir, { headBytes: 4096 });
      const [kept] = await createMany(store, 1);
      const writer = await store.create(META);
      await appendAll(writer, [turnStarted(1, 'big first turn')]);
      for (let index = 0; index < 20; index += 1) await writer.append(itemRecord(1, user('y'.repeat(1000))));
      const listed = await store.list();
      const big = listed.sessions.find((summary) => summary.sessionId === writer.sessionId);
      assert.equal(big?.title, 'big first turn');
      // Only a head was read, so this approximate summary is not written to the index.
      assert.equal(
        (await indexLines(store)).some((line) => line.includes(writer.sessionId)),
        false,
      );
      assert.ok(listed.sessions.some((summary) => summary.sessionId === kept));
      await writer.close();
      assert.ok(
        (await indexLines(store)).some((line) => line.includes(writer.sessionId)),
        'close publishes it',
      );
    });
  });

  it('compacts an index that has grown far beyond the number of sessions', async () => {
    await withTempDir(async (dir) => {
      const store = new JsonlSessionStore(dir);
      await createMany(store, 2);
      const writer = await store.create(META);
      for (let turn = 1; turn <= 150; turn += 1) {
        await appendAll(writer, [turnStarted(turn, `turn ${turn}`), turnCompleted(turn, 10)]);
        await writer.sync();
      }
      await writer.close();
      assert.ok((await indexLines(store)).length > 150);
      const listed = await store.list();
      assert.equal(listed.sessions.find((summary) => summary.sessionId === writer.sessionId)?.turns, 150);
      assert.equal(listed.sessions.find((summary) => summary.sessionId === writer.sessionId)?.totalTokens, 1500);
      assert.equal((await indexLines(store)).length, 3);
      const result = await store.rebuildIndex();
      assert.deepEqual(result, { sessions: 3, problems: [] });
    });
  });
});
