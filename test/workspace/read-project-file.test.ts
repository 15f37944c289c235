// The guarded reader every file Glassbox reads from a project goes through, on real files: kernel
// files behind symlinks, a FIFO nobody writes to, a device, a file outside the root, one too large.

import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { constants, readFileSync } from 'node:fs';
import { mkdir, open, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { MAX_PROJECT_FILE_BYTES, RefusedFileError, readProjectFile } from '../../src/workspace/index.js';
import { withTempDir } from '../helpers/temp-dir.js';

/** `readProjectFile` rejected with a refusal naming `path` whose reason matches `reason`. */
async function assertRefused(read: Promise<string | null>, path: string, reason: RegExp): Promise<void> {
  await assert.rejects(read, (error: unknown) => {
    assert.ok(error instanceof RefusedFileError, String(error));
    assert.equal(error.path, path);
    assert.match(error.reason, reason);
    assert.ok(error.message.startsWith(`${path} `), error.message);
    return true;
  });
}

/** Whether any process holds the FIFO open for reading (a writer's non-blocking open succeeds). */
async function hasReader(fifo: string): Promise<boolean> {
  try {
    await (await open(fifo, constants.O_WRONLY | constants.O_NONBLOCK)).close();
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENXIO') return false;
    throw error;
  }
}

describe('readProjectFile', { concurrency: true }, () => {
  test('reads a regular file inside the root, also through a symlink that stays inside', async () => {
    await withTempDir(async (root) => {
      await mkdir(join(root, 'docs'));
      await writeFile(join(root, 'docs', 'agents.md'), 'Use tabs.\n');
      await symlink('docs/agents.md', join(root, 'AGENTS.md'));
      assert.equal(await readProjectFile(join(root, 'AGENTS.md'), { root }), 'Use tabs.\n');
      assert.equal(await readProjectFile(join(root, 'missing.md'), { root }), null);
      await symlink('nowhere.md', join(root, 'dangling.md'));
      assert.equal(await readProjectFile(join(root, 'dangling.md'), { root }), null);
    });
  });

  test('a symlink to /proc/self/environ, or to a child process environment holding a secret, is refused', async () => {
    const canary = `sk-canary-${process.pid}-environ`;
    const child = spawn(process.execPath, ['-e', 'process.stdin.resume()'], {
      env: { PATH: process.env.PATH, CANARY_API_KEY: canary },
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    try {
      await withTempDir(async (root) => {
        // The child's environment really holds the canary (readable to this user): the oracle.
        assert.match(readFileSync(`/proc/${child.pid}/environ`, 'utf8'), new RegExp(canary));
        await symlink(`/proc/${child.pid}/environ`, join(root, 'child.md'));
        await symlink('/proc/self/environ', join(root, 'self.md'));
        await assertRefused(
          readProjectFile(join(root, 'child.md'), { root }),
          join(root, 'child.md'),
          /leads outside the project \(to \/proc\//,
        );
        await assertRefused(
          readProjectFile(join(root, 'self.md'), { root }),
          join(root, 'self.md'),
          /leads outside the project \(to \/proc\//,
        );
      });
    } finally {
      child.kill('SIGKILL');
    }
  });

  test('a symlink to a file outside the root is refused; without a root (a file of the home) it is read', async () => {
    await withTempDir(async (dir) => {
      const root = join(dir, 'project');
      await mkdir(root);
      await writeFile(join(dir, 'outside.md'), 'outside text\n');
      await symlink('../outside.md', join(root, 'AGENTS.md'));
      await assertRefused(
        readProjectFile(join(root, 'AGENTS.md'), { root }),
        join(root, 'AGENTS.md'),
        new RegExp(`leads outside the project \\(to ${join(dir, 'outside.md')}\\)`),
      );
      assert.equal(await readProjectFile(join(root, 'AGENTS.md'), { root: null }), 'outside text\n');
      // A file Glassbox writes itself refuses any symlink.
      await assertRefused(
        readProjectFile(join(root, 'AGENTS.md'), { root: null, noFollow: true }),
        join(root, 'AGENTS.md'),
        /symbolic link/,
      );
    });
  });

  test('a FIFO nobody writes to is refused at once, and nothing is left waiting on it', async () => {
    await withTempDir(async (root) => {
      const fifo = join(root, 'AGENTS.md');
      execFileSync('mkfifo', [fifo]);
      // No writer exists at any point: a blocking open would never return.
      await assertRefused(readProjectFile(fifo, { root }), fifo, /is not a regular file \(a FIFO\)/);
      await assertRefused(readProjectFile(fifo, { root: null }), fifo, /is not a regular file \(a FIFO\)/);
      // After the refusal no reader holds it open (nothing blocked in the background).
      assert.equal(await hasReader(fifo), false);
    });
  });

  test('/dev/zero behind a symlink is refused as a device without reading it, also with no root to stay in', async () => {
    await withTempDir(async (root) => {
      await symlink('/dev/zero', join(root, 'zero.md'));
      await assertRefused(
        readProjectFile(join(root, 'zero.md'), { root }),
        join(root, 'zero.md'),
        /leads outside the project \(to \/dev\/zero\)/,
      );
      await assertRefused(
        readProjectFile(join(root, 'zero.md'), { root: null }),
        join(root, 'zero.md'),
        /is not a regular file \(a device\)/,
      );
    });
  });

  test('a directory is refused; a file over the cap is refused, one at the cap is read', async () => {
    await withTempDir(async (root) => {
      await mkdir(join(root, 'dir.md'));
      await assertRefused(readProjectFile(join(root, 'dir.md'), { root }), join(root, 'dir.md'), /is not a regular file \(a directory\)/);
      await writeFile(join(root, 'big.md'), 'x'.repeat(MAX_PROJECT_FILE_BYTES + 1));
      await assertRefused(readProjectFile(join(root, 'big.md'), { root }), join(root, 'big.md'), /is larger than 1048576 bytes/);
      await writeFile(join(root, 'small.md'), 'y'.repeat(100));
      await assertRefused(
        readProjectFile(join(root, 'small.md'), { root, maxBytes: 99 }),
        join(root, 'small.md'),
        /is larger than 99 bytes/,
      );
      assert.equal((await readProjectFile(join(root, 'small.md'), { root, maxBytes: 100 }))?.length, 100);
    });
  });

  test('a kernel file that says it is empty is still capped by what is read', async () => {
    // /proc files report size 0; the cap must count the bytes as they come.
    const path = '/proc/self/maps';
    const handle = await open(path, 'r');
    try {
      assert.equal((await handle.stat()).size, 0);
    } finally {
      await handle.close();
    }
    await assertRefused(readProjectFile(path, { root: null, maxBytes: 16 }), path, /is larger than 16 bytes/);
  });
});
