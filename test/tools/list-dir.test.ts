import assert from 'node:assert/strict';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createListDirTool, formatSize } from '../../src/tools/list-dir/index.js';
import { withTempDir } from '../helpers/temp-dir.js';
import { callTool, expectToolError, makeContext } from './tool-test-context.js';

const tool = createListDirTool();

describe('list_dir', () => {
  it('lists directories first with entry counts, then files with sizes; hides .git only', async () => {
    await withTempDir(async (root) => {
      await mkdir(join(root, 'src', 'deep'), { recursive: true });
      await writeFile(join(root, 'src', 'a.ts'), 'x');
      await mkdir(join(root, 'node_modules', 'zod'), { recursive: true });
      await mkdir(join(root, 'node_modules', 'hono'));
      await mkdir(join(root, '.git'));
      await writeFile(join(root, '.git', 'HEAD'), 'ref');
      await writeFile(join(root, '.gitignore'), 'dist/\n');
      await mkdir(join(root, 'dist'));
      await writeFile(join(root, 'README.md'), 'r'.repeat(2048));
      await writeFile(join(root, 'b.txt'), '');
      const output = await callTool(tool, {}, makeContext(root));
      assert.equal(
        output,
        [
          '. (project root): 3 directories, 3 files',
          'dist/ (0 entries)',
          'node_modules/ (2 entries)',
          'src/ (2 entries)',
          '.gitignore (6 B)',
          'README.md (2.0 KB)',
          'b.txt (0 B)',
        ].join('\n'),
      );
    });
  });

  it('marks symlinks with their target and whether they stay inside the root', async () => {
    await withTempDir(async (outside) => {
      await withTempDir(async (root) => {
        await mkdir(join(root, 'src'));
        await writeFile(join(root, 'src', 'real.txt'), 'x');
        await symlink('src/real.txt', join(root, 'alias.txt'));
        await symlink('src', join(root, 'code'));
        await symlink(outside, join(root, 'escape'));
        await symlink('nowhere', join(root, 'dangling'));
        const output = await callTool(tool, {}, makeContext(root));
        assert.equal(
          output,
          [
            '. (project root): 1 directory, 0 files, 4 symlinks',
            'src/ (1 entry)',
            'alias.txt@ -> src/real.txt (file)',
            'code@ -> src (directory)',
            'dangling@ -> nowhere (broken)',
            `escape@ -> ${outside} (outside the project root)`,
          ].join('\n'),
        );
      });
    });
  });

  it('lists a subdirectory, and an empty one', async () => {
    await withTempDir(async (root) => {
      await mkdir(join(root, 'src', 'empty'), { recursive: true });
      await writeFile(join(root, 'src', 'x.ts'), 'abc');
      assert.equal(await callTool(tool, { path: 'src' }, makeContext(root)), 'src/: 1 directory, 1 file\nempty/ (0 entries)\nx.ts (3 B)');
      assert.equal(await callTool(tool, { path: 'src/empty' }, makeContext(root)), 'src/empty/: (empty directory)');
    });
  });

  it('caps the listing with a count of what was left out', async () => {
    await withTempDir(async (root) => {
      for (let index = 0; index < 510; index += 1) await writeFile(join(root, `f${String(index).padStart(3, '0')}.txt`), '');
      const output = await callTool(tool, {}, makeContext(root));
      const lines = output.split('\n');
      assert.equal(lines.length, 1 + 500 + 1);
      assert.equal(lines[500], 'f499.txt (0 B)');
      assert.match(lines[501]!, /^\.\.\. 10 more entries not shown\./);
      const small = createListDirTool({ maxEntries: 2 });
      assert.match(await callTool(small, {}, makeContext(root)), /\n\.\.\. 508 more entries not shown/);
    });
  });

  it('refuses files, missing paths and paths leaving the root without listing outside entries', async () => {
    await withTempDir(async (outside) => {
      await withTempDir(async (root) => {
        await writeFile(join(outside, 'secret.txt'), 'x');
        await symlink(outside, join(root, 'escape'));
        await writeFile(join(root, 'file.txt'), 'x');
        const context = makeContext(root);
        assert.match(await expectToolError(tool, { path: 'file.txt' }, context, 'NOT_A_DIRECTORY'), /read_file/);
        await expectToolError(tool, { path: 'missing' }, context, 'PATH_NOT_FOUND');
        await expectToolError(tool, { path: '..' }, context, 'PATH_OUTSIDE_ROOT');
        await expectToolError(tool, { path: '/etc' }, context, 'PATH_OUTSIDE_ROOT');
        const message = await expectToolError(tool, { path: 'escape' }, context, 'PATH_OUTSIDE_ROOT');
        assert.ok(!message.includes('secret.txt'));
      });
    });
  });

  it('declares the directory it reads and stops when aborted', async () => {
    assert.deepEqual(tool.access({}, { root: '/project' }), { kind: 'read', paths: ['/project'] });
    await withTempDir(async (root) => {
      const controller = new AbortController();
      controller.abort();
      await assert.rejects(tool.execute({}, makeContext(root, controller.signal)), (error: Error) => error.name === 'AbortError');
    });
  });

  it('formats sizes compactly', () => {
    assert.equal(formatSize(0), '0 B');
    assert.equal(formatSize(1023), '1023 B');
    assert.equal(formatSize(1536), '1.5 KB');
    assert.equal(formatSize(50 * 1024 * 1024), '50 MB');
    assert.ok(tool.description.length < 800);
  });
});
