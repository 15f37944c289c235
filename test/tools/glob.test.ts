import assert from 'node:assert/strict';
import { renameSync, symlinkSync, unlinkSync } from 'node:fs';
import { mkdir, symlink, utimes, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { createGlobTool } from '../../src/tools/index.js';
import { withTempDir } from '../helpers/temp-dir.js';
import { callTool, expectToolError, makeContext } from './tool-test-context.js';

const tool = createGlobTool();

/** Write files (creating parents), all with the same mtime unless one is given. */
async function writeTree(root: string, files: Record<string, string | { content: string; mtime: number }>): Promise<void> {
  for (const [path, spec] of Object.entries(files)) {
    const full = join(root, path);
    await mkdir(dirname(full), { recursive: true });
    const content = typeof spec === 'string' ? spec : spec.content;
    await writeFile(full, content);
    const mtime = typeof spec === 'string' ? 1_600_000_000 : spec.mtime;
    await utimes(full, mtime, mtime);
  }
}

function lines(output: string): string[] {
  return output.split('\n');
}

describe('glob', () => {
  it('returns root-relative paths, newest first, ties by path', async () => {
    await withTempDir(async (root) => {
      await writeTree(root, {
        'src/old.ts': { content: '', mtime: 1_500_000_000 },
        'src/new.ts': { content: '', mtime: 1_700_000_000 },
        'src/b.ts': '',
        'src/a.ts': '',
        'src/deep/c.ts': '',
        'src/readme.md': '',
      });
      const output = await callTool(tool, { pattern: '**/*.ts' }, makeContext(root));
      assert.deepEqual(lines(output), ['src/new.ts', 'src/a.ts', 'src/b.ts', 'src/deep/c.ts', 'src/old.ts']);
      assert.deepEqual(lines(await callTool(tool, { pattern: '*.md', path: 'src' }, makeContext(root))), ['src/readme.md']);
      assert.deepEqual(lines(await callTool(tool, { pattern: './deep/*', path: 'src' }, makeContext(root))), ['src/deep/c.ts']);
      assert.deepEqual(lines(await callTool(tool, { pattern: 'src/*.{md,ts}' }, makeContext(root))), [
        'src/new.ts',
        'src/a.ts',
        'src/b.ts',
        'src/readme.md',
        'src/old.ts',
      ]);
    });
  });

  it('honours root and nested .gitignore files, and always skips .git and node_modules', async () => {
    await withTempDir(async (root) => {
      await writeTree(root, {
        '.gitignore': 'dist/\n*.log\n!keep.log\n/top-only.ts\n',
        'dist/bundle.js': '',
        'app.log': '',
        'keep.log': '',
        'top-only.ts': '',
        'src/top-only.ts': '',
        'src/.gitignore': 'generated/\n*.gen.ts\n',
        'src/generated/x.ts': '',
        'src/model.gen.ts': '',
        'src/model.ts': '',
        'src/sub/.gitignore': '!*.gen.ts\n',
        'src/sub/kept.gen.ts': '',
        '.git/config': '',
        'node_modules/zod/index.ts': '',
        'packages/a/node_modules/x/index.ts': '',
        '.github/workflows/ci.yml': '',
      });
      const all = lines(await callTool(tool, { pattern: '**/*' }, makeContext(root)));
      assert.deepEqual(all, [
        '.github/workflows/ci.yml',
        '.gitignore',
        'keep.log',
        'src/.gitignore',
        'src/model.ts',
        'src/sub/.gitignore',
        'src/sub/kept.gen.ts',
        'src/top-only.ts',
      ]);
    });
  });

  it('searches a directory asked for by name even when it is ignored', async () => {
    await withTempDir(async (root) => {
      await writeTree(root, {
        '.gitignore': 'dist/\n',
        'dist/a.js': '',
        'dist/.gitignore': '*.map\n',
        'dist/a.js.map': '',
        'dist/node_modules/x.js': '',
      });
      assert.deepEqual(lines(await callTool(tool, { pattern: '**/*.js*', path: 'dist' }, makeContext(root))), ['dist/a.js']);
      assert.equal(
        await callTool(tool, { pattern: 'dist/**' }, makeContext(root)),
        'No files matched dist/** in the project root (files ignored by .gitignore, .git and node_modules are skipped).',
      );
    });
  });

  it('caps the result and counts the rest', async () => {
    await withTempDir(async (root) => {
      await Promise.all(Array.from({ length: 1005 }, (_, index) => writeFile(join(root, `f${index}.txt`), '')));
      const output = lines(await callTool(tool, { pattern: '*.txt' }, makeContext(root)));
      assert.equal(output.length, 1001);
      assert.equal(new Set(output.slice(0, 1000)).size, 1000);
      assert.equal(output[1000], '[Showing 1000 of 1005 matching files, newest first; 5 more not shown. Narrow the pattern or set path.]');
      const files: Record<string, { content: string; mtime: number }> = {};
      for (let index = 0; index < 5; index += 1) files[`g${index}.md`] = { content: '', mtime: 1_600_000_000 + index };
      await writeTree(root, files);
      const small = createGlobTool({ maxResults: 2 });
      assert.deepEqual(lines(await callTool(small, { pattern: '*.md' }, makeContext(root))), [
        'g4.md',
        'g3.md',
        '[Showing 2 of 5 matching files, newest first; 3 more not shown. Narrow the pattern or set path.]',
      ]);
    });
  });

  it('accepts an absolute pattern inside the root and refuses anything that leaves it', async () => {
    await withTempDir(async (outside) => {
      await withTempDir(async (root) => {
        await writeTree(outside, { 'secret.ts': '' });
        await writeTree(root, { 'src/a.ts': '' });
        const context = makeContext(root);
        assert.equal(await callTool(tool, { pattern: join(root, 'src', '*.ts') }, context), 'src/a.ts');
        await expectToolError(tool, { pattern: '../*' }, context, 'PATH_OUTSIDE_ROOT');
        await expectToolError(tool, { pattern: '**/../../*' }, context, 'PATH_OUTSIDE_ROOT');
        await expectToolError(tool, { pattern: 'src/../*.ts' }, context, 'INVALID_PATTERN');
        await expectToolError(tool, { pattern: '/etc/*' }, context, 'PATH_OUTSIDE_ROOT');
        await expectToolError(tool, { pattern: `${outside}/*.ts` }, context, 'PATH_OUTSIDE_ROOT');
        await expectToolError(tool, { pattern: '*', path: '..' }, context, 'PATH_OUTSIDE_ROOT');
        await expectToolError(tool, { pattern: '*', path: 'src/a.ts' }, context, 'NOT_A_DIRECTORY');
        // Brace expansion must not smuggle a `..` past the check: the crawl stays inside the root.
        const braced = await callTool(tool, { pattern: '{..,src}/*' }, context);
        assert.ok(braced === 'src/a.ts' || braced.startsWith('No files matched'), braced);
      });
    });
  });

  it('does not follow symlinks, so a link to an outside directory leaks nothing', async () => {
    await withTempDir(async (outside) => {
      await withTempDir(async (root) => {
        await writeTree(outside, { 'secret.ts': '', 'nested/deep.ts': '' });
        await writeTree(root, { 'src/a.ts': '' });
        await symlink(outside, join(root, 'escape'));
        await symlink(join(outside, 'secret.ts'), join(root, 'secret-link.ts'));
        await symlink('src', join(root, 'inside-link'));
        const context = makeContext(root);
        assert.equal(await callTool(tool, { pattern: '**/*' }, context), 'src/a.ts');
        assert.match(await callTool(tool, { pattern: 'escape/**' }, context), /^No files matched/);
        // A literal prefix through the link is crawled (tinyglobby reads `escape/` itself): what it
        // finds there is real-path checked and left out, file by file and in subdirectories.
        for (const pattern of ['escape/*', 'escape/*.ts', 'escape/secret.ts', 'escape/nested/*.ts']) {
          assert.match(await callTool(tool, { pattern }, context), /^No files matched/, pattern);
        }
        await expectToolError(tool, { pattern: '*', path: 'escape' }, context, 'PATH_OUTSIDE_ROOT');
        // A link that stays inside may be used as the starting directory.
        assert.equal(await callTool(tool, { pattern: '*.ts', path: 'inside-link' }, context), 'src/a.ts');
      });
    });
  });

  it('checks each match where it really is, even when a directory becomes a link to outside while the times are read', async () => {
    // The signal is checked before the listing, after it and before each slice of 2,000 stats: a
    // signal whose check runs `swap` lets the test change the tree at a known point of the call.
    const checkedWith = (swaps: Record<number, () => void>): AbortSignal => {
      const signal = new AbortController().signal;
      let checks = 0;
      signal.throwIfAborted = () => {
        checks += 1;
        swaps[checks]?.();
      };
      return signal;
    };
    await withTempDir(async (outside) => {
      await withTempDir(async (root) => {
        const names = Array.from({ length: 2500 }, (_, index) => `f${index}`);
        await mkdir(join(root, 'd'));
        await Promise.all(names.map((name) => writeFile(join(root, 'd', name), '')));
        // Outside: a few of the same names (an existence and mtime oracle) and names of its own.
        await Promise.all(names.filter((_, index) => index % 7 === 0).map((name) => writeFile(join(outside, name), '')));
        await Promise.all(names.map((name) => writeFile(join(outside, `secret-${name}`), '')));
        await mkdir(join(root, 'decoy'));
        await symlink(outside, join(root, 'escape'));
        const all = createGlobTool({ maxResults: 5000 });
        // `d` becomes a link to outside after the first slice: no match may be stat'ed through it.
        const swapDirectory = () => {
          renameSync(join(root, 'd'), join(root, 'd-moved'));
          symlinkSync(outside, join(root, 'd'));
        };
        const first = lines(await callTool(all, { pattern: 'd/*' }, makeContext(root, checkedWith({ 4: swapDirectory }))));
        assert.ok(first.length <= 2000, `${first.length} matches`);
        assert.ok(
          first.every((path) => /^d\/f\d+$/.test(path)),
          first.join(','),
        );
        // `escape/*` lists outside names; `escape` points inside when the times start and outside
        // again after the first slice: none of those names may be reported.
        const retarget = (target: string) => () => {
          unlinkSync(join(root, 'escape'));
          symlinkSync(target, join(root, 'escape'));
        };
        const signal = checkedWith({ 3: retarget(join(root, 'decoy')), 4: retarget(outside) });
        assert.match(await callTool(all, { pattern: 'escape/*' }, makeContext(root, signal)), /^No files matched/);
      });
    });
  });

  it('leaves out files a permission rule hides, also when a link inside the root names them', async () => {
    await withTempDir(async (root) => {
      await writeTree(root, { 'secrets/key.txt': '', 'src/a.ts': '' });
      await symlink('secrets', join(root, 'alias'));
      const hiddenPath = (path: string) => path.startsWith(join(root, 'secrets') + '/');
      const context = {
        ...makeContext(root),
        execution: { mode: 'read-only', sandboxed: false, network: false, secretsApproved: false, hiddenPath },
      };
      const note = '[1 matching file is left out: a permission rule covers it.]';
      assert.deepEqual(lines(await callTool(tool, { pattern: '**/*' }, context)), ['src/a.ts', note]);
      // `alias/*` crawls through the link (a literal prefix): its matches are judged by where they lead.
      for (const pattern of ['alias/*', 'alias/key.txt']) {
        assert.deepEqual(lines(await callTool(tool, { pattern }, context)).slice(1), [note], pattern);
      }
    });
  });

  it('declares the directory it reads and stops when aborted', async () => {
    assert.deepEqual(tool.access({ pattern: '*', path: 'src' }, { root: '/project' }), {
      kind: 'read',
      paths: ['/project/src'],
    });
    await withTempDir(async (root) => {
      await writeTree(root, { 'a.ts': '' });
      const controller = new AbortController();
      const pending = tool.execute({ pattern: '**/*' }, makeContext(root, controller.signal));
      controller.abort();
      await assert.rejects(pending, (error: Error) => error.name === 'AbortError');
    });
    assert.ok(tool.description.length < 800);
  });
});
