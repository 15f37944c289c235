// The shared store suite (store-conformance.ts) against every SessionStore: memory, JSONL files,
// and PostgreSQL on a throwaway cluster of this file's own.

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { JsonlSessionStore, MemorySessionStore, PgSessionStore } from '../../src/sessions/index.js';
import { startPgCluster } from '../helpers/pg-cluster.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { rm } from 'node:fs/promises';
import { storeConformance } from './store-conformance.js';
import { rewritePgLines } from './pg-test-access.js';

test('MemorySessionStore conforms', async (t) => {
  await storeConformance(t, async ({ now }) => ({ store: new MemorySessionStore({ now }) }));
});

test('JsonlSessionStore conforms', async (t) => {
  const root = await makeTempDir();
  t.after(() => rm(root, { recursive: true, force: true }));
  let stores = 0;
  await storeConformance(t, async ({ now }) => {
    stores += 1;
    const store = new JsonlSessionStore(join(root, `sessions-${stores}`), { now });
    return {
      store,
      rewriteLines: async (sessionId, edit) => {
        const path = store.sessionPath(sessionId);
        const lines = (await readFile(path, 'utf8')).split('\n').slice(0, -1);
        await writeFile(path, `${edit(lines).join('\n')}\n`);
      },
    };
  });
});

test('PgSessionStore conforms', async (t) => {
  const cluster = await startPgCluster(t);
  if (cluster === null) return;
  await storeConformance(t, async ({ now }) => {
    const url = await cluster.newDatabase();
    const store = await PgSessionStore.open(url, { now });
    t.after(() => store.close());
    return { store, rewriteLines: (sessionId, edit) => rewritePgLines(url, sessionId, edit) };
  });
});
