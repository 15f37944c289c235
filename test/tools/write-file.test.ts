import { toolSessionState } from '../../src/tools/index.js';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, mkdir, readFile, stat, symlink, truncate, writeFile } from 'node:fs/promises';
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { createWriteFileTool } from '../../src/tools/write-file/index.js';
import { withTempDir } from '../helpers/temp-dir.js';
import { listTree, makeWriteContext, rejectsWithCode } from './tool-test-context.js';

const tool = createWriteFileTool();

describe('write_file', () => {
  it('declares its contract', () => {
    assert.equal(tool.name, 'write_file');
    assert.equal(tool.readOnly, false);
    assert.equal(tool.strict, false);
    assert.ok(tool.description.length > 0 && tool.description.length < 800);
    assert.deepEqual(tool.access({ path: 'a/../b.txt', content: '' }, { root: '/project' }), {
      kind: 'write',
      paths: ['/project/b.txt'],
    });
    assert.equal(tool.schema.safeParse({ path: 'x' }).success, false);
    assert.equal(tool.schema.safeParse({ path: '', content: 'x' }).success, false);
  });

  it('creates a file and its parent directories, records a stamp, and shows a diff', async () => {
    await withTempDir(async (root) => {
      const context = makeWriteContext(root);
      const result = await tool.execute({ path: 'a/b/new.txt', content: 'one\ntwo\n' }, context);
      assert.equal(await readFile(join(root, 'a/b/new.txt'), 'utf8'), 'one\ntwo\n');
      assert.match(result.output, /^Created a\/b\/new\.txt \(2 lines\)/);
      assert.match(result.output, /--- \/dev\/null\n\+\+\+ b\/a\/b\/new\.txt\n@@ -0,0 \+1,2 @@\n\+one\n\+two/);
      const stats = await stat(join(root, 'a/b/new.txt'));
      assert.deepEqual(toolSessionState(context).fileStamps.get(join(root, 'a/b/new.txt')), { mtimeMs: stats.mtimeMs, size: stats.size });
      assert.deepEqual(await listTree(root), ['a', 'a/b', 'a/b/new.txt']);
    });
  });

  it('gives a new file the default mode (0o644 less the umask)', async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, 'reference.txt'), '', { mode: 0o644 });
      await tool.execute({ path: 'new.txt', content: 'x' }, makeWriteContext(root));
      const expected = (await stat(join(root, 'reference.txt'))).mode & 0o7777;
      assert.equal((await stat(join(root, 'new.txt'))).mode & 0o7777, expected);
    });
  });

  it('overwrites a file, keeps its mode, and diffs old against new', async () => {
    await withTempDir(async (root) => {
      const path = join(root, 'script.sh');
      await writeFile(path, '#!/bin/sh\necho old\n');
      await chmod(path, 0o755);
      const result = await tool.execute({ path: 'script.sh', content: '#!/bin/sh\necho new\n' }, makeWriteContext(root));
      assert.equal(await readFile(path, 'utf8'), '#!/bin/sh\necho new\n');
      assert.equal((await stat(path)).mode & 0o7777, 0o755);
      assert.match(result.output, /^Overwrote script\.sh/);
      assert.match(result.output, /-echo old\n\+echo new/);
      assert.deepEqual(await listTree(root), ['script.sh']);
    });
  });

  it('writes through a symlink inside the root to its target, leaving the link', async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, 'real.txt'), 'old\n');
      await symlink('real.txt', join(root, 'link.txt'));
      await tool.execute({ path: 'link.txt', content: 'new\n' }, makeWriteContext(root));
      assert.equal(await readFile(join(root, 'real.txt'), 'utf8'), 'new\n');
      assert.equal(lstatSync(join(root, 'link.txt')).isSymbolicLink(), true);
    });
  });

  it('reports unchanged content without rewriting', async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, 'same.txt'), 'same\n');
      const before = await stat(join(root, 'same.txt'));
      const context = makeWriteContext(root);
      const result = await tool.execute({ path: 'same.txt', content: 'same\n' }, context);
      assert.match(result.output, /already has this content/);
      assert.equal((await stat(join(root, 'same.txt'))).ino, before.ino);
      assert.ok(toolSessionState(context).fileStamps.has(join(root, 'same.txt')));
    });
  });

  it("keeps a CRLF file's line endings when the model writes LF", async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, 'win.txt'), 'a\r\nb\r\n');
      const result = await tool.execute({ path: 'win.txt', content: 'a\nc\n' }, makeWriteContext(root));
      assert.equal(await readFile(join(root, 'win.txt'), 'utf8'), 'a\r\nc\r\n');
      assert.match(result.output, /CRLF/);
      assert.doesNotMatch(result.output, /\r/);
    });
  });

  it('overwrites a binary file but says so', async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, 'blob.bin'), Buffer.from([0, 1, 2, 3, 0]));
      const result = await tool.execute({ path: 'blob.bin', content: 'text now\n' }, makeWriteContext(root));
      assert.equal(await readFile(join(root, 'blob.bin'), 'utf8'), 'text now\n');
      assert.match(result.output, /previous content \(it was binary: it contains NUL bytes\) has been replaced/);
    });
  });

  it('overwrites a file too large to diff without reading it', async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, 'huge.log'), '');
      await truncate(join(root, 'huge.log'), 17 * 1024 * 1024);
      const result = await tool.execute({ path: 'huge.log', content: 'small\n' }, makeWriteContext(root));
      assert.equal(await readFile(join(root, 'huge.log'), 'utf8'), 'small\n');
      assert.match(result.output, /too large to diff/);
    });
  });

  it('caps the diff and says how much was cut', async () => {
    await withTempDir(async (root) => {
      const content = `${Array.from({ length: 2000 }, (_, index) => `line number ${index}`).join('\n')}\n`;
      const result = await tool.execute({ path: 'big.txt', content }, makeWriteContext(root));
      assert.equal(await readFile(join(root, 'big.txt'), 'utf8'), content);
      assert.ok(result.output.length < 8_300, `output is ${result.output.length} characters`);
      assert.match(result.output, /\[diff truncated: \d+ more lines \(\d+ characters\) not shown\]$/);
    });
  });

  it('refuses directories, the root itself, and a parent that is a file', async () => {
    await withTempDir(async (root) => {
      await mkdir(join(root, 'dir'));
      await writeFile(join(root, 'file.txt'), 'x');
      await rejectsWithCode(tool.execute({ path: 'dir', content: 'x' }, makeWriteContext(root)), 'IS_A_DIRECTORY');
      await rejectsWithCode(tool.execute({ path: '.', content: 'x' }, makeWriteContext(root)), 'IS_A_DIRECTORY');
      await rejectsWithCode(
        tool.execute({ path: 'file.txt/child.txt', content: 'x' }, makeWriteContext(root)),
        'NOT_A_DIRECTORY',
        /file\.txt/,
      );
      assert.deepEqual(await listTree(root), ['dir', 'file.txt']);
      assert.equal(await readFile(join(root, 'file.txt'), 'utf8'), 'x');
    });
  });

  it('refuses paths that escape the root and writes nothing anywhere', async () => {
    await withTempDir(async (root) => {
      await withTempDir(async (outside) => {
        const project = join(root, 'project');
        await mkdir(project);
        await symlink(outside, join(project, 'escape'));
        const context = makeWriteContext(project);
        await rejectsWithCode(tool.execute({ path: '../x.txt', content: 'x' }, context), 'PATH_OUTSIDE_ROOT');
        await rejectsWithCode(tool.execute({ path: join(outside, 'abs.txt'), content: 'x' }, context), 'PATH_OUTSIDE_ROOT');
        await rejectsWithCode(tool.execute({ path: 'escape/x.txt', content: 'x' }, context), 'PATH_OUTSIDE_ROOT');
        await rejectsWithCode(tool.execute({ path: 'escape/sub/x.txt', content: 'x' }, context), 'PATH_OUTSIDE_ROOT');
        assert.deepEqual(await listTree(outside), []);
        assert.deepEqual(await listTree(root), ['project', 'project/escape']);
        assert.equal(toolSessionState(context).fileStamps.size, 0);
      });
    });
  });

  it('replaces a dangling symlink that points outside instead of following it', async () => {
    await withTempDir(async (root) => {
      await withTempDir(async (outside) => {
        const project = join(root, 'project');
        await mkdir(project);
        await writeFile(join(project, 'reference.txt'), '', { mode: 0o644 });
        await symlink(join(outside, 'planted.txt'), join(project, 'link.txt'));
        await tool.execute({ path: 'link.txt', content: 'inside\n' }, makeWriteContext(project));
        const stats = lstatSync(join(project, 'link.txt'));
        assert.equal(stats.isFile(), true);
        assert.equal(stats.mode & 0o7777, (await stat(join(project, 'reference.txt'))).mode & 0o7777);
        assert.equal(await readFile(join(project, 'link.txt'), 'utf8'), 'inside\n');
        assert.deepEqual(await listTree(outside), []);
      });
    });
  });

  it('honours an aborted signal before writing', async () => {
    await withTempDir(async (root) => {
      const controller = new AbortController();
      controller.abort();
      await rejectsWithCode(tool.execute({ path: 'x.txt', content: 'x' }, makeWriteContext(root, controller.signal)), 'ABORTED');
      assert.deepEqual(await listTree(root), []);
    });
  });
});
