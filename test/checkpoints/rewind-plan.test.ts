// The checkpoint and rewind pieces on real files: where a restore may write (realpath, symlinks
// swapped in, .git, the home), that secret files are never copied into the blob store, that a
// damaged copy is refused, and that a file swapped for a symlink is a conflict, not a target.

import assert from 'node:assert/strict';
import { mkdir, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { BlobStore, FileCheckpointer, planRewind, restoreLocation } from '../../src/checkpoints/index.js';
import type { SessionRecord } from '../../src/protocol/index.js';
import { makeTempDir } from '../helpers/temp-dir.js';

async function project(): Promise<{ root: string; home: string }> {
  const base = await makeTempDir();
  const root = join(base, 'project');
  await mkdir(join(root, 'src'), { recursive: true });
  return { root, home: join(base, 'home') };
}

async function allFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

describe('checkpoints and rewind planning', { concurrency: true }, () => {
  test('a restore never goes through a symlink, outside the root, into .git or the home', async () => {
    const { root, home } = await project();
    await mkdir(join(root, 'elsewhere'));
    await symlink(join(root, 'elsewhere'), join(root, 'linked'));
    const options = { root, home };
    assert.deepEqual(await restoreLocation('src/a.ts', options), { absolute: join(root, 'src', 'a.ts') });
    assert.match(
      (await restoreLocation('linked/a.ts', options).then((r) => ('why' in r ? r.why : '')))!,
      /a symlink on its path now leads to .*elsewhere/,
    );
    for (const [path, why] of [
      ['.git/config', /inside a \.git directory/],
      ['sub/.GIT/hooks/pre-commit', /inside a \.git directory/],
      ['../outside.txt', /not a plain project-relative path/],
      ['/etc/passwd', /not a plain project-relative path/],
    ] as const) {
      const location = await restoreLocation(path, options);
      assert.ok('why' in location && why.test(location.why), `${path}: ${JSON.stringify(location)}`);
    }
    const inHome = await restoreLocation('home/x', { root, home: join(root, 'home') });
    assert.ok('why' in inHome && /Glassbox's home/.test(inHome.why));
  });

  test('secret files are stamped, never copied; other changes are copied content-addressed', async () => {
    const { root, home } = await project();
    await writeFile(join(root, '.env'), 'API_KEY=sk-planted-secret\n');
    await writeFile(join(root, 'src', 'a.ts'), 'one\n');
    const blobs = new BlobStore(home);
    const checkpointer = new FileCheckpointer(root, blobs);
    const mark = await checkpointer.before([]);
    await writeFile(join(root, '.env'), 'API_KEY=sk-another-secret\n');
    await writeFile(join(root, 'src', 'a.ts'), 'two\n');
    const changes = await checkpointer.after(mark);
    assert.deepEqual(
      changes.map((change) => [change.path, change.before.kind, change.after.kind]),
      [
        ['.env', 'uncopied', 'uncopied'],
        ['src/a.ts', 'file', 'file'],
      ],
    );
    for (const file of await allFiles(blobs.directory)) assert.doesNotMatch(await readFile(file, 'utf8'), /sk-/);
    const a = changes.find((change) => change.path === 'src/a.ts')!;
    assert.ok(a.before.kind === 'file');
    assert.equal((await blobs.get(a.before.sha256)).toString(), 'one\n');
  });

  test('a damaged copy is refused', async () => {
    const { home } = await project();
    const blobs = new BlobStore(home);
    const hash = await blobs.put(Buffer.from('the original\n'));
    await writeFile(join(blobs.directory, hash.slice(0, 2), hash), 'tampered\n');
    await assert.rejects(blobs.get(hash), /is damaged/);
    await rm(join(blobs.directory, hash.slice(0, 2), hash));
    await assert.rejects(blobs.get(hash), /is missing/);
  });

  test('a file swapped for a symlink since is a conflict, and the symlink is left alone', async () => {
    const { root, home } = await project();
    const blobs = new BlobStore(home);
    const before = await blobs.put(Buffer.from('before\n'));
    const after = await blobs.put(Buffer.from('after\n'));
    await writeFile(join(root, 'target.txt'), 'after\n');
    await symlink(join(root, 'target.txt'), join(root, 'note.txt'));
    const records = [
      {
        type: 'file_checkpoint',
        ts: '2026-01-01T00:00:00.000Z',
        turn: 1,
        callId: 'c1',
        tool: 'write_file',
        path: 'note.txt',
        before: { kind: 'file', sha256: before, size: 7, mode: 0o644 },
        after: { kind: 'file', sha256: after, size: 6, mode: 0o644 },
      },
    ] satisfies SessionRecord[];
    const plan = await planRewind(records, 1, { root, home });
    assert.deepEqual(plan.restores, []);
    assert.equal(plan.conflicts.length, 1);
    assert.match(plan.conflicts[0]!.why, /a symlink on its path now leads to .*target\.txt/);
    assert.equal(await readFile(join(root, 'target.txt'), 'utf8'), 'after\n');
  });
});
