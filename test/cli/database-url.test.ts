// `exec` and `serve` with --database-url / GLASSBOX_DATABASE_URL keep sessions in PostgreSQL (a
// throwaway cluster of this file's own), through the built CLI. The URL is a secret: it reaches
// no tool's environment and no output, and an unusable or silent database is exit 2 with the reason.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { describe, test } from 'node:test';
import { PG_CONNECT_TIMEOUT_MS, PgSessionStore, pgConnectTimeoutMs } from '../../src/sessions/index.js';
import { startFakeProvider } from '../../src/testing/index.js';
import { startPgCluster } from '../helpers/pg-cluster.js';
import { cliEnv, runCli, startCli } from '../helpers/run-cli.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { eventsOf, readFrames } from '../server/server-harness.js';

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

    // `sessions`, `sessions show` and `fork` read the same database.
    const listed = await runCli(['sessions', '--json'], env);
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(
      (JSON.parse(listed.stdout) as { sessionId: string }[]).map((summary) => summary.sessionId),
      [sessions[0]!.sessionId],
    );
    const shown = await runCli(['sessions', 'show', 'last'], env);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /second answer/);
    const forked = await runCli(['fork', 'last', '--at-turn', '1'], env);
    assert.equal(forked.code, 0, forked.stderr);
    const forkId = forked.stdout.trim();
    assert.equal((await store.list()).sessions.find((summary) => summary.sessionId === forkId)?.turns, 1);
  });

  await t.test('two servers on one database: a run through one is a session the other serves', async (sub) => {
    const url = await cluster.newDatabase();
    const base = await makeTempDir();
    const provider = await startFakeProvider({ script: [{ text: 'Answer from server A.' }] });
    sub.after(() => provider.close());
    const token = 'team-token-for-the-test-000001';
    const start = (name: string) => {
      const { child, done } = startCli(
        ['serve', '--port', '0', '--base-url', provider.baseURL, '-C', base, '--home', join(base, `home-${name}`)],
        cliEnv({ OPENAI_API_KEY: 'sk-test', GLASSBOX_TOKEN: token, GLASSBOX_DATABASE_URL: url }),
      );
      sub.after(() => child.kill('SIGKILL'));
      let stdout = '';
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const ready = new Promise<string>((resolve, reject) => {
        child.stdout!.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          if (stdout.includes('\n') && stderr.includes('Ctrl-C to stop')) resolve(new URL(stdout.trim()).origin);
        });
        child.stderr!.on('data', () => {
          if (stdout.includes('\n') && stderr.includes('Ctrl-C to stop')) resolve(new URL(stdout.trim()).origin);
        });
        void done.then((result) => reject(new Error(`serve ${name} exited: ${result.stderr}`)));
      });
      return { child, done, ready, stderr: () => stderr };
    };
    const [a, b] = [start('a'), start('b')];
    const [originA, originB] = await Promise.all([a.ready, b.ready]);
    for (const server of [a, b]) {
      assert.match(server.stderr(), /sessions in postgres:\/\/\/test_\d+\)/);
      assert.ok(!server.stderr().includes(url));
    }
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const run = await fetch(`${originA}/api/runs`, { method: 'POST', headers, body: JSON.stringify({ prompt: 'shared prompt' }) });
    const events = eventsOf(await readFrames(run));
    assert.equal(events.at(-1)!.event.answer, 'Answer from server A.');

    const listed = (await (await fetch(`${originB}/api/sessions`, { headers })).json()) as {
      sessions: { sessionId: string; title: string }[];
    };
    assert.deepEqual(
      listed.sessions.map((summary) => summary.title),
      ['shared prompt'],
    );
    const exported = await (await fetch(`${originB}/api/sessions/${listed.sessions[0]!.sessionId}/export`, { headers })).text();
    assert.match(exported, /"content":"Answer from server A\."/);

    a.child.kill('SIGTERM');
    b.child.kill('SIGTERM');
    assert.deepEqual(
      (await Promise.all([a.done, b.done])).map((result) => result.code),
      [0, 0],
    );
  });
});

// Neither case needs PostgreSQL: one names a socket nobody listens on, the other a loopback port
// that accepts and never answers (a host that drops packets, without waiting for the OS to give up).
describe('a database that cannot be reached at start', { concurrency: true }, () => {
  test('is exit 2 with the reason for exec, serve, worker and db migrate, never the password', async () => {
    const base = await makeTempDir();
    const url = `postgres://alice:hunter2-secret@/glassbox?host=${encodeURIComponent(join(base, 'no-server-here'))}`;
    const env = cliEnv({ OPENAI_API_KEY: 'sk-test', GLASSBOX_HOME: join(base, 'home') });
    const results = await Promise.all([
      runCli(['exec', '--database-url', url, '-C', base, 'hi'], env),
      runCli(['serve', '--database-url', url, '-C', base, '--port', '0'], env),
      runCli(['worker', '--database-url', url, '-C', base], env),
      runCli(['db', 'migrate', '--database-url', url], env),
    ]);
    for (const result of results) {
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, /cannot open the session database postgres:\/\/\/glassbox: .*(ENOENT|connect)/);
      assert.doesNotMatch(result.stderr + result.stdout, /hunter2|alice/);
    }
  });

  test('a server that never answers is given up on after the connect timeout (connect_timeout in the URL)', async (t) => {
    const sockets = new Set<Socket>();
    // Accepts the connection and never says a word: the driver waits for the server's first reply.
    const silent = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    t.after(() => {
      for (const socket of sockets) socket.destroy();
      silent.close();
    });
    const { port } = silent.address() as AddressInfo;
    const base = await makeTempDir();
    const url = `postgres://alice:hunter2-secret@127.0.0.1:${port}/glassbox?connect_timeout=0.2`;
    const env = cliEnv({ OPENAI_API_KEY: 'sk-test', GLASSBOX_HOME: join(base, 'home') });
    const results = await Promise.all([
      runCli(['db', 'migrate', '--database-url', url], env),
      runCli(['worker', '--database-url', url, '-C', base], env),
    ]);
    for (const result of results) {
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, /cannot open the session database postgres:\/\/127\.0\.0\.1:\d+\/glassbox: .*timeout/i);
      assert.doesNotMatch(result.stderr + result.stdout, /hunter2|alice/);
    }
    const invalid = await runCli(['db', 'migrate', '--database-url', `postgres://127.0.0.1:${port}/glassbox?connect_timeout=soon`], env);
    assert.equal(invalid.code, 2, invalid.stderr);
    assert.match(invalid.stderr, /connect_timeout in the database URL must be a number of seconds/);
  });

  test('the connect timeout is 10 s unless the URL says otherwise', () => {
    assert.equal(pgConnectTimeoutMs('postgres://db.example/glassbox'), PG_CONNECT_TIMEOUT_MS);
    assert.equal(PG_CONNECT_TIMEOUT_MS, 10_000);
    assert.equal(pgConnectTimeoutMs('postgres://db.example/glassbox?sslmode=require&connect_timeout=3'), 3000);
    assert.equal(pgConnectTimeoutMs('postgres://db.example/glassbox?connect_timeout=0'), 0);
  });
});
