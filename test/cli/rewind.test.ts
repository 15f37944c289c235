// `glassbox rewind` through the built CLI, after two real `exec` turns against the scripted
// provider: turn 1 writes a file, turn 2 edits it, writes others, applies a patch and runs a shell
// command in the sandbox that rewrites a binary file, changes a mode, deletes a file and creates
// one. The rewind to before turn 2 shows the diff first, puts back the exact bytes and modes,
// refuses on an outside change and on a symlink swapped in since, and the fork resumes at turn 2.

import assert from 'node:assert/strict';
import { chmod, lstat, mkdir, readFile, rename, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import { startFakeProvider, type ScriptedTurn } from '../../src/testing/index.js';
import { JsonlSessionStore } from '../../src/sessions/index.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { cliEnv, runCli } from '../helpers/run-cli.js';
import { sentEntries } from '../helpers/sent-requests.js';

const BINARY = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0x0a]);
const INITIAL: Record<string, string | Buffer> = {
  'a.txt': 'zero\n',
  'bin.dat': BINARY,
  'script.sh': '#!/bin/sh\necho hi\n',
  'gone.txt': 'delete me\n',
  'notes.md': 'alpha\n',
  'sub/keep.txt': 'original\n',
};

const PATCH = ['*** Begin Patch', '*** Update File: notes.md', '@@', '-alpha', '+beta', '*** End Patch'].join('\n');
const SHELL = "printf '\\001\\002\\003' > bin.dat && chmod 755 script.sh && rm gone.txt && mkdir -p gen && echo generated > gen/out.txt";

function script(): ScriptedTurn[] {
  return [
    // Turn 1.
    { toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'turn one\n' } }] },
    { text: 'Wrote a.txt.' },
    // Turn 2.
    { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
    {
      toolCalls: [
        { name: 'edit_file', arguments: { path: 'a.txt', old_string: 'turn one', new_string: 'turn two' } },
        { name: 'write_file', arguments: { path: 'new.txt', content: 'brand new\n' } },
        { name: 'write_file', arguments: { path: 'sub/keep.txt', content: 'changed\n' } },
        { name: 'apply_patch', arguments: { patch: PATCH } },
      ],
    },
    { toolCalls: [{ name: 'shell', arguments: { command: SHELL } }] },
    { text: 'Changed everything.' },
    // The forked session's turn 2.
    { text: 'Fresh start.' },
  ];
}

interface Project {
  base: string;
  root: string;
  env: NodeJS.ProcessEnv;
  sessionId: string;
  provider: Awaited<ReturnType<typeof startFakeProvider>>;
}

/** A project, and a session of two exec turns in it. */
async function twoTurns(t: TestContext): Promise<Project> {
  const base = await makeTempDir();
  const root = join(base, 'project');
  for (const [path, content] of Object.entries(INITIAL)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), content);
  }
  await chmod(join(root, 'script.sh'), 0o644);
  const provider = await startFakeProvider({ script: script() });
  t.after(() => provider.close());
  const env = cliEnv({ OPENAI_API_KEY: 'sk-test', GLASSBOX_HOME: join(base, 'home') });
  const flags = ['--base-url', provider.baseURL, '-C', root, '--sandbox', 'workspace-write', '--approval-policy', 'never'];
  const first = await runCli(['exec', ...flags, 'write a.txt'], env);
  assert.equal(first.code, 0, first.stderr);
  const second = await runCli(['exec', ...flags, '--resume', 'last', 'change everything'], env);
  assert.equal(second.code, 0, second.stderr);
  assert.equal(await readFile(join(root, 'a.txt'), 'utf8'), 'turn two\n');
  assert.deepEqual(await readFile(join(root, 'bin.dat')), Buffer.from([1, 2, 3]), second.stderr);
  const store = new JsonlSessionStore(join(base, 'home', 'sessions'));
  const sessionId = await store.resolveId('last');
  return { base, root, env, sessionId, provider };
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

describe('glassbox rewind', { concurrency: true }, () => {
  test('shows the diff, refuses without a terminal, then restores exact bytes and modes and branches at the turn', async (t) => {
    const { base, root, env, sessionId, provider } = await twoTurns(t);
    const store = new JsonlSessionStore(join(base, 'home', 'sessions'));
    const checkpoints = (await store.read(sessionId)).records.filter((record) => record.type === 'file_checkpoint');
    assert.deepEqual(
      checkpoints.map((record) => `${record.turn} ${record.tool} ${record.path}`),
      [
        '1 write_file a.txt',
        '2 edit_file a.txt',
        '2 write_file new.txt',
        '2 write_file sub/keep.txt',
        '2 apply_patch notes.md',
        '2 shell bin.dat',
        '2 shell gen/out.txt',
        '2 shell gone.txt',
        '2 shell script.sh',
      ],
    );

    // No terminal, no --yes: the diff is shown, nothing changes.
    const asked = await runCli(['rewind', sessionId, '--to-turn', '2'], env);
    assert.equal(asked.code, 2, asked.stderr);
    assert.match(asked.stderr, /stdin is not a terminal to confirm on; pass --yes/);
    assert.match(asked.stdout, /^restore a\.txt/m);
    assert.match(asked.stdout, /^-turn two$/m);
    assert.match(asked.stdout, /^\+turn one$/m);
    assert.match(asked.stdout, /^delete new\.txt/m);
    assert.match(asked.stdout, /^recreate gone\.txt/m);
    assert.match(asked.stdout, /^mode 0755 → 0644$/m);
    assert.match(asked.stdout, /binary content: 3 bytes → 7 bytes/);
    assert.equal(await readFile(join(root, 'a.txt'), 'utf8'), 'turn two\n');

    const done = await runCli(['rewind', sessionId, '--to-turn', '2', '--yes'], env);
    assert.equal(done.code, 0, done.stderr);
    assert.match(done.stdout, /^-beta$/m);
    const forkId = done.stdout.trim().split('\n').at(-1)!;
    assert.match(forkId, /^[0-9a-f-]{36}$/);

    assert.equal(await readFile(join(root, 'a.txt'), 'utf8'), 'turn one\n');
    for (const path of ['bin.dat', 'script.sh', 'gone.txt', 'notes.md', 'sub/keep.txt']) {
      assert.deepEqual(await readFile(join(root, path)), Buffer.from(INITIAL[path]!), path);
    }
    assert.equal((await stat(join(root, 'script.sh'))).mode & 0o777, 0o644);
    assert.equal(await exists(join(root, 'new.txt')), false);
    assert.equal(await exists(join(root, 'gen', 'out.txt')), false);
    assert.equal(await exists(join(root, '.git')), false);

    // The rewind is recorded in the session; the fork holds turn 1 only.
    const records = (await store.read(sessionId)).records;
    const rewind = records.find((record) => record.type === 'rewind');
    assert.ok(rewind?.type === 'rewind');
    assert.equal(rewind.toTurn, 2);
    assert.equal(rewind.forkId, forkId);
    assert.deepEqual(rewind.files?.map((file) => file.path).sort(), [
      'a.txt',
      'bin.dat',
      'gen/out.txt',
      'gone.txt',
      'new.txt',
      'notes.md',
      'script.sh',
      'sub/keep.txt',
    ]);
    const fork = await store.read(forkId);
    assert.deepEqual(fork.meta.parent, { sessionId, atTurn: 1 });
    assert.deepEqual(
      fork.records.flatMap((record) => (record.type === 'turn_started' ? [record.turn] : [])),
      [1],
    );

    // The fork resumes from turn 2: it sends turn 1's conversation and none of turn 2's.
    const resumed = await runCli(['exec', '--base-url', provider.baseURL, '-C', root, '--resume', forkId, 'again'], env);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(resumed.stdout, 'Fresh start.\n');
    const request = provider.requests.at(-1)!;
    const sent = JSON.stringify(sentEntries(request.body, request.wireApi));
    assert.match(sent, /write a\.txt/);
    assert.match(sent, /Wrote a\.txt\./);
    assert.doesNotMatch(sent, /change everything/);
    const forkTurns = (await store.read(forkId)).records.flatMap((record) => (record.type === 'turn_started' ? [record.turn] : []));
    assert.deepEqual(forkTurns, [1, 2]);
  });

  test('refuses, listing the conflict, when a file was changed outside Glassbox since', async (t) => {
    const { root, env, sessionId } = await twoTurns(t);
    await writeFile(join(root, 'notes.md'), 'edited by hand\n');
    const refused = await runCli(['rewind', sessionId, '--to-turn', '2', '--yes'], env);
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, /conflict: notes\.md: changed outside Glassbox since/);
    assert.match(refused.stderr, /refused: nothing was changed \(1 conflict\)/);
    assert.equal(refused.stdout.includes('notes.md'), false);
    assert.equal(await readFile(join(root, 'a.txt'), 'utf8'), 'turn two\n');
    assert.equal(await readFile(join(root, 'notes.md'), 'utf8'), 'edited by hand\n');
    assert.equal(await exists(join(root, 'new.txt')), true);
  });

  test('a symlink swapped in after the checkpoint does not redirect the restore out of the project', async (t) => {
    const { base, root, env, sessionId } = await twoTurns(t);
    // sub/ now leads outside, to a copy that holds exactly what Glassbox last wrote.
    const outside = join(base, 'outside');
    await rename(join(root, 'sub'), outside);
    await symlink(outside, join(root, 'sub'));
    const refused = await runCli(['rewind', sessionId, '--to-turn', '2', '--yes'], env);
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, /conflict: sub\/keep\.txt: may not be restored: resolves to .*outside.*, outside the project root/);
    assert.equal(await readFile(join(outside, 'keep.txt'), 'utf8'), 'changed\n');
    assert.equal(await readFile(join(root, 'a.txt'), 'utf8'), 'turn two\n');
  });

  test('--files-only keeps the conversation; --conversation-only leaves the files', async (t) => {
    const { base, root, env, sessionId } = await twoTurns(t);
    const store = new JsonlSessionStore(join(base, 'home', 'sessions'));
    const conversation = await runCli(['rewind', sessionId, '--to-turn', '2', '--conversation-only', '--yes'], env);
    assert.equal(conversation.code, 0, conversation.stderr);
    assert.equal(conversation.stdout.includes('a.txt'), false);
    assert.equal(await readFile(join(root, 'a.txt'), 'utf8'), 'turn two\n');
    const files = await runCli(['rewind', sessionId, '--to-turn', '2', '--files-only', '--yes'], env);
    assert.equal(files.code, 0, files.stderr);
    assert.match(files.stdout, /^restore a\.txt/m);
    assert.equal(await readFile(join(root, 'a.txt'), 'utf8'), 'turn one\n');
    const rewinds = (await store.read(sessionId)).records.filter((record) => record.type === 'rewind');
    assert.equal(rewinds.length, 2);
    assert.equal(rewinds[0]!.type === 'rewind' && rewinds[0]!.files, null);
    assert.ok(rewinds[1]!.type === 'rewind' && rewinds[1]!.forkId === null && rewinds[1]!.files !== null);
    // A second files rewind finds nothing changed outside: what it restored is what Glassbox last saw.
    const again = await runCli(['rewind', sessionId, '--to-turn', '2', '--files-only', '--yes'], env);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /no file to restore/);
    const bad = await runCli(['rewind', sessionId, '--to-turn', '3', '--yes'], env);
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /it has 2 turns \(use 1 to 2\)/);
  });
});
