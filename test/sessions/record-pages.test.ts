// Paged reading must agree with a whole read, in both stores: the same records with their line
// numbers, and every problem (bad lines, a newer format) on the page that holds its line.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { JsonlSessionStore, MemorySessionStore, type RecordPage, type SessionStore } from '../../src/sessions/index.js';
import { withTempDir } from '../helpers/temp-dir.js';
import { META, appendAll, toolTurn } from './session-fixtures.js';

async function twoTurnSession(store: SessionStore): Promise<string> {
  const writer = await store.create(META);
  await appendAll(writer, [...toolTurn(1, 'first'), ...toolTurn(2, 'second')]);
  await writer.close();
  return writer.sessionId;
}

async function readAllPages(store: SessionStore, sessionId: string, limit: number): Promise<RecordPage[]> {
  const pages: RecordPage[] = [];
  let cursor: string | null = null;
  do {
    const page = await store.readPage(sessionId, { cursor, limit });
    pages.push(page);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return pages;
}

async function assertPagesMatchRead(store: SessionStore, sessionId: string, limit: number): Promise<RecordPage[]> {
  const entries: RecordPage['entries'] = [];
  const whole = await store.scan(sessionId, (record, line) => entries.push({ line, record }));
  const pages = await readAllPages(store, sessionId, limit);
  for (const page of pages.slice(0, -1)) assert.equal(page.entries.length, limit);
  assert.deepEqual(
    pages.flatMap((page) => page.entries),
    entries,
  );
  assert.deepEqual(
    pages.flatMap((page) => page.problems),
    whole.problems,
  );
  return pages;
}

describe('record pages', () => {
  it('memory store: pages hold every record once, in order, and reject a bad cursor', async () => {
    const store = new MemorySessionStore();
    const sessionId = await twoTurnSession(store);
    const pages = await assertPagesMatchRead(store, sessionId, 7);
    assert.equal(pages.flatMap((page) => page.entries).length, 33);
    assert.deepEqual(
      pages.flatMap((page) => page.problems),
      [],
    );
    await assert.rejects(store.readPage(sessionId, { cursor: '0' }), /invalid record page cursor: 0/);
    await assert.rejects(store.readPage(sessionId, { cursor: '35' }), /invalid record page cursor: 35/);
    await assert.rejects(store.readPage(sessionId, { limit: 0 }), /page limit must be a positive integer/);
  });

  it('jsonl store: each problem is reported on the page that holds its line', async () => {
    await withTempDir(async (dir) => {
      const store = new JsonlSessionStore(dir);
      const sessionId = await twoTurnSession(store);
      const path = store.sessionPath(sessionId);
      const lines = (await readFile(path, 'utf8')).split('\n');
      lines[0] = lines[0]!.replace('"formatVersion":1', '"formatVersion":2');
      lines.splice(3, 0, 'this is not json');
      lines.splice(12, 0, '{"type":"hologram","ts":"2025-01-01T00:00:00.000Z"}');
      lines.splice(20, 0, lines[0]);
      await writeFile(path, lines.join('\n'));

      const pages = await assertPagesMatchRead(store, sessionId, 5);
      const problemLines = pages.map((page) => page.problems.map((problem) => problem.line));
      // Five records a page: bad lines take no room, so a page spans more lines than it holds records.
      assert.deepEqual(problemLines.slice(0, 4), [[1, 4], [], [13], [21]]);
      assert.ok(problemLines.slice(4).every((found) => found.length === 0));
      const [first] = pages;
      assert.ok(first);
      assert.match(first.problems[0]!.message, /session format 2/);
      assert.match(first.problems[1]!.message, /^invalid JSON/);
      assert.match(pages[2]!.problems[0]!.message, /unknown record type "hologram"/);
      assert.match(pages[3]!.problems[0]!.message, /session_meta is only allowed on line 1/);
    });
  });
});
