import { toolSessionState } from '../../src/tools/index.js';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, mkdir, readFile, rename, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createApplyPatchTool, parsePatch } from '../../src/tools/apply-patch/index.js';
import { commitFileChanges } from '../../src/tools/atomic-write.js';
import { withTempDir } from '../helpers/temp-dir.js';
import { listTree, makeWriteContext, rejectsWithCode } from './tool-test-context.js';

/** Every file under `dir` with its content: the whole observable state of a tree. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  for (const name of await listTree(dir)) {
    const stats = await stat(join(dir, name)).catch(() => null);
    result[name] = stats === null ? '<dangling>' : stats.isDirectory() ? '<dir>' : await readFile(join(dir, name), 'utf8');
  }
  return result;
}

function patch(...lines: string[]): string {
  return ['*** Begin Patch', ...lines, '*** End Patch'].join('\n');
}

const tool = createApplyPatchTool();

describe('apply_patch', () => {
  it('declares its contract and the paths it will write', () => {
    assert.equal(tool.name, 'apply_patch');
    assert.equal(tool.readOnly, false);
    assert.equal(tool.strict, false);
    assert.ok(tool.description.length > 0 && tool.description.length < 800);
    const full = patch('*** Add File: a.txt', '+x', '*** Update File: b.txt', '*** Move to: sub/c.txt', '*** Delete File: d.txt');
    assert.deepEqual(tool.access({ patch: full }, { root: '/p' }), {
      kind: 'write',
      paths: ['/p/a.txt', '/p/b.txt', '/p/sub/c.txt', '/p/d.txt'],
    });
    // Unparsable: the paths it names are still declared.
    assert.deepEqual(tool.access({ patch: '*** Update File: x.txt\n-garbage\n*** Delete File: ../y.txt' }, { root: '/p' }), {
      kind: 'write',
      paths: ['/p/x.txt', '/y.txt'],
    });
    assert.equal(tool.schema.safeParse({ patch: '' }).success, false);
  });

  it('adds, updates, deletes and moves files in one patch', async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, 'keep.txt'), 'alpha\nbeta\ngamma\n');
      await writeFile(join(root, 'old.txt'), 'bye\n');
      await writeFile(join(root, 'from.txt'), 'one\ntwo\nthree\n');
      await writeFile(join(root, 'plain-move.txt'), 'same\n');
      const context = makeWriteContext(root);
      toolSessionState(context).fileStamps.set(join(root, 'old.txt'), { mtimeMs: 1, size: 4 });
      const result = await tool.execute(
        {
          patch: patch(
            '*** Add File: new/dir/added.txt',
            '+first',
            '+',
            '+third',
            '*** Update File: keep.txt',
            '@@',
            ' alpha',
            '-beta',
            '+BETA',
            ' gamma',
            '*** Delete File: old.txt',
            '*** Update File: from.txt',
            '*** Move to: moved/to.txt',
            '@@',
            ' one',
            '-two',
            '+2',
            '*** Update File: plain-move.txt',
            '*** Move to: renamed.txt',
          ),
        },
        context,
      );
      assert.deepEqual(await snapshot(root), {
        'keep.txt': 'alpha\nBETA\ngamma\n',
        moved: '<dir>',
        'moved/to.txt': 'one\n2\nthree\n',
        new: '<dir>',
        'new/dir': '<dir>',
        'new/dir/added.txt': 'first\n\nthird\n',
        'renamed.txt': 'same\n',
      });
      assert.match(
        result.output,
        /^Applied patch \(5 operations\):\nA new\/dir\/added\.txt\nM keep\.txt\nD old\.txt\nR from\.txt -> moved\/to\.txt\nR plain-move\.txt -> renamed\.txt\n\n/,
      );
      assert.match(result.output, /--- a\/keep\.txt\n\+\+\+ b\/keep\.txt\n@@ -1,3 \+1,3 @@\n alpha\n-beta\n\+BETA/);
      assert.match(result.output, /--- a\/from\.txt\n\+\+\+ b\/moved\/to\.txt/);
      for (const name of ['keep.txt', 'moved/to.txt', 'new/dir/added.txt', 'renamed.txt']) {
        const stats = await stat(join(root, name));
        assert.deepEqual(toolSessionState(context).fileStamps.get(join(root, name)), { mtimeMs: stats.mtimeMs, size: stats.size }, name);
      }
      assert.equal(toolSessionState(context).fileStamps.has(join(root, 'old.txt')), false);
    });
  });

  it('applies several hunks to one file, in order', async () => {
    await withTempDir(async (root) => {
      const lines = Array.from({ length: 30 }, (_, index) => `line ${index + 1}`);
      await writeFile(join(root, 'f.txt'), `${lines.join('\n')}\n`);
      await tool.execute(
        {
          patch: patch(
            '*** Update File: f.txt',
            '@@',
            ' line 2',
            '-line 3',
            '+LINE 3',
            ' line 4',
            '@@',
            ' line 19',
            '+inserted',
            ' line 20',
            '@@',
            ' line 29',
            '-line 30',
          ),
        },
        makeWriteContext(root),
      );
      const expected = [...lines];
      expected[2] = 'LINE 3';
      expected.splice(19, 0, 'inserted');
      expected.pop();
      assert.equal(await readFile(join(root, 'f.txt'), 'utf8'), `${expected.join('\n')}\n`);
    });
  });

  it('uses @@ lines to pick among repeated code', async () => {
    await withTempDir(async (root) => {
      const source = ['def first():', '    x = 1', '    return x', '', 'def second():', '    x = 1', '    return x', ''].join('\n');
      await writeFile(join(root, 'f.py'), source);
      await tool.execute(
        { patch: patch('*** Update File: f.py', '@@ def second():', '-    x = 1', '+    x = 2', '     return x') },
        makeWriteContext(root),
      );
      assert.equal(await readFile(join(root, 'f.py'), 'utf8'), source.replace('second():\n    x = 1', 'second():\n    x = 2'));

      // Stacked anchors narrow step by step; a pure insertion lands right after the last anchor
      // (Codex would append it to the end of the file: a deliberate difference, docs/apply-patch.md).
      const nested = ['class A:', '    def run(self):', '        pass', 'class B:', '    def run(self):', '        pass', ''].join('\n');
      await writeFile(join(root, 'g.py'), nested);
      await tool.execute(
        { patch: patch('*** Update File: g.py', '@@ class B:', '@@     def run(self):', '+        print("B")') },
        makeWriteContext(root),
      );
      assert.equal(
        await readFile(join(root, 'g.py'), 'utf8'),
        nested.replace('B:\n    def run(self):\n', 'B:\n    def run(self):\n        print("B")\n'),
      );

      await rejectsWithCode(
        tool.execute({ patch: patch('*** Update File: f.py', '@@ def third():', '-    x = 1', '+    x = 3') }, makeWriteContext(root)),
        'PATCH_HUNK_FAILED',
        /f\.py: hunk 1 \(patch line 3\) did not apply: its '@@ def third\(\):' line was not found/,
      );
    });
  });

  it('tolerates whitespace differences and keeps the file’s own context lines', async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, 'w.txt'), 'start   \n\tindented\nold value\nend\n');
      await tool.execute(
        { patch: patch('*** Update File: w.txt', ' start', '  indented', '-old value  ', '+new value', ' end') },
        makeWriteContext(root),
      );
      assert.equal(await readFile(join(root, 'w.txt'), 'utf8'), 'start   \n\tindented\nnew value\nend\n');
      // A trailing blank context line standing for the final newline is not a line of its own.
      await tool.execute({ patch: patch('*** Update File: w.txt', ' new value', '-end', '+END', ' ') }, makeWriteContext(root));
      assert.equal(await readFile(join(root, 'w.txt'), 'utf8'), 'start   \n\tindented\nnew value\nEND\n');
    });
  });

  it('anchors an End of File hunk at the end of the file', async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, 'e.txt'), 'x\n}\ny\n}\n');
      await tool.execute({ patch: patch('*** Update File: e.txt', ' y', '-}', '+};', '*** End of File') }, makeWriteContext(root));
      assert.equal(await readFile(join(root, 'e.txt'), 'utf8'), 'x\n}\ny\n};\n');
      await tool.execute({ patch: patch('*** Update File: e.txt', '@@', ' };', '+// tail', '*** End of File') }, makeWriteContext(root));
      assert.equal(await readFile(join(root, 'e.txt'), 'utf8'), 'x\n}\ny\n};\n// tail\n');
      await rejectsWithCode(
        tool.execute({ patch: patch('*** Update File: e.txt', ' x', '-}', '+]', '*** End of File') }, makeWriteContext(root)),
        'PATCH_HUNK_FAILED',
        /not found at the end of the file:\n {2}\| x\n {2}\| \}\nThe file ends with:/,
      );
    });
  });

  it('is all-or-nothing: a failing hunk in the second file leaves the first untouched', async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, 'a.txt'), 'a1\na2\n');
      await writeFile(join(root, 'b.txt'), 'b1\nb2\nb3\n');
      const before = await snapshot(root);
      const error = await rejectsWithCode(
        tool.execute(
          {
            patch: patch(
              '*** Add File: created.txt',
              '+new',
              '*** Update File: a.txt',
              '-a1',
              '+A1',
              '*** Update File: b.txt',
              '@@',
              ' b1',
              '-b2',
              '+B2',
              '@@',
              ' b2 typo',
              '-b3',
              '+B3',
            ),
          },
          makeWriteContext(root),
        ),
        'PATCH_HUNK_FAILED',
        /^b\.txt: hunk 2 \(patch line 12\) did not apply: these lines were not found after line 2:\n {2}\| b2 typo\n {2}\| b3\n/,
      );
      assert.match(error.message, /Closest match in the file \(lines 2-3\):\n {5}2\tb2\n {5}3\tb3/);
      assert.deepEqual(await snapshot(root), before);
    });
  });

  it('refuses to add an existing file, or to update or delete a missing one', async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, 'here.txt'), 'x\n');
      await mkdir(join(root, 'dir'));
      const before = await snapshot(root);
      const run = (text: string) => tool.execute({ patch: text }, makeWriteContext(root));
      await rejectsWithCode(run(patch('*** Add File: here.txt', '+y')), 'PATCH_FILE_EXISTS', /here\.txt already exists/);
      await rejectsWithCode(run(patch('*** Add File: dir', '+y')), 'PATCH_FILE_EXISTS', /directory/);
      await rejectsWithCode(run(patch('*** Add File: n.txt', '+1', '*** Add File: n.txt', '+2')), 'PATCH_FILE_EXISTS', /added earlier/);
      await rejectsWithCode(run(patch('*** Update File: missing.txt', '-a', '+b')), 'PATCH_FILE_NOT_FOUND', /missing\.txt/);
      await rejectsWithCode(run(patch('*** Delete File: missing.txt')), 'PATCH_FILE_NOT_FOUND');
      await rejectsWithCode(
        run(patch('*** Delete File: here.txt', '*** Update File: here.txt', '-x', '+y')),
        'PATCH_FILE_NOT_FOUND',
        /already deleted or moved/,
      );
      await rejectsWithCode(
        run(patch('*** Add File: other.txt', '+o', '*** Update File: here.txt', '*** Move to: other.txt')),
        'PATCH_FILE_EXISTS',
      );
      await writeFile(join(root, 'blob.bin'), Buffer.from([1, 0, 2]));
      await rejectsWithCode(run(patch('*** Delete File: blob.bin')), 'BINARY_FILE');
      assert.deepEqual(await snapshot(root), { ...before, 'blob.bin': '\u0001\u0000\u0002' });
    });
  });

  it('reports parse errors with the line number in the patch', async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, 'f.txt'), 'a\n');
      const cases: [string, RegExp][] = [
        ['', /^Patch line 1: the patch is empty/],
        ['*** Update File: f.txt\n-a\n+b\n*** End Patch', /^Patch line 1: the patch must start with '\*\*\* Begin Patch'/],
        ['*** Begin Patch\n*** Update File: f.txt\n-a\n+b', /^Patch line 4: the patch must end with '\*\*\* End Patch'/],
        [
          patch('*** Update File: f.txt', '-a', 'b'),
          /^Patch line 4: lines of a hunk must start with ' ' \(context\), '-' \(remove\) or '\+' \(add\); in f\.txt found: "b"/,
        ],
        [patch('*** Add File: n.txt', '+ok', 'missing plus'), /^Patch line 4: every line of an added file must start with '\+'/],
        [patch('*** Update File: f.txt'), /^Patch line 2: '\*\*\* Update File: f\.txt' has no hunks/],
        [patch('*** Update File: f.txt', '@@ a', '*** Delete File: x'), /^Patch line 3: hunk 1 of f\.txt has no lines/],
        [patch('*** Update File: f.txt', ' a'), /^Patch line 3: hunk 1 of f\.txt has only context lines/],
        [patch('*** Rename File: f.txt'), /^Patch line 2: expected a file header/],
        [patch('*** Add File: '), /^Patch line 2: '\*\*\* Add File:' needs a file path/],
        [patch('*** Update File: f.txt', '-a', '*** End of File', '+b'), /^Patch line 5: a hunk line follows '\*\*\* End of File'/],
        [patch(), /^Patch line 1: the patch contains no file operations/],
      ];
      for (const [text, pattern] of cases) {
        await rejectsWithCode(tool.execute({ patch: text }, makeWriteContext(root)), 'PATCH_PARSE_ERROR', pattern);
      }
      assert.deepEqual(await snapshot(root), { 'f.txt': 'a\n' });
    });
  });

  it('accepts common variations: heredoc wrapper, CRLF patch text, line-range @@ headers, stripped blank context', () => {
    const operations = parsePatch(
      "<<'EOF'\r\n*** Begin Patch\r\n*** Update File: f.txt\r\n@@ -1,3 +1,3 @@ function main() {\r\n a\r\n\r\n-b\r\n+c\r\n*** End Patch\r\nEOF\r\n",
    );
    assert.deepEqual(operations, [
      {
        kind: 'update',
        path: 'f.txt',
        moveTo: null,
        patchLine: 3,
        hunks: [
          {
            anchors: ['function main() {'],
            endOfFile: false,
            patchLine: 4,
            lines: [
              { kind: 'context', text: 'a' },
              { kind: 'context', text: '' },
              { kind: 'remove', text: 'b' },
              { kind: 'add', text: 'c' },
            ],
          },
        ],
      },
    ]);
  });

  it('treats blank lines between sections as spacing', () => {
    const operations = parsePatch(
      patch('*** Update File: a.txt', '-a', '+b', '*** End of File', '', '*** Update File: c.txt', ' x', '+y', '', ''),
    );
    assert.equal(operations.length, 2);
    assert.deepEqual(
      operations.map((operation) => (operation.kind === 'update' ? operation.hunks[0]!.lines.length : -1)),
      [2, 2],
    );
  });

  it('says when hunks are out of file order', async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, 'o.txt'), 'one\ntwo\nthree\nfour\n');
      await rejectsWithCode(
        tool.execute({ patch: patch('*** Update File: o.txt', '@@', '-three', '+3', '@@', '-one', '+1') }, makeWriteContext(root)),
        'PATCH_HUNK_FAILED',
        /hunk 2 .*They do occur at line 1, before line 4 .*file order/s,
      );
    });
  });

  it('preserves CRLF and file modes, and ends an updated file with a newline', async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, 'win.txt'), 'a\r\nb\r\nc\r\n');
      await writeFile(join(root, 'nonl.txt'), 'x\ny');
      await writeFile(join(root, 'rename-only.txt'), 'kept\nas is');
      await writeFile(join(root, 'run.sh'), 'echo 1\n');
      await chmod(join(root, 'run.sh'), 0o755);
      await tool.execute(
        {
          patch: patch(
            '*** Update File: win.txt',
            ' a',
            '-b',
            '+B',
            '+B2',
            '*** Update File: nonl.txt',
            ' x',
            '-y',
            '+why',
            '*** Update File: run.sh',
            '*** Move to: bin/run.sh',
            '-echo 1',
            '+echo 2',
            '*** Update File: rename-only.txt',
            '*** Move to: renamed-only.txt',
          ),
        },
        makeWriteContext(root),
      );
      assert.equal(await readFile(join(root, 'win.txt'), 'utf8'), 'a\r\nB\r\nB2\r\nc\r\n');
      // As Codex does: an updated file always ends with a newline (a patch cannot say otherwise)...
      assert.equal(await readFile(join(root, 'nonl.txt'), 'utf8'), 'x\nwhy\n');
      // ...but a Move with no hunks changes no byte of the file.
      assert.equal(await readFile(join(root, 'renamed-only.txt'), 'utf8'), 'kept\nas is');
      assert.equal(await readFile(join(root, 'bin/run.sh'), 'utf8'), 'echo 2\n');
      assert.equal((await stat(join(root, 'bin/run.sh'))).mode & 0o7777, 0o755);
    });
  });

  it('refuses paths that escape the root, writing nothing inside or outside', async () => {
    await withTempDir(async (root) => {
      await withTempDir(async (outside) => {
        await writeFile(join(outside, 'target.txt'), 'outside\n');
        const project = join(root, 'project');
        await mkdir(project);
        await writeFile(join(project, 'inside.txt'), 'inside\n');
        await symlink(outside, join(project, 'escape'));
        const before = await snapshot(root);
        const attempts = ['../evil.txt', join(outside, 'evil.txt'), 'escape/evil.txt', 'escape/deeper/evil.txt'];
        for (const path of attempts) {
          await rejectsWithCode(
            tool.execute(
              { patch: patch('*** Update File: inside.txt', '-inside', '+changed', `*** Add File: ${path}`, '+x') },
              makeWriteContext(project),
            ),
            'PATH_OUTSIDE_ROOT',
          );
        }
        await rejectsWithCode(
          tool.execute({ patch: patch('*** Update File: escape/target.txt', '-outside', '+changed') }, makeWriteContext(project)),
          'PATH_OUTSIDE_ROOT',
        );
        await rejectsWithCode(
          tool.execute({ patch: patch('*** Update File: inside.txt', '*** Move to: ../moved.txt') }, makeWriteContext(project)),
          'PATH_OUTSIDE_ROOT',
        );
        assert.deepEqual(await snapshot(root), before);
        assert.deepEqual(await snapshot(outside), { 'target.txt': 'outside\n' });
      });
    });
  });

  it('honours an aborted signal before writing', async () => {
    await withTempDir(async (root) => {
      const controller = new AbortController();
      controller.abort();
      await rejectsWithCode(
        tool.execute({ patch: patch('*** Add File: a.txt', '+a') }, makeWriteContext(root, controller.signal)),
        'ABORTED',
      );
      assert.deepEqual(await listTree(root), []);
    });
  });
});

describe('commitFileChanges', () => {
  it('rolls back renames already done when a later one fails', async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, 'overwritten.txt'), 'old content\n');
      await writeFile(join(root, 'deleted.txt'), 'still here\n');
      await chmod(join(root, 'overwritten.txt'), 0o600);
      const before = await snapshot(root);
      let renames = 0;
      await rejectsWithCode(
        commitFileChanges(
          [
            { path: join(root, 'overwritten.txt'), content: 'new content\n' },
            { path: join(root, 'deleted.txt'), content: null },
            { path: join(root, 'fresh/dir/created.txt'), content: 'created\n' },
            { path: join(root, 'second-created.txt'), content: 'second\n' },
          ],
          {
            fileSystem: {
              rename: async (from, to) => {
                renames += 1;
                if (to.endsWith('second-created.txt')) throw Object.assign(new Error('simulated EIO'), { code: 'EIO' });
                await rename(from, to);
              },
            },
          },
        ),
        'WRITE_FAILED',
        /simulated EIO.*no file was changed/,
      );
      assert.equal(renames, 3);
      assert.deepEqual(await snapshot(root), before);
      assert.equal((await stat(join(root, 'overwritten.txt'))).mode & 0o7777, 0o600);
    });
  });

  it('leaves no temp files when staging fails', async () => {
    await withTempDir(async (root) => {
      await mkdir(join(root, 'dir'));
      await rejectsWithCode(
        commitFileChanges([
          { path: join(root, 'a.txt'), content: 'a' },
          { path: join(root, 'dir'), content: 'not a file' },
        ]),
        'IS_A_DIRECTORY',
      );
      assert.deepEqual(await listTree(root), ['dir']);
    });
  });
});
