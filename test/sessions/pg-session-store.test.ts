// What only the PostgreSQL store has: a lease instead of a lock file (held across processes,
// taken over when its holder dies, fencing a holder that lost it), its schema migrations, and its
// rows being exactly the lines the JSONL store writes.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  createSessionIdGenerator,
  describeDatabaseUrl,
  JsonlSessionStore,
  PG_SCHEMA_VERSION,
  PgSessionStore,
  SessionError,
  SessionLockedError,
  type SessionStore,
} from '../../src/sessions/index.js';
import { buildReady } from '../helpers/build-ready.js';
import { startPgCluster } from '../helpers/pg-cluster.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { withPgClient } from './pg-test-access.js';
import { META, appendAll, itemRecord, toolTurn, user } from './session-fixtures.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const storeModule = new URL('../../dist/sessions/index.js', import.meta.url).href;

// Opens the session for append (taking its lease), says so, and waits to be killed.
const HOLDER = `
const { PgSessionStore } = await import(process.env.STORE_MODULE);
const store = await PgSessionStore.open(process.env.DB_URL, { leaseMs: Number(process.env.LEASE_MS) });
await store.openForAppend(process.env.SESSION_ID);
process.stdout.write('leased\\n');
setInterval(() => {}, 1000);
`;

async function oneTurnSession(store: SessionStore): Promise<string> {
  const writer = await store.create(META);
  await appendAll(writer, toolTurn(1, 'hello'));
  await writer.close();
  return writer.sessionId;
}

test('PgSessionStore', async (t) => {
  const cluster = await startPgCluster(t);
  if (cluster === null) return;

  await t.test('a lease held by another process refuses writers, and is taken over once its holder is killed', async (sub) => {
    await buildReady();
    const url = await cluster.newDatabase();
    const leaseMs = 1000;
    const store = await PgSessionStore.open(url, { leaseMs });
    sub.after(() => store.close());
    const sessionId = await oneTurnSession(store);
    const child = spawn(process.execPath, ['--input-type=module', '-e', HOLDER], {
      cwd: repoRoot,
      env: { ...process.env, STORE_MODULE: storeModule, DB_URL: url, LEASE_MS: String(leaseMs), SESSION_ID: sessionId },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    sub.after(() => child.kill('SIGKILL'));
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('leased') && resolve());
      void exited.then(() => reject(new Error(`holder exited early: ${stderr}`)));
    });

    // Alive and renewing: refused however long we try, naming the holder.
    await assert.rejects(store.openForAppend(sessionId), (error: unknown) => {
      assert.ok(error instanceof SessionLockedError);
      assert.equal(error.owner?.pid, child.pid);
      return true;
    });
    await assert.rejects(store.delete(sessionId), (error: unknown) => error instanceof SessionLockedError);

    child.kill('SIGKILL');
    await exited;
    // Dead: its lease is refused until it expires, then ours. Poll (no fixed sleep) for the takeover.
    let writer: Awaited<ReturnType<SessionStore['openForAppend']>> | null = null;
    let refusals = 0;
    while (writer === null) {
      try {
        writer = await store.openForAppend(sessionId);
      } catch (error) {
        assert.ok(error instanceof SessionLockedError, String(error));
        refusals += 1;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    assert.ok(refusals > 0, 'the dead holder’s lease still held right after the kill');
    await writer.append(itemRecord(2, user('taken over')));
    await writer.close();
    assert.equal((await store.read(sessionId)).records.length, 18);
  });

  await t.test('a writer whose lease lapsed and was taken can append nothing more', async (sub) => {
    const url = await cluster.newDatabase();
    const store = await PgSessionStore.open(url);
    sub.after(() => store.close());
    const sessionId = await oneTurnSession(store);
    const stale = await store.openForAppend(sessionId);
    await stale.append(itemRecord(2, user('before the pause')));
    // As if the holder had hung past its lease (a stopped process, a network partition).
    await withPgClient(url, (client) =>
      client.query("UPDATE glassbox_session_leases SET expires_at = clock_timestamp() - interval '1 second' WHERE session_id = $1", [
        sessionId,
      ]),
    );
    const fresh = await store.openForAppend(sessionId);
    await assert.rejects(stale.append(itemRecord(2, user('after the pause'))), (error: unknown) => {
      assert.ok(error instanceof SessionError);
      assert.equal(error.code, 'SESSION_WRITE_FAILED');
      assert.match(error.message, /lease .* another writer took it/);
      return true;
    });
    await fresh.append(itemRecord(3, user('the new holder')));
    await stale.close();
    await fresh.close();
    const texts = (await store.read(sessionId)).records.flatMap((record) =>
      record.type === 'response_item' && record.item.type === 'message' && record.item.role === 'user' ? [record.item.content] : [],
    );
    assert.deepEqual(texts.slice(-2), ['before the pause', 'the new holder']);
  });

  await t.test('migrates a fresh database once when several processes start together; refuses a newer schema', async () => {
    const url = await cluster.newDatabase();
    const stores = await Promise.all(Array.from({ length: 4 }, () => PgSessionStore.open(url)));
    await Promise.all(stores.map((store) => store.close()));
    const versions = await withPgClient(url, async (client) => {
      const rows = await client.query<{ version: number }>('SELECT version FROM glassbox_schema_migrations ORDER BY version');
      await client.query('INSERT INTO glassbox_schema_migrations (version) VALUES ($1)', [PG_SCHEMA_VERSION + 1]);
      return rows.rows.map((row) => row.version);
    });
    assert.deepEqual(
      versions,
      Array.from({ length: PG_SCHEMA_VERSION }, (_, index) => index + 1),
    );
    await assert.rejects(PgSessionStore.open(url), (error: unknown) => {
      assert.ok(error instanceof SessionError);
      assert.equal(error.code, 'SESSION_UNSUPPORTED');
      assert.match(error.message, /newer than this glassbox knows/);
      return true;
    });
  });

  await t.test('stores exactly the lines the JSONL store writes', async (sub) => {
    const url = await cluster.newDatabase();
    const dir = await makeTempDir();
    sub.after(() => rm(dir, { recursive: true, force: true }));
    // One fixed instant: the stores may read their clocks a different number of times.
    const clock = () => () => new Date('2025-05-01T00:00:00.000Z');
    const sessionId = createSessionIdGenerator()();
    const sessionsOf = [new JsonlSessionStore(join(dir, 'sessions'), { now: clock() }), await PgSessionStore.open(url, { now: clock() })];
    sub.after(() => (sessionsOf[1] as PgSessionStore).close());
    for (const store of sessionsOf) {
      const writer = await store.create({ ...META, sessionId });
      await appendAll(writer, [...toolTurn(1, 'same records, "quoted" ünïcode ✓'), ...toolTurn(2, 'again')]);
      await writer.close();
    }
    const file = await readFile((sessionsOf[0] as JsonlSessionStore).sessionPath(sessionId), 'utf8');
    const rows = await withPgClient(url, (client) =>
      client.query<{ body: string }>('SELECT body FROM glassbox_session_records WHERE session_id = $1 ORDER BY line', [sessionId]),
    );
    assert.equal(rows.rows.map((row) => `${row.body}\n`).join(''), file);
  });

  await t.test('its location names the database, never the credentials', async (sub) => {
    assert.equal(
      describeDatabaseUrl('postgres://alice:s3cret@db.example:5432/glassbox?sslmode=require'),
      'postgres://db.example:5432/glassbox',
    );
    assert.equal(describeDatabaseUrl('postgresql://alice:p@ss@db/x'), 'postgresql://db/x');
    assert.equal(describeDatabaseUrl('postgres://alice:pa/ss@db/x'), 'postgres database');
    assert.equal(describeDatabaseUrl('postgres://db/x?password=s3cret'), 'postgres://db/x');
    const store = await PgSessionStore.open(await cluster.newDatabase());
    sub.after(() => store.close());
    assert.ok(!store.location.includes('host='), store.location);
  });
});
