// The copies a checkpoint keeps of a whole project (the first call that may write copies every
// file, synchronously in slices): each changed file's "before" is the bytes it had, across more
// files than one slice holds; and a file swapped between the stamp and the copy (for a FIFO, a
// symlink, a larger file) is never followed, never blocks, never copied past its stamp.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { BlobStore, FileCheckpointer } from '../../src/checkpoints/index.js';
import { type FileStamp, readContentSync, stampOf } from '../../src/workspace/index.js';
import { makeTempDir } from '../helpers/temp-dir.js';

function stampAt(path: string): FileStamp {
  return stampOf(lstatSync(path));
}

test('the first checkpoint copies every file: a change to any of 150 is recorded with its bytes before', async () => {
  const base = await makeTempDir();
  const root = join(base, 'project');
  for (let d = 0; d < 5; d += 1) {
    mkdirSync(join(root, `dir-${d}`), { recursive: true });
    for (let f = 0; f < 30; f += 1) writeFileSync(join(root, `dir-${d}`, `f-${f}.txt`), `original ${d}/${f}\n`);
  }
  writeFileSync(join(root, '.env'), 'TOKEN=never-copied\n');
  const blobs = new BlobStore(join(base, 'home'));
  const checkpointer = new FileCheckpointer(root, blobs);
  const mark = await checkpointer.before([]);
  assert.equal(mark.stamps.size, 151);
  // What a shell command does: rewrites files the call never declared, one of them last in the walk.
  writeFileSync(join(root, 'dir-0', 'f-0.txt'), 'changed\n');
  writeFileSync(join(root, 'dir-4', 'f-29.txt'), 'changed too\n');
  writeFileSync(join(root, '.env'), 'TOKEN=changed\n');
  const changes = await checkpointer.after(mark);
  assert.deepEqual(
    changes.map((change) => change.path),
    ['.env', 'dir-0/f-0.txt', 'dir-4/f-29.txt'],
  );
  for (const change of changes) {
    if (change.path === '.env') {
      assert.deepEqual(change.before, { kind: 'uncopied', why: 'secret' });
      continue;
    }
    assert.equal(change.before.kind, 'file');
    const [d, f] = change.path === 'dir-0/f-0.txt' ? [0, 0] : [4, 29];
    const before = change.before.kind === 'file' ? await blobs.get(change.before.sha256) : null;
    assert.equal(before?.toString(), `original ${d}/${f}\n`);
  }
  rmSync(base, { recursive: true, force: true });
});

test('a file swapped after its stamp is not copied: not through a symlink, not from a FIFO, not past its size', async () => {
  const root = await makeTempDir();
  const secret = join(root, 'elsewhere.txt');
  writeFileSync(secret, 'not to be copied\n');
  const path = join(root, 'file.txt');
  writeFileSync(path, 'small\n');
  const stamp = stampAt(path);
  assert.equal(readContentSync(root, 'file.txt', stamp)?.toString(), 'small\n');
  writeFileSync(path, 'grown past what was stamped\n');
  assert.equal(readContentSync(root, 'file.txt', stamp), null);
  rmSync(path);
  symlinkSync(secret, path);
  assert.equal(readContentSync(root, 'file.txt', stamp), null, 'a symlink put in its place is not followed');
  rmSync(path);
  execFileSync('mkfifo', [path]);
  // Opening a FIFO with no writer would block without O_NONBLOCK: this returns at once.
  assert.equal(readContentSync(root, 'file.txt', stamp), null);
  assert.equal(readFileSync(secret, 'utf8'), 'not to be copied\n');
  rmSync(root, { recursive: true, force: true });
});
