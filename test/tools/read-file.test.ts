import { toolSessionState } from '../../src/tools/index.js';
import assert from 'node:assert/strict';
import { mkdir, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { toolDefinition } from '../../src/agent/index.js';
import { createReadFileTool, createReadOnlyTools } from '../../src/tools/index.js';
import { withTempDir } from '../helpers/temp-dir.js';
import { callTool, expectToolError, makeContext } from './tool-test-context.js';

const tool = createReadFileTool();

function numbered(lines: string[], first = 1): string {
  return lines.map((line, index) => `${String(first + index).padStart(6)}\t${line}`).join('\n');
}

/** Line number → text for every numbered line of an output. */
function parseNumbered(output: string): Map<number, string> {
  const lines = new Map<number, string>();
  for (const line of output.split('\n')) {
    const match = /^ *(\d+)\t(.*)$/.exec(line);
    if (match) lines.set(Number(match[1]), match[2]!);
  }
  return lines;
}

function nextOffset(output: string): number | null {
  const match = /Continue with offset=(\d+)\.\]$/.exec(output);
  return match ? Number(match[1]) : null;
}

describe('read_file', () => {
  it('numbers lines and shows a short file whole, without a hint', async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, 'a.txt'), 'alpha\nbeta\n\tgamma\n');
      const output = await callTool(tool, { path: 'a.txt' }, makeContext(root));
      assert.equal(output, numbered(['alpha', 'beta', '\tgamma']));
    });
  });

  it('counts a last line without a trailing newline, and a lone newline as one empty line', async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, 'a.txt'), 'one\ntwo');
      await writeFile(join(root, 'b.txt'), '\n');
      assert.equal(await callTool(tool, { path: 'a.txt' }, makeContext(root)), numbered(['one', 'two']));
      assert.equal(await callTool(tool, { path: 'b.txt' }, makeContext(root)), numbered(['']));
    });
  });

  it('honours offset and limit and names the exact next offset', async () => {
    await withTempDir(async (root) => {
      const lines = Array.from({ length: 10 }, (_, index) => `line ${index + 1}`);
      await writeFile(join(root, 'ten.txt'), `${lines.join('\n')}\n`);
      const middle = await callTool(tool, { path: 'ten.txt', offset: 3, limit: 4 }, makeContext(root));
      assert.equal(middle, `${numbered(lines.slice(2, 6), 3)}\n\n[Showing lines 3-6 of 10. Continue with offset=7.]`);
      const tail = await callTool(tool, { path: 'ten.txt', offset: 8 }, makeContext(root));
      assert.equal(tail, `${numbered(lines.slice(7), 8)}\n\n[Showing lines 8-10 of 10.]`);
      const last = await callTool(tool, { path: 'ten.txt', offset: 10, limit: 5 }, makeContext(root));
      assert.equal(last, `${numbered(['line 10'], 10)}\n\n[Showing lines 10-10 of 10.]`);
    });
  });

  it('shows 2000 lines by default', async () => {
    await withTempDir(async (root) => {
      const lines = Array.from({ length: 2500 }, (_, index) => `${index + 1}`);
      await writeFile(join(root, 'many.txt'), lines.join('\n'));
      const output = await callTool(tool, { path: 'many.txt' }, makeContext(root));
      const shown = parseNumbered(output);
      assert.equal(shown.size, 2000);
      assert.equal(shown.get(2000), '2000');
      assert.ok(output.endsWith('[Showing lines 1-2000 of 2500. Continue with offset=2001.]'));
    });
  });

  it('caps output at 50 KB on whole lines and the hints walk the file without skipping a line', async () => {
    await withTempDir(async (root) => {
      // Lines of varying length, some clipped, so the byte cap falls at uneven places.
      const lines = Array.from({ length: 300 }, (_, index) => `${index + 1}:`.padEnd(200 + ((index * 997) % 2600), 'x'));
      await writeFile(join(root, 'wide.txt'), `${lines.join('\n')}\n`);
      const seen = new Map<number, string>();
      let offset: number | null = 1;
      let calls = 0;
      while (offset !== null) {
        const output: string = await callTool(tool, { path: 'wide.txt', offset }, makeContext(root));
        calls += 1;
        assert.ok(Buffer.byteLength(output) <= 50 * 1024, `output of ${Buffer.byteLength(output)} bytes`);
        const shown = parseNumbered(output);
        assert.equal(Math.min(...shown.keys()), offset, 'each call starts exactly at the offset asked for');
        for (const [number, text] of shown) seen.set(number, text);
        offset = nextOffset(output);
        if (offset !== null) {
          assert.equal(offset, Math.max(...shown.keys()) + 1);
          assert.match(output, /output limit of 50 KB reached/);
        }
      }
      assert.ok(calls > 3, `the cap must have split the file (${calls} calls)`);
      assert.deepEqual(
        [...seen.keys()].sort((a, b) => a - b),
        lines.map((_, index) => index + 1),
      );
      for (const [number, text] of seen) {
        const original = lines[number - 1]!;
        if (original.length <= 2000) assert.equal(text, original);
        else assert.equal(text, `${original.slice(0, 2000)}... [line truncated: ${original.length} bytes in full]`);
      }
    });
  });

  it('clips a huge single line instead of reading it whole into the output', async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, 'min.js'), `${'a'.repeat(3_000_000)}\nend\n`);
      const output = await callTool(tool, { path: 'min.js' }, makeContext(root));
      assert.equal(output, numbered([`${'a'.repeat(2000)}... [line truncated: 3000000 bytes in full]`, 'end']));
    });
  });

  it('notes an empty file and refuses an offset past the end', async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, 'empty.txt'), '');
      await writeFile(join(root, 'three.txt'), 'a\nb\nc\n');
      assert.equal(await callTool(tool, { path: 'empty.txt' }, makeContext(root)), '(empty file)');
      const message = await expectToolError(tool, { path: 'three.txt', offset: 4 }, makeContext(root), 'OFFSET_OUT_OF_RANGE');
      assert.match(message, /has 3 lines/);
    });
  });

  it('shows CRLF lines without the carriage return and says so', async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, 'win.txt'), 'one\r\ntwo\r\n');
      const output = await callTool(tool, { path: 'win.txt' }, makeContext(root));
      assert.ok(!output.includes('\r'));
      assert.equal(output, `${numbered(['one', 'two'])}\n\n[The file uses CRLF line endings; lines are shown without the \\r.]`);
    });
  });

  it('hides a UTF-8 byte order mark and refuses UTF-16', async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, 'bom.txt'), '\uFEFFfirst\nsecond\n');
      await writeFile(join(root, 'wide.txt'), Buffer.from('\uFEFFhello\n', 'utf16le'));
      assert.equal(await callTool(tool, { path: 'bom.txt' }, makeContext(root)), numbered(['first', 'second']));
      assert.match(await expectToolError(tool, { path: 'wide.txt' }, makeContext(root), 'BINARY_FILE'), /UTF-16/);
    });
  });

  it('refuses binary files, directories, special names and missing files with clear codes', async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, 'blob.bin2'), Buffer.from([0x48, 0x69, 0x00, 0x01, 0x02]));
      await writeFile(join(root, 'picture.png'), 'not really a png, but the extension says binary');
      await mkdir(join(root, 'src'));
      await expectToolError(tool, { path: 'blob.bin2' }, makeContext(root), 'BINARY_FILE');
      await expectToolError(tool, { path: 'picture.png' }, makeContext(root), 'BINARY_FILE');
      assert.match(await expectToolError(tool, { path: 'src' }, makeContext(root), 'IS_A_DIRECTORY'), /list_dir/);
      await expectToolError(tool, { path: 'missing.txt' }, makeContext(root), 'PATH_NOT_FOUND');
    });
  });

  it('refuses paths that leave the root, including through a symlink', async () => {
    await withTempDir(async (outside) => {
      await withTempDir(async (root) => {
        await writeFile(join(outside, 'secret.txt'), 'secret\n');
        await symlink(join(outside, 'secret.txt'), join(root, 'leak.txt'));
        await symlink(outside, join(root, 'leakdir'));
        const context = makeContext(root);
        await expectToolError(tool, { path: '../secret.txt' }, context, 'PATH_OUTSIDE_ROOT');
        await expectToolError(tool, { path: '/etc/passwd' }, context, 'PATH_OUTSIDE_ROOT');
        await expectToolError(tool, { path: 'leak.txt' }, context, 'PATH_OUTSIDE_ROOT');
        await expectToolError(tool, { path: 'leakdir/secret.txt' }, context, 'PATH_OUTSIDE_ROOT');
        assert.equal(toolSessionState(context).fileStamps.size, 0);
      });
    });
  });

  it('follows a symlink that stays inside and records the real file stamp', async () => {
    await withTempDir(async (root) => {
      await mkdir(join(root, 'src'));
      await writeFile(join(root, 'src', 'real.txt'), 'hello\n');
      await symlink('src/real.txt', join(root, 'alias.txt'));
      const context = makeContext(root);
      assert.equal(await callTool(tool, { path: 'alias.txt' }, context), numbered(['hello']));
      const info = await stat(join(root, 'src', 'real.txt'));
      assert.deepEqual(toolSessionState(context).fileStamps.get(join(root, 'src', 'real.txt')), { mtimeMs: info.mtimeMs, size: 6 });
    });
  });

  it('declares the lexically resolved path it reads', () => {
    assert.deepEqual(tool.access({ path: 'src/../a.txt' }, { root: '/project' }), { kind: 'read', paths: ['/project/a.txt'] });
  });

  it('stops when the call is aborted', async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, 'big.txt'), 'line\n'.repeat(200_000));
      const controller = new AbortController();
      const context = makeContext(root, controller.signal);
      const pending = tool.execute({ path: 'big.txt' }, context);
      controller.abort();
      await assert.rejects(pending, (error: Error) => error.name === 'AbortError');
      assert.equal(toolSessionState(context).fileStamps.size, 0);
    });
  });

  it('has a short model-facing description', () => {
    assert.ok(tool.description.length > 100 && tool.description.length < 800);
  });

  it('is one of the four read-only tools, whose definitions stay small', () => {
    const tools = createReadOnlyTools();
    assert.deepEqual(
      tools.map((each) => each.name),
      ['read_file', 'list_dir', 'glob', 'grep'],
    );
    assert.ok(tools.every((each) => each.readOnly && !each.strict));
    const definitions = tools.map(toolDefinition);
    assert.deepEqual(definitions[0]!.parameters.required, ['path']);
    assert.ok(JSON.stringify(definitions).length < 3500, `${JSON.stringify(definitions).length} characters`);
  });
});
