// `glassbox db migrate` through the built CLI on a throwaway cluster: processes started at once
// migrate a fresh database exactly once (the advisory lock), a second run has nothing to do, and a
// schema newer than this glassbox is refused with exit 2.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { PG_SCHEMA_VERSION } from '../../src/sessions/index.js';
import { startPgCluster } from '../helpers/pg-cluster.js';
import { cliEnv, runCli } from '../helpers/run-cli.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { withPgClient } from '../sessions/pg-test-access.js';

test('glassbox db migrate', async (t) => {
  const cluster = await startPgCluster(t);
  if (cluster === null) return;
  const url = await cluster.newDatabase();
  const env = cliEnv({ GLASSBOX_HOME: join(await makeTempDir(), 'home') });

  const runs = await Promise.all([1, 2, 3].map(() => runCli(['db', 'migrate', '--database-url', url], env)));
  for (const result of runs) assert.equal(result.code, 0, result.stderr);
  const outputs = runs.map((result) => result.stdout.trim());
  assert.equal(outputs.filter((line) => line.includes(`migrated from version 0 to ${PG_SCHEMA_VERSION}`)).length, 1, outputs.join('\n'));
  assert.equal(outputs.filter((line) => line.includes('nothing to do')).length, 2, outputs.join('\n'));
  for (const output of outputs) assert.ok(!output.includes(cluster.socketDir), 'the URL is shown as host and database only');

  const rows = await withPgClient(url, (client) => client.query('SELECT version FROM glassbox_schema_migrations ORDER BY version'));
  assert.deepEqual(
    rows.rows.map((row: { version: number }) => row.version),
    Array.from({ length: PG_SCHEMA_VERSION }, (_, index) => index + 1),
  );

  // Through the variable, as a deploy script would.
  const again = await runCli(['db', 'migrate'], { ...env, GLASSBOX_DATABASE_URL: url });
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /nothing to do/);

  await withPgClient(url, (client) =>
    client.query('INSERT INTO glassbox_schema_migrations (version) VALUES ($1)', [PG_SCHEMA_VERSION + 1]),
  );
  const newer = await runCli(['db', 'migrate', '--database-url', url], env);
  assert.equal(newer.code, 2, newer.stderr);
  assert.match(newer.stderr, /newer than this glassbox knows/);

  const missing = await runCli(['db', 'migrate'], env);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /needs --database-url/);
});
