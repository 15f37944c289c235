import { toolSessionState } from '../../src/tools/index.js';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, mkdir, readFile, stat, symlink, truncate, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ToolContext } from '../../src/agent/index.js';
import { createEditFileTool } from '../../src/tools/edit-file/index.js';
import { withTempDir } from '../helpers/temp-dir.js';
import { listTree, makeWriteContext, rejectsWithCode } from './tool-test-context.js';

/** Stands in for read_file: record the file's fingerprint as a read would. */
async function markRead(context: ToolContext, absolute: string): Promise<void> {
  const stats = await stat(absolute);
  toolSessionState(context).fileStamps.set(absolute, { mtimeMs: stats.mtimeMs, size: stats.size });
}

/** A temp root with one file already "read"; returns what the tests need. */
async function setUp(root: string, name: string, content: string | Buffer) {
  const absolute = join(root, name);
  await writeFile(absolute, content);
  const context = makeWriteContext(root);
  await markRead(context, absolute);
  return { absolute, context };
}

const tool = createEditFileTool();
const SOURCE = ['function add(a, b) {', '  return a + b;', '}', '', 'function sub(a, b) {', '  return a - b;', '}', ''].join('\n');

describe('edit_file', () => {
  it('declares its contract', () => {
    assert.equal(tool.name, 'edit_file');
    assert.equal(tool.readOnly, false);
    assert.equal(tool.strict, false);
    assert.ok(tool.description.length > 0 && tool.description.length < 800);
    assert.deepEqual(tool.access({ path: 'src/x.ts', old_string: 'a', new_string: 'b' }, { root: '/project' }), {
      kind: 'write',
      paths: ['/project/src/x.ts'],
    });
    assert.equal(tool.schema.safeParse({ path: 'x', old_string: 'a' }).success, false);
    assert.equal(tool.schema.safeParse({ path: 'x', old_string: 'a', new_string: 'b', replace_all: 'yes' }).success, false);
  });

  it('replaces a unique string, keeps the mode, updates the stamp and shows a diff', async () => {
    await withTempDir(async (root) => {
      const { absolute, context } = await setUp(root, 'math.js', SOURCE);
      await chmod(absolute, 0o755);
      await markRead(context, absolute);
      const result = await tool.execute(
        { path: 'math.js', old_string: '  return a - b;', new_string: '  return a - b; // difference' },
        context,
      );
      assert.equal(await readFile(absolute, 'utf8'), SOURCE.replace('a - b;', 'a - b; // difference'));
      assert.equal((await stat(absolute)).mode & 0o7777, 0o755);
      assert.match(result.output, /^Edited math\.js: replaced 1 occurrence at line 6\./);
      assert.match(result.output, /- {2}return a - b;\n\+ {2}return a - b; \/\/ difference/);
      const stats = await stat(absolute);
      assert.deepEqual(toolSessionState(context).fileStamps.get(absolute), { mtimeMs: stats.mtimeMs, size: stats.size });
      assert.deepEqual(await listTree(root), ['math.js']);

      // The stamp written by the edit lets a second edit go through without another read.
      await tool.execute({ path: 'math.js', old_string: 'function add', new_string: 'function plus' }, context);
      assert.match(await readFile(absolute, 'utf8'), /^function plus\(a, b\)/);
    });
  });

  it('refuses a file that was not read in this session', async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, 'a.txt'), 'hello\n');
      await rejectsWithCode(
        tool.execute({ path: 'a.txt', old_string: 'hello', new_string: 'bye' }, makeWriteContext(root)),
        'EDIT_REQUIRES_READ',
        /read_file/,
      );
      assert.equal(await readFile(join(root, 'a.txt'), 'utf8'), 'hello\n');
    });
  });

  it('refuses a file that changed on disk since it was read (size or mtime)', async () => {
    await withTempDir(async (root) => {
      const { absolute, context } = await setUp(root, 'a.txt', 'hello\n');
      await writeFile(absolute, 'hello world\n');
      await rejectsWithCode(
        tool.execute({ path: 'a.txt', old_string: 'hello', new_string: 'bye' }, context),
        'FILE_CHANGED_SINCE_READ',
        /read it again/i,
      );

      await markRead(context, absolute);
      await writeFile(absolute, 'jello world\n');
      await utimes(absolute, new Date(2001, 1, 1), new Date(2001, 1, 1));
      await rejectsWithCode(tool.execute({ path: 'a.txt', old_string: 'jello', new_string: 'bye' }, context), 'FILE_CHANGED_SINCE_READ');
      assert.equal(await readFile(absolute, 'utf8'), 'jello world\n');
    });
  });

  it('rejects bad input: empty old_string, no change, missing file, directory, binary', async () => {
    await withTempDir(async (root) => {
      const { context } = await setUp(root, 'a.txt', 'hello\n');
      await rejectsWithCode(tool.execute({ path: 'a.txt', old_string: '', new_string: 'x' }, context), 'EDIT_EMPTY_TARGET', /write_file/);
      await rejectsWithCode(tool.execute({ path: 'a.txt', old_string: 'hello', new_string: 'hello' }, context), 'EDIT_NO_CHANGE');
      await rejectsWithCode(tool.execute({ path: 'nope.txt', old_string: 'a', new_string: 'b' }, context), 'PATH_NOT_FOUND', /write_file/);
      await mkdir(join(root, 'dir'));
      await rejectsWithCode(tool.execute({ path: 'dir', old_string: 'a', new_string: 'b' }, context), 'IS_A_DIRECTORY');
      const binary = join(root, 'blob.bin');
      await writeFile(binary, Buffer.from([104, 0, 105]));
      await markRead(context, binary);
      await rejectsWithCode(tool.execute({ path: 'blob.bin', old_string: 'h', new_string: 'x' }, context), 'BINARY_FILE');
      await writeFile(binary, Buffer.from([0xc3, 0x28]));
      await rejectsWithCode(tool.execute({ path: 'blob.bin', old_string: '(', new_string: 'x' }, context), 'BINARY_FILE', /UTF-8/);
      const huge = join(root, 'huge.txt');
      await writeFile(huge, '');
      await truncate(huge, 17 * 1024 * 1024);
      await markRead(context, huge);
      await rejectsWithCode(tool.execute({ path: 'huge.txt', old_string: 'a', new_string: 'b' }, context), 'FILE_TOO_LARGE');
      assert.equal(await readFile(join(root, 'a.txt'), 'utf8'), 'hello\n');
    });
  });

  it('reports a missing target with the most similar lines and their numbers', async () => {
    await withTempDir(async (root) => {
      const { absolute, context } = await setUp(root, 'math.js', SOURCE);
      const error = await rejectsWithCode(
        tool.execute({ path: 'math.js', old_string: 'function sub(x, y) {\n  return x - y;', new_string: 'x' }, context),
        'EDIT_TARGET_NOT_FOUND',
        /most similar text is at lines 5-6/,
      );
      assert.match(error.message, / {5}5\tfunction sub\(a, b\) \{\n {5}6\t {2}return a - b;/);
      assert.equal(await readFile(absolute, 'utf8'), SOURCE);
    });
  });

  it('points out a match that differs only by whitespace', async () => {
    await withTempDir(async (root) => {
      const { context } = await setUp(root, 'math.js', SOURCE);
      const error = await rejectsWithCode(
        tool.execute({ path: 'math.js', old_string: 'function add(a, b) {\n    return a + b;\n}', new_string: 'x' }, context),
        'EDIT_TARGET_NOT_FOUND',
        /matches lines 1-3 if whitespace is ignored/,
      );
      assert.match(error.message, / {5}2\t {2}return a \+ b;/);
    });
  });

  it('says when nothing similar exists', async () => {
    await withTempDir(async (root) => {
      const { context } = await setUp(root, 'math.js', SOURCE);
      await rejectsWithCode(
        tool.execute({ path: 'math.js', old_string: 'zzzz qqqq', new_string: 'x' }, context),
        'EDIT_TARGET_NOT_FOUND',
        /no similar lines/,
      );
    });
  });

  it('refuses an ambiguous target with the count and line numbers; replace_all changes them all', async () => {
    await withTempDir(async (root) => {
      const { absolute, context } = await setUp(root, 'math.js', SOURCE);
      await rejectsWithCode(
        tool.execute({ path: 'math.js', old_string: '(a, b) {', new_string: '(x, y) {' }, context),
        'EDIT_TARGET_NOT_UNIQUE',
        /occurs 2 times in math\.js \(starting at lines 1, 5\).*replace_all/s,
      );
      assert.equal(await readFile(absolute, 'utf8'), SOURCE);
      const result = await tool.execute({ path: 'math.js', old_string: '(a, b) {', new_string: '(x, y) {', replace_all: true }, context);
      assert.equal(await readFile(absolute, 'utf8'), SOURCE.replaceAll('(a, b) {', '(x, y) {'));
      assert.match(result.output, /replaced 2 occurrences \(lines 1, 5\)/);
    });
  });

  it('round-trips a CRLF file: LF in the arguments, CRLF on disk, nothing mixed', async () => {
    await withTempDir(async (root) => {
      const crlf = SOURCE.replace(/\n/g, '\r\n');
      const { absolute, context } = await setUp(root, 'win.js', crlf);
      const result = await tool.execute(
        {
          path: 'win.js',
          old_string: 'function add(a, b) {\n  return a + b;\n}',
          new_string: 'function add(a, b) {\n  // sum\n  return a + b;\n}',
        },
        context,
      );
      const written = await readFile(absolute, 'utf8');
      assert.equal(written, crlf.replace('{\r\n  return a + b;', '{\r\n  // sum\r\n  return a + b;'));
      assert.equal(written.replace(/\r\n/g, '').includes('\n'), false);
      assert.doesNotMatch(result.output, /\r/);
      assert.match(result.output, /\+ {2}\/\/ sum/);
    });
  });

  it('keeps a byte-order mark and the endings of untouched lines in a mixed file', async () => {
    await withTempDir(async (root) => {
      const { absolute, context } = await setUp(root, 'mixed.txt', '\uFEFFone\r\ntwo\nthree\r\n');
      await tool.execute({ path: 'mixed.txt', old_string: 'two', new_string: 'TWO' }, context);
      assert.equal(await readFile(absolute, 'utf8'), '\uFEFFone\r\nTWO\nthree\r\n');
    });
  });

  it('refuses paths that escape the root and leaves everything untouched', async () => {
    await withTempDir(async (root) => {
      await withTempDir(async (outside) => {
        await writeFile(join(outside, 'secret.txt'), 'secret\n');
        const project = join(root, 'project');
        await mkdir(project);
        await symlink(outside, join(project, 'escape'));
        const context = makeWriteContext(project);
        await markRead(context, join(outside, 'secret.txt'));
        const edit = (path: string) => tool.execute({ path, old_string: 'secret', new_string: 'changed' }, context);
        await rejectsWithCode(edit('../secret.txt'), 'PATH_OUTSIDE_ROOT');
        await rejectsWithCode(edit(join(outside, 'secret.txt')), 'PATH_OUTSIDE_ROOT');
        await rejectsWithCode(edit('escape/secret.txt'), 'PATH_OUTSIDE_ROOT');
        assert.equal(await readFile(join(outside, 'secret.txt'), 'utf8'), 'secret\n');
        assert.deepEqual(await listTree(outside), ['secret.txt']);
        assert.deepEqual(await listTree(root), ['project', 'project/escape']);
      });
    });
  });

  it('honours an aborted signal before writing', async () => {
    await withTempDir(async (root) => {
      const controller = new AbortController();
      const absolute = join(root, 'a.txt');
      await writeFile(absolute, 'hello\n');
      const context = makeWriteContext(root, controller.signal);
      await markRead(context, absolute);
      controller.abort();
      await rejectsWithCode(tool.execute({ path: 'a.txt', old_string: 'hello', new_string: 'bye' }, context), 'ABORTED');
      assert.equal(await readFile(absolute, 'utf8'), 'hello\n');
      assert.deepEqual(await listTree(root), ['a.txt']);
    });
  });
});
