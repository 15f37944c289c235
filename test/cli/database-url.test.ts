// `exec` and `serve` with --database-url / GLASSBOX_DATABASE_URL keep sessions in PostgreSQL (a
// throwaway cluster of this file's own), through the built CLI. The URL is a secret: it reaches
// no tool's environment and no output, and an unusable database is exit 2 with the reason.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { PgSessionStore } from '../../src/sessions/index.js';
import { startFakeProvider } from '../../src/testing/index.js';
import { startPgCluster } from '../helpers/pg-cluster.js';
import { cliEnv, runCli, startCli } from '../helpers/run-cli.js';
import { makeTempDir } from '../helpers/temp-dir.js';

test('--database-url', async (t) => {
  const cluster = await startPgCluster(t);
  if (cluster === null) return;

  await t.test('exec keeps the session in the database, resumes it there, and tools never see the URL', async (sub) => {
    const url = await cluster.newDatabase();
    const base = await makeTempDir();
    const root = join(base, 'project');
    const home = join(base, 'home');
    await mkdir(root, { recursive: true });
    const provider = await startFakeProvider({
      script: [
        { toolCalls: [{ name: 'shell', arguments: { command: 'env; echo listed' } }] },
        { text: 'first answer' },
        { text: 'second answer' },
      ],
    });
    sub.after(() => provider.close());
    const env = cliEnv({ OPENAI_API_KEY: 'sk-test', GLASSBOX_HOME: home, GLASSBOX_DATABASE_URL: url });
    const flags = ['--base-url', provider.baseURL, '-C', root, '--sandbox', 'danger-full-access', '--approval-policy', 'never'];
    const first = await runCli(['exec', ...flags, 'look around'], env);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /first answer/);
    // The flag works as well as the variable.
    const { GLASSBOX_DATABASE_URL: _unused, ...withoutVariable } = env;
    const second = await runCli(['exec', ...flags, '--database-url', url, '--resume', 'last', 'go on'], withoutVariable);
    assert.equal(second.code, 0, second.stderr);

    const toolOutput = JSON.stringify(provider.requests[1]!.body);
    assert.match(toolOutput, /listed/);
    assert.match(toolOutput, /PATH=/, 'the shell printed its environment');
    assert.doesNotMatch(toolOutput, /GLASSBOX_DATABASE_URL|postgres:\/\//);
    for (const output of [first.stdout, first.stderr, second.stdout, second.stderr]) assert.ok(!output.includes(url), output);

    // Nothing under <home>/sessions; both turns in one database session.
    const files = existsSync(join(home, 'sessions')) ? await readdir(join(home, 'sessions')) : [];
    assert.deepEqual(
      files.filter((name) => name.endsWith('.jsonl')),
      [],
    );
    const store = await PgSessionStore.open(url);
    sub.after(() => store.close());
    const { sessions } = await store.list();
    assert.equal(sessions.length, 1);
    assert.equal(sessions[0]!.turns, 2);
    assert.equal(sessions[0]!.title, 'look around');
  });

  await t.test('an unreachable database is exit 2 with the reason, never the password', async () => {
    const base = await makeTempDir();
    const url = `postgres://alice:hunter2-secret@/glassbox?host=${encodeURIComponent(join(base, 'no-server-here'))}`;
    const env = cliEnv({ OPENAI_API_KEY: 'sk-test', GLASSBOX_HOME: join(base, 'home') });
    const [exec, serve] = await Promise.all([
      runCli(['exec', '--database-url', url, '-C', base, 'hi'], env),
      runCli(['serve', '--database-url', url, '-C', base, '--port', '0'], env),
    ]);
    for (const result of [exec, serve]) {
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, /cannot open the session database postgres:\/\/\/glassbox: .*(ENOENT|connect)/);
      assert.doesNotMatch(result.stderr + result.stdout, /hunter2|alice/);
    }
  });

  await t.test('serve says where sessions are, by host and database only', async (sub) => {
    const url = await cluster.newDatabase();
    const base = await makeTempDir();
    const { child, done } = startCli(
      ['serve', '--port', '0', '-C', base],
      cliEnv({ OPENAI_API_KEY: 'sk-test', GLASSBOX_HOME: join(base, 'home'), GLASSBOX_DATABASE_URL: url }),
    );
    sub.after(() => child.kill('SIGKILL'));
    let stderr = '';
    await new Promise<void>((resolve, reject) => {
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes('Ctrl-C to stop')) resolve();
      });
      void done.then((result) => reject(new Error(`serve exited: ${result.stderr}`)));
    });
    assert.match(stderr, /sessions in postgres:\/\/\/test_\d+\)/);
    assert.ok(!stderr.includes(url));
    child.kill('SIGTERM');
    assert.equal((await done).code, 0);
  });
});
