// The approval preview: a dry run of write_file / edit_file / apply_patch against the files on
// disk, as project-relative diffs, writing nothing; a call that would fail says why.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createEditFileTool, previewChange, type ChangePreview } from '../../src/tools/index.js';
import { withTempDir } from '../helpers/temp-dir.js';
import { callTool, listTree, makeWriteContext, rejectsWithCode } from './tool-test-context.js';

function rendered(preview: ChangePreview | null): string[] {
  assert.ok(preview !== null);
  return preview.files.flatMap((file) => [
    `${file.change} ${file.path}${file.to === null ? '' : ` -> ${file.to}`}`,
    ...file.lines.map((line) => `${{ add: '+', del: '-', ctx: ' ', hunk: '' }[line.kind]}${line.text}`),
  ]);
}

const args = (value: Record<string, unknown>) => JSON.stringify(value);

describe('previewChange', () => {
  it('write_file: a new file is all additions; an existing one is diffed against its content on disk', async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, 'notes.md'), '# Notes\r\n\r\nold line\r\nkept\r\n');
      const created = await previewChange('write_file', args({ path: 'new/todo.md', content: 'a\nb\n' }), root);
      assert.deepEqual(rendered(created), ['add new/todo.md', '@@ -1,0 +1,2 @@', '+a', '+b']);
      assert.equal(created?.problem, null);

      const replaced = await previewChange(
        'write_file',
        args({ path: join(root, 'notes.md'), content: '# Notes\n\nnew line\nkept\n' }),
        root,
      );
      assert.deepEqual(rendered(replaced), ['update notes.md', '@@ -1,4 +1,4 @@', ' # Notes', ' ', '-old line', '+new line', ' kept']);
      assert.deepEqual(await listTree(root), ['notes.md'], 'nothing was written');
      assert.equal(await readFile(join(root, 'notes.md'), 'utf8'), '# Notes\r\n\r\nold line\r\nkept\r\n');
    });
  });

  it('edit_file: the replacement in its place in the file; a missing or ambiguous target is the problem', async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, 'a.ts'), `${Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n')}\nx\nx\n`);
      const edit = await previewChange('edit_file', args({ path: 'a.ts', old_string: 'line 5', new_string: 'LINE FIVE' }), root);
      assert.deepEqual(rendered(edit), [
        'update a.ts',
        '@@ -2,7 +2,7 @@',
        ' line 2',
        ' line 3',
        ' line 4',
        '-line 5',
        '+LINE FIVE',
        ' line 6',
        ' line 7',
        ' line 8',
      ]);
      const missing = await previewChange('edit_file', args({ path: 'a.ts', old_string: 'nowhere', new_string: 'y' }), root);
      assert.deepEqual(missing, { files: [], problem: 'old_string is not in a.ts as given; the edit will fail.' });
      const twice = await previewChange('edit_file', args({ path: 'a.ts', old_string: 'x\n', new_string: 'y\n' }), root);
      assert.match(twice?.problem ?? '', /occurs 2 times/);
      const all = await previewChange('edit_file', args({ path: 'a.ts', old_string: 'x\n', new_string: 'y\n', replace_all: true }), root);
      assert.deepEqual(
        rendered(all).filter((line) => /^[+-]/.test(line)),
        ['-x', '-x', '+y', '+y'],
      );
    });
  });

  it('apply_patch: every file of the plan, with moves and deletes; a hunk that does not fit is the problem', async () => {
    await withTempDir(async (root) => {
      await mkdir(join(root, 'src'));
      await writeFile(join(root, 'src', 'keep.ts'), 'one\ntwo\nthree\n');
      await writeFile(join(root, 'src', 'gone.ts'), 'bye\n');
      await writeFile(join(root, 'src', 'old.ts'), 'moved\n');
      const patch = [
        '*** Begin Patch',
        '*** Add File: src/new.ts',
        '+hello',
        '*** Update File: src/keep.ts',
        '@@',
        ' one',
        '-two',
        '+TWO',
        '*** Delete File: src/gone.ts',
        '*** Update File: src/old.ts',
        '*** Move to: src/renamed.ts',
        '@@',
        '-moved',
        '+moved here',
        '*** End Patch',
      ].join('\n');
      const preview = await previewChange('apply_patch', args({ patch }), root);
      assert.deepEqual(rendered(preview), [
        'add src/new.ts',
        '@@ -1,0 +1,1 @@',
        '+hello',
        'update src/keep.ts',
        '@@ -1,3 +1,3 @@',
        ' one',
        '-two',
        '+TWO',
        ' three',
        'delete src/gone.ts',
        '@@ -1,1 +1,0 @@',
        '-bye',
        'move src/old.ts -> src/renamed.ts',
        '@@ -1,1 +1,1 @@',
        '-moved',
        '+moved here',
      ]);
      assert.deepEqual(await listTree(root), ['src', 'src/gone.ts', 'src/keep.ts', 'src/old.ts'], 'nothing was written');
      const misfit = await previewChange(
        'apply_patch',
        args({ patch: '*** Begin Patch\n*** Update File: src/keep.ts\n@@\n-absent\n+x\n*** End Patch' }),
        root,
      );
      assert.equal(misfit?.files.length, 0);
      assert.match(misfit?.problem ?? '', /keep\.ts/);
    });
  });

  it('paths out of the root, binary files and tools that write no file', async () => {
    await withTempDir(async (base) => {
      const root = join(base, 'project');
      await mkdir(root);
      await writeFile(join(base, 'secret.txt'), 'outside\n');
      await symlink(join(base, 'secret.txt'), join(root, 'link.txt'));
      await writeFile(join(root, 'image.bin'), Buffer.from([0, 1, 2, 0, 255]));
      for (const path of ['../secret.txt', 'link.txt', join(base, 'secret.txt')]) {
        const escaped = await previewChange('write_file', args({ path, content: 'x' }), root);
        assert.deepEqual(escaped?.files, [], path);
        assert.match(escaped?.problem ?? '', /outside the project root/, path);
      }
      assert.match((await previewChange('write_file', args({ path: 'image.bin', content: 'x' }), root))?.problem ?? '', /binary/);
      assert.equal(await previewChange('shell', args({ command: 'rm -rf /' }), root), null);
      assert.deepEqual(await previewChange('write_file', '{not json', root), {
        files: [],
        problem: 'the arguments are not a JSON object; the call will fail',
      });
    });
  });
});

describe('previewChange on hostile files', () => {
  it('a FIFO is refused at once (before, the open waited for a writer forever); the edit tools refuse it too', async () => {
    await withTempDir(async (root) => {
      execFileSync('mkfifo', [join(root, 'notes.txt')]);
      for (const [tool, value] of [
        ['write_file', { path: 'notes.txt', content: 'x\n' }],
        ['edit_file', { path: 'notes.txt', old_string: 'a', new_string: 'b' }],
        ['apply_patch', { patch: '*** Begin Patch\n*** Update File: notes.txt\n@@\n-a\n+b\n*** End Patch' }],
      ] as const) {
        const preview = await previewChange(tool, args(value), root);
        assert.match(preview?.problem ?? '', /notes\.txt is not a regular file/, tool);
      }
      await rejectsWithCode(
        callTool(createEditFileTool(), { path: 'notes.txt', old_string: 'a', new_string: 'b' }, makeWriteContext(root)),
        'NOT_A_FILE',
      );
    });
  });

  it("a secret file's current contents never reach the preview; the lines the call adds do", async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, '.env'), 'DEBUG=0\nSTRIPE_KEY=sk_live_abcdefghijklmnop\nPORT=80\n');
      await mkdir(join(root, 'certs'));
      await writeFile(join(root, 'certs', 'server.key'), '-----BEGIN PRIVATE KEY-----\nMIIEsecret\n-----END PRIVATE KEY-----\n');
      const edit = await previewChange('edit_file', args({ path: '.env', old_string: 'DEBUG=0', new_string: 'DEBUG=1' }), root);
      const write = await previewChange('write_file', args({ path: 'certs/server.key', content: 'replaced\n' }), root);
      for (const preview of [edit, write]) {
        const shown = JSON.stringify(preview);
        assert.ok(!shown.includes('sk_live_') && !shown.includes('MIIEsecret') && !shown.includes('DEBUG=0'), shown);
        assert.match(preview?.problem ?? '', /is a secret file: only the lines the call adds are shown/);
      }
      // An edit shows its new string, not the changed lines (the rest of such a line is the file's).
      assert.deepEqual(rendered(edit), ['update .env', '+DEBUG=1']);
      assert.deepEqual(rendered(write), ['update certs/server.key', '@@ -1,3 +1,1 @@', '+replaced']);
    });
  });
});
