// `/diff` on real files: changes made by a child process (as a shell command makes them) are found
// by comparing with the snapshot taken when the session opened; secret files are reported without
// their contents; skipped folders are covered by the write tools' own baselines; and end to end,
// a shell command the agent runs in a turn shows in /diff.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startFakeProvider } from '../../src/testing/index.js';
import { runCommand } from '../../src/tui/command-handlers.js';
import { createTheme, stripAnsi } from '../../src/tui/theme.js';
import { WorkspaceChanges } from '../../src/tui/workspace-changes.js';
import { withTempDir } from '../helpers/temp-dir.js';
import { testController } from './test-controller.js';

function sh(root: string, script: string): void {
  execFileSync('sh', ['-c', script], { cwd: root });
}

describe('/diff: workspace changes since the session opened', () => {
  test('changes by another process are found: modified, added, deleted; untouched, rewritten-as-was and skipped folders are not', async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, 'a.txt'), 'one\ntwo\n');
      await writeFile(join(root, 'b.txt'), 'bye\n');
      await writeFile(join(root, 'same.txt'), 'same\n');
      await writeFile(join(root, 'keep.txt'), 'keep\n');
      await mkdir(join(root, 'node_modules', 'dep'), { recursive: true });
      await writeFile(join(root, 'node_modules', 'dep', 'index.js'), 'old\n');
      const changes = new WorkspaceChanges(root);
      await changes.ready();
      sh(
        root,
        "sed -i 's/two/TWO/' a.txt && rm b.txt && printf 'new\\n' > c.txt && printf 'same\\n' > same.txt && echo changed > node_modules/dep/index.js",
      );
      const { files, since } = await changes.changes();
      assert.ok(since instanceof Date);
      assert.deepEqual(
        files.map((f) => [f.path, f.status]),
        [
          ['a.txt', 'modified'],
          ['b.txt', 'deleted'],
          ['c.txt', 'added'],
        ],
      );
      const edits = (lines: string[]): string[] => lines.filter((line) => /^[-+ ]/.test(line));
      assert.deepEqual(edits(files[0]!.lines), [' one', '-two', '+TWO']);
      assert.deepEqual(edits(files[1]!.lines), ['-bye']);
      assert.deepEqual(edits(files[2]!.lines), ['+new']);
    });
  });

  test('a write call naming a FIFO, a device behind a symlinked folder, or a file outside the project reads nothing it should not', async () => {
    await withTempDir(async (dir) => {
      const root = join(dir, 'project');
      await mkdir(join(root, 'node_modules'), { recursive: true });
      await mkdir(join(dir, 'outside'));
      await writeFile(join(dir, 'outside', 'private-notes.txt'), 'not yours\n');
      // A repository can commit these; the model can name them in a write call that is then denied.
      sh(root, 'mkfifo pipe && ln -s /dev d && ln -s ../outside out && mkfifo node_modules/pipe');
      const changes = new WorkspaceChanges(root);
      await changes.ready();
      // Before: the FIFO blocked the terminal forever, d/zero grew memory without bound, and the
      // outside file's contents showed in /diff.
      for (const path of ['pipe', 'node_modules/pipe', 'd/zero', 'out/private-notes.txt']) {
        changes.noteToolCall('write_file', JSON.stringify({ path, content: 'x' }));
      }
      const report = await changes.changes();
      assert.ok(!JSON.stringify(report).includes('not yours'), JSON.stringify(report));
    });
  });

  test('a secret file is reported changed without its contents; a binary file without a diff', async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, '.env'), 'TOKEN=old-secret\n');
      await writeFile(join(root, 'blob.bin'), Buffer.from([1, 0, 2]));
      const changes = new WorkspaceChanges(root);
      await changes.ready();
      sh(root, "echo 'TOKEN=new-secret' > .env && printf 'x\\000y' > blob.bin");
      const { files } = await changes.changes();
      assert.deepEqual(
        files.map((f) => [f.path, f.status, f.note]),
        [
          ['.env', 'modified', 'a secret file: contents not shown'],
          ['blob.bin', 'modified', 'a binary file'],
        ],
      );
      assert.ok(!JSON.stringify(files).includes('secret='), 'no secret value in the report');
      assert.ok(!JSON.stringify(files).includes('TOKEN'));
    });
  });

  test('a write tool naming a file in a skipped folder or over the copy limit keeps its own baseline', async () => {
    await withTempDir(async (root) => {
      await mkdir(join(root, 'dist'));
      await writeFile(join(root, 'dist', 'out.txt'), 'built\n');
      await writeFile(join(root, 'big.txt'), 'a long line of text\n');
      const changes = new WorkspaceChanges(root, { maxFiles: 100, maxFileBytes: 10, maxTotalBytes: 1000 });
      await changes.ready();
      changes.noteToolCall('write_file', JSON.stringify({ path: 'dist/out.txt', content: 'rebuilt\n' }));
      changes.noteToolCall('edit_file', JSON.stringify({ path: 'big.txt', old_string: 'long', new_string: 'short' }));
      await writeFile(join(root, 'dist', 'out.txt'), 'rebuilt\n');
      await writeFile(join(root, 'big.txt'), 'a short line of text\n');
      const { files } = await changes.changes();
      assert.deepEqual(
        files.map((f) => [f.path, f.status, f.lines.filter((l) => /^[-+]/.test(l))]),
        [
          ['big.txt', 'modified', ['-a long line of text', '+a short line of text']],
          ['dist/out.txt', 'modified', ['-built', '+rebuilt']],
        ],
      );
    });
  });

  test('a shell command the agent runs in a turn shows in /diff', async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, 'notes.txt'), 'remember the milk\n');
      const provider = await startFakeProvider({
        script: [
          { toolCalls: [{ name: 'shell', arguments: { command: "sed -i 's/milk/oat milk/' notes.txt && echo hi > made.txt" } }] },
          { text: 'Done.' },
        ],
      });
      // Unsandboxed and never asking, so the test needs no bubblewrap; the sandboxed path is the runner's business.
      const controller = testController(root, provider, { sandbox: 'danger-full-access', approvalPolicy: 'never' });
      try {
        // The prompt history goes to the home inside the project: not a change to report.
        controller.rememberPrompt('change the notes');
        await controller.sendPrompt('change the notes');
        await runCommand({ controller, theme: createTheme(false), listed: [], confirmForeign: null }, 'diff', '');
        const block = controller.getSnapshot().transcript.done.findLast((entry) => entry.kind === 'block');
        assert.ok(block && block.kind === 'block', 'a /diff block');
        const body = stripAnsi(block.body);
        assert.match(body, /modified {2}notes\.txt/);
        assert.match(body, /-remember the milk\n\+remember the oat milk/);
        assert.match(body, /added {5}made\.txt/);
        assert.doesNotMatch(body, /\.home/, "Glassbox's own home in the project is not the agent's change");
      } finally {
        await controller.shutdown();
        await provider.close();
      }
    });
  });
});
