// The file tools through an editor's files (ToolSessionState.editorFiles, which `glassbox acp`
// sets when the client offers fs/*): read_file and edit_file read the buffer, write_file and
// edit_file write into it and not the disk, and a path the path policy refuses ('..', absolute
// outside the root, a symlink out) never reaches the editor.

import assert from 'node:assert/strict';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createEditFileTool, createReadFileTool, createWriteFileTool, toolSessionState } from '../../src/tools/index.js';
import { withTempDir } from '../helpers/temp-dir.js';
import { callTool, makeWriteContext } from './tool-test-context.js';

function editorContext(root: string, buffers: Map<string, string>) {
  const context = makeWriteContext(root);
  const calls: string[] = [];
  toolSessionState(context).editorFiles = {
    read: async (path) => {
      calls.push(`read ${path}`);
      const text = buffers.get(path);
      if (text === undefined) throw new Error(`no buffer for ${path}`);
      return text;
    },
    write: async (path, content) => {
      calls.push(`write ${path}`);
      buffers.set(path, content);
    },
  };
  return { context, calls };
}

describe('file tools through the editor', () => {
  it('read_file shows the buffer; edit_file edits the buffer; write_file writes to the editor only', () =>
    withTempDir(async (base) => {
      const root = join(base, 'project');
      await mkdir(root);
      await writeFile(join(root, 'a.txt'), 'on disk\n');
      const buffers = new Map([[join(root, 'a.txt'), 'unsaved one\nunsaved two\n']]);
      const { context, calls } = editorContext(root, buffers);
      const shown = await callTool(createReadFileTool(), { path: 'a.txt', offset: 2 }, context);
      assert.match(shown, /2\tunsaved two/);
      assert.doesNotMatch(shown, /on disk|unsaved one/);
      await callTool(createEditFileTool(), { path: 'a.txt', old_string: 'unsaved two', new_string: 'edited' }, context);
      assert.equal(buffers.get(join(root, 'a.txt')), 'unsaved one\nedited\n');
      await callTool(createWriteFileTool(), { path: 'b.txt', content: 'new\n' }, context);
      assert.equal(buffers.get(join(root, 'b.txt')), 'new\n');
      assert.equal(await readFile(join(root, 'a.txt'), 'utf8'), 'on disk\n');
      await assert.rejects(readFile(join(root, 'b.txt')));
      assert.deepEqual(calls, [
        `read ${join(root, 'a.txt')}`,
        `read ${join(root, 'a.txt')}`,
        `write ${join(root, 'a.txt')}`,
        `write ${join(root, 'b.txt')}`,
      ]);
    }));

  it('refuses escapes before asking the editor', () =>
    withTempDir(async (base) => {
      const root = join(base, 'project');
      await mkdir(root);
      await writeFile(join(base, 'outside.txt'), 'secret\n');
      await symlink(join(base, 'outside.txt'), join(root, 'link.txt'));
      const { context, calls } = editorContext(root, new Map());
      for (const path of ['../outside.txt', join(base, 'outside.txt'), 'link.txt']) {
        await assert.rejects(createReadFileTool().execute({ path }, context));
        await assert.rejects(createWriteFileTool().execute({ path, content: 'x' }, context));
        await assert.rejects(createEditFileTool().execute({ path, old_string: 'secret', new_string: 'x' }, context));
      }
      assert.deepEqual(calls, []);
      assert.equal(await readFile(join(base, 'outside.txt'), 'utf8'), 'secret\n');
    }));
});
