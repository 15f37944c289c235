// A `.gitignore` planted as something other than a file of the project — a FIFO, a symlink to a
// process environment or to a file outside the root — is not read by glob or grep: the search
// runs without its rules and says which file was not applied and why.

import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { createGlobTool } from '../../src/tools/index.js';
import { createGrepTool } from '../../src/tools/grep/index.js';
import { withTempDir } from '../helpers/temp-dir.js';
import { callTool, makeContext } from './tool-test-context.js';

/** Blocks until someone opens `fifo` for reading, then writes `text` (a blocking reader gets it). */
function fifoWriter(fifo: string, text: string): ChildProcess {
  return spawn('sh', ['-c', 'printf %s "$1" > "$2"', 'writer', text, fifo], { stdio: 'ignore' });
}

describe('refused .gitignore files', { concurrency: true }, () => {
  test('glob: a FIFO, a link to /proc/self/environ and a link out of the project are not applied, and the output says so', async () => {
    const writers: ChildProcess[] = [];
    try {
      await withTempDir(async (dir) => {
        const root = join(dir, 'project');
        for (const sub of ['fifo', 'environ', 'outside']) await mkdir(join(root, sub), { recursive: true });
        for (const sub of ['fifo', 'environ', 'outside']) await writeFile(join(root, sub, 'hidden.txt'), 'x\n');
        await writeFile(join(dir, 'rules'), 'hidden.txt\n');
        execFileSync('mkfifo', [join(root, 'fifo', '.gitignore')]);
        // Were the FIFO read (blocking), it would say to hide hidden.txt.
        writers.push(fifoWriter(join(root, 'fifo', '.gitignore'), 'hidden.txt\n'));
        await symlink('/proc/self/environ', join(root, 'environ', '.gitignore'));
        await symlink(join(dir, 'rules'), join(root, 'outside', '.gitignore'));

        const output = await callTool(createGlobTool(), { pattern: '**/hidden.txt' }, makeContext(root));
        const lines = output.split('\n');
        assert.deepEqual(lines.slice(0, 3).sort(), ['environ/hidden.txt', 'fifo/hidden.txt', 'outside/hidden.txt']);
        const note = lines[3]!;
        assert.match(note, /^\[Ignore rules not applied: /);
        assert.ok(note.includes(`${join(root, 'fifo', '.gitignore')} is not a regular file (a FIFO)`), note);
        assert.ok(note.includes(`${join(root, 'environ', '.gitignore')} leads outside the project (to /proc/`), note);
        assert.ok(note.includes(`${join(root, 'outside', '.gitignore')} leads outside the project (to ${join(dir, 'rules')})`), note);
        assert.match(note, /Files they would hide may be listed\.\]$/);
        assert.equal(lines.length, 4);
      });
    } finally {
      for (const writer of writers) writer.kill('SIGKILL');
    }
  });

  test('grep: a refused .gitignore above the searched directory is not applied and is named', async () => {
    // Only links here: ripgrep opens the .gitignore files of the searched tree (and, even with
    // --no-ignore-parent, of every directory above it) itself, so a FIFO blocks it — a limit
    // docs/permissions.md states.
    await withTempDir(async (dir) => {
      const root = join(dir, 'project');
      await mkdir(join(root, 'a', 'inner'), { recursive: true });
      await mkdir(join(root, 'b', 'inner'), { recursive: true });
      await writeFile(join(root, 'a', 'inner', 'note.txt'), 'needle\n');
      await writeFile(join(root, 'b', 'inner', 'note.txt'), 'needle\n');
      await writeFile(join(dir, 'rules'), 'note.txt\n');
      await symlink(join(dir, 'rules'), join(root, 'a', '.gitignore'));
      await symlink('/proc/self/environ', join(root, 'b', '.gitignore'));
      const grep = createGrepTool();
      const [a, b] = await Promise.all(
        ['a/inner', 'b/inner'].map((path) => callTool(grep, { pattern: 'needle', path }, makeContext(root))),
      );
      assert.match(a!, /a\/inner\/note\.txt/);
      assert.ok(
        a!.includes(`[Ignore rules not applied: ${join(root, 'a', '.gitignore')} leads outside the project (to ${join(dir, 'rules')})`),
        a,
      );
      assert.match(b!, /b\/inner\/note\.txt/);
      assert.ok(b!.includes(`[Ignore rules not applied: ${join(root, 'b', '.gitignore')} leads outside the project (to /proc/`), b);
    });
  });
});
