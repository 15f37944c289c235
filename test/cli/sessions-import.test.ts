// `glassbox sessions export --format raw` and `sessions import` through the built CLI: a session
// moves between the file store and PostgreSQL (a throwaway cluster of this file's own) and comes
// back byte for byte; an id the store holds and a damaged file are refused, exit 2, nothing stored.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chmod, lstat, mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { startFakeProvider } from '../../src/testing/index.js';
import { startPgCluster } from '../helpers/pg-cluster.js';
import { PLANTED_FILE_KEY, recordedSession } from '../helpers/recorded-session.js';
import { cliEnv, runCli } from '../helpers/run-cli.js';

async function sessionFiles(home: string): Promise<string[]> {
  const directory = join(home, 'sessions');
  return existsSync(directory) ? (await readdir(directory)).filter((name) => name.endsWith('.jsonl') && name !== 'index.jsonl') : [];
}

/** The only session file under `home`, as bytes. */
async function onlySession(home: string): Promise<{ id: string; path: string; bytes: Buffer }> {
  const [name, ...others] = await sessionFiles(home);
  assert.ok(name !== undefined && others.length === 0, `one session in ${home}`);
  const path = join(home, 'sessions', name);
  return { id: name.slice(0, -'.jsonl'.length), path, bytes: await readFile(path) };
}

test('sessions export --format raw and sessions import', async (t) => {
  const { base, env, close } = await recordedSession();
  t.after(close);
  const home = env.GLASSBOX_HOME!;
  const original = await onlySession(home);
  const homeEnv = (name: string) => ({ ...env, GLASSBOX_HOME: join(base, name) });

  await t.test('a raw export of a file session is its file, unredacted, owner-only, with a warning', async () => {
    const out = join(base, 'raw-from-files.jsonl');
    const result = await runCli(['sessions', 'export', 'last', '--format', 'raw', '-o', out], env);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(await readFile(out), original.bytes);
    assert.ok(original.bytes.includes(PLANTED_FILE_KEY), 'raw keeps what the session holds');
    assert.equal((await stat(out)).mode & 0o777, 0o600);
    assert.match(result.stderr, /raw export: the session exactly as stored, nothing redacted/);
    const piped = await runCli(['sessions', 'export', original.id, '--format', 'raw'], env);
    assert.equal(piped.code, 0, piped.stderr);
    assert.equal(piped.stdout, original.bytes.toString('utf8'));
  });

  await t.test(
    '-o onto a file that is readable by others, or onto a link, leaves an owner-only file and the link target alone',
    async () => {
      const existing = join(base, 'raw-existing.jsonl');
      await writeFile(existing, 'old\n', { mode: 0o644 });
      await chmod(existing, 0o644);
      const target = join(base, 'link-target.txt');
      await writeFile(target, 'untouched\n', { mode: 0o666 });
      const link = join(base, 'raw-link.jsonl');
      await symlink(target, link);
      for (const out of [existing, link]) {
        const result = await runCli(['sessions', 'export', 'last', '--format', 'raw', '-o', out], env);
        assert.equal(result.code, 0, result.stderr);
        const written = await lstat(out);
        assert.ok(written.isFile(), `${out} is a file of its own`);
        assert.equal(written.mode & 0o777, 0o600, `${out} is owner-only`);
        assert.deepEqual(await readFile(out), original.bytes);
      }
      assert.equal(await readFile(target, 'utf8'), 'untouched\n');
      assert.deepEqual(
        (await readdir(base)).filter((name) => name.endsWith('.tmp')),
        [],
        'no temporary file left',
      );
    },
  );

  await t.test('importing into a home of its own stores the same file and lists it', async () => {
    const imported = await runCli(['sessions', 'import', original.path], homeEnv('home-copy'));
    assert.equal(imported.code, 0, imported.stderr);
    assert.equal(imported.stdout, `${original.id}\n`);
    assert.deepEqual((await onlySession(join(base, 'home-copy'))).bytes, original.bytes);
    const listed = await runCli(['sessions', '--json'], homeEnv('home-copy'));
    assert.equal(listed.code, 0, listed.stderr);
    const [summary] = JSON.parse(listed.stdout) as { sessionId: string; turns: number; title: string }[];
    assert.deepEqual([summary?.sessionId, summary?.turns, summary?.title], [original.id, 1, 'summarize notes.txt']);
  });

  await t.test('an id the file store holds is refused, exit 2, the file untouched', async () => {
    const again = await runCli(['sessions', 'import', original.path], env);
    assert.equal(again.code, 2, again.stderr);
    assert.match(again.stderr, new RegExp(`session ${original.id} already exists in .*; nothing imported`));
    assert.deepEqual((await onlySession(home)).bytes, original.bytes);
  });

  await t.test('a damaged file is refused with its line number and nothing is stored', async () => {
    const lines = original.bytes.toString('utf8').split('\n');
    const cases: { name: string; text: string; message: RegExp }[] = [
      {
        name: 'bad-json',
        text: [...lines.slice(0, 2), '{"type":"turn_started",', ...lines.slice(3)].join('\n'),
        message: /:3: invalid JSON/,
      },
      { name: 'bad-record', text: [...lines.slice(0, 3), '{"type":"warning","ts":"x"}', ...lines.slice(4)].join('\n'), message: /:4: / },
      {
        name: 'unknown-type',
        text: [lines[0], '{"type":"from_the_future","ts":"2026-01-01T00:00:00.000Z"}', ...lines.slice(1)].join('\n'),
        message: /:2: unknown record type "from_the_future"/,
      },
      { name: 'blank', text: [lines[0], '', ...lines.slice(1)].join('\n'), message: /:2: blank line/ },
      {
        name: 'torn',
        text: original.bytes.toString('utf8').slice(0, -5),
        message: new RegExp(`:${lines.length - 1}: the last line has no newline`),
      },
      { name: 'not-meta', text: lines.slice(1).join('\n'), message: /:1: not a valid session_meta record/ },
    ];
    await Promise.all(
      cases.map(async ({ name, text, message }) => {
        const file = join(base, `${name}.jsonl`);
        await writeFile(file, text);
        const result = await runCli(['sessions', 'import', file], homeEnv(`home-${name}`));
        assert.equal(result.code, 2, `${name}: ${result.stderr}`);
        assert.match(result.stderr, message, name);
        assert.match(result.stderr, /nothing imported/, name);
        assert.equal(result.stdout, '', name);
        assert.deepEqual(await sessionFiles(join(base, `home-${name}`)), [], name);
      }),
    );
  });

  const cluster = await startPgCluster(t);
  if (cluster === null) return;

  await t.test('file → PostgreSQL → raw export is the file byte for byte; a second import is refused', async () => {
    const url = await cluster.newDatabase();
    const imported = await runCli(['sessions', 'import', original.path, '--database-url', url], env);
    assert.equal(imported.code, 0, imported.stderr);
    assert.equal(imported.stdout, `${original.id}\n`);
    const out = join(base, 'raw-from-pg.jsonl');
    const exported = await runCli(['sessions', 'export', original.id, '--format', 'raw', '-o', out, '--database-url', url], env);
    assert.equal(exported.code, 0, exported.stderr);
    assert.deepEqual(await readFile(out), original.bytes);
    const shown = await runCli(['sessions', 'show', 'last', '--database-url', url], env);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /summarize notes\.txt/);

    const again = await runCli(['sessions', 'import', original.path, '--database-url', url], env);
    assert.equal(again.code, 2, again.stderr);
    assert.match(again.stderr, new RegExp(`session ${original.id} already exists in postgres://.*; nothing imported`));
    const after = await runCli(['sessions', 'export', original.id, '--format', 'raw', '-o', out, '--database-url', url], env);
    assert.equal(after.code, 0, after.stderr);
    assert.deepEqual(await readFile(out), original.bytes);
  });

  await t.test('a damaged file stores nothing in PostgreSQL', async () => {
    const url = await cluster.newDatabase();
    const lines = original.bytes.toString('utf8').split('\n');
    const file = join(base, 'bad-for-pg.jsonl');
    await writeFile(file, [...lines.slice(0, 4), '{"type":"audit"}', ...lines.slice(5)].join('\n'));
    const result = await runCli(['sessions', 'import', file, '--database-url', url], env);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /bad-for-pg\.jsonl:5: .*nothing imported/);
    const listed = await runCli(['sessions', '--json', '--database-url', url], env);
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(JSON.parse(listed.stdout), []);
  });

  await t.test('a session PostgreSQL wrote → raw export → import into files → the same bytes', async (sub) => {
    const url = await cluster.newDatabase();
    const root = join(base, 'pg-project');
    await mkdir(root, { recursive: true });
    const provider = await startFakeProvider({ script: [{ text: 'Answer kept in the database: ünïcødé ✓.' }] });
    sub.after(() => provider.close());
    const pgEnv = cliEnv({ OPENAI_API_KEY: 'sk-test', GLASSBOX_HOME: join(base, 'home-pg'), GLASSBOX_DATABASE_URL: url });
    const ran = await runCli(['exec', '--base-url', provider.baseURL, '-C', root, 'say something'], pgEnv);
    assert.equal(ran.code, 0, ran.stderr);
    assert.deepEqual(await sessionFiles(join(base, 'home-pg')), [], 'the session is in the database');
    const out = join(base, 'raw-pg-native.jsonl');
    const exported = await runCli(['sessions', 'export', 'last', '--format', 'raw', '-o', out], pgEnv);
    assert.equal(exported.code, 0, exported.stderr);
    const raw = await readFile(out);

    const filesEnv = homeEnv('home-from-pg');
    const imported = await runCli(['sessions', 'import', out], filesEnv);
    assert.equal(imported.code, 0, imported.stderr);
    const stored = await onlySession(join(base, 'home-from-pg'));
    assert.equal(imported.stdout, `${stored.id}\n`);
    assert.deepEqual(stored.bytes, raw);
    const back = join(base, 'raw-back.jsonl');
    const reexported = await runCli(['sessions', 'export', stored.id, '--format', 'raw', '-o', back], filesEnv);
    assert.equal(reexported.code, 0, reexported.stderr);
    assert.deepEqual(await readFile(back), raw);
    // Through stdin as well, into another database.
    const otherUrl = await cluster.newDatabase();
    const piped = await runCli(['sessions', 'import', '-', '--database-url', otherUrl], filesEnv, undefined, raw);
    assert.equal(piped.code, 0, piped.stderr);
    assert.equal(piped.stdout, `${stored.id}\n`);
  });
});
