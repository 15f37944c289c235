// The approval preview of a change to a secret file, in the terminal and from the server: one
// builder (tools/'s dry run), so neither shows what the file holds now. A real `.env` holds a
// canary secret; every way to change it is previewed, and the canary must appear nowhere, while
// what the call would write is shown.

import assert from 'node:assert/strict';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { previewChange } from '../../src/runner/index.js';
import { buildApprovalPreview } from '../../src/tui/approval-preview.js';
import type { AnyTool } from '../../src/agent/index.js';
import { createApplyPatchTool, createEditFileTool, createReadFileTool, createWriteFileTool } from '../../src/tools/index.js';
import { withTempDir } from '../helpers/temp-dir.js';
import { makeWriteContext } from '../tools/tool-test-context.js';

const CANARY = 'sk-live-0123456789canary';

const CALLS: Array<[string, string, Record<string, unknown>]> = [
  ['write .env', 'write_file', { path: '.env', content: 'API_KEY=sk-new-value\nDEBUG=1\n' }],
  ['edit .env', 'edit_file', { path: '.env', old_string: 'DEBUG=0', new_string: 'DEBUG=1' }],
  ['edit .env, replace_all', 'edit_file', { path: '.env', old_string: '=', new_string: ' = ', replace_all: true }],
  ['write .env through a link', 'write_file', { path: 'settings.txt', content: 'API_KEY=sk-new-value\n' }],
  ['write nested .env.local', 'write_file', { path: 'app/.env.local', content: 'TOKEN=new\n' }],
  ['patch .env', 'apply_patch', { patch: '*** Begin Patch\n*** Update File: .env\n@@\n-DEBUG=0\n+DEBUG=1\n*** End Patch' }],
  ['delete .env', 'apply_patch', { patch: '*** Begin Patch\n*** Delete File: .env\n*** End Patch' }],
  [
    'move .env',
    'apply_patch',
    { patch: '*** Begin Patch\n*** Update File: .env\n*** Move to: env.txt\n@@\n-DEBUG=0\n+DEBUG=1\n*** End Patch' },
  ],
];

describe('previews of a change to a secret file', () => {
  test('neither the terminal nor the server preview shows what .env holds; both show what the call writes', async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, '.env'), `API_KEY=${CANARY}\nDEBUG=0\nOTHER=${CANARY}-2\n`);
      await mkdir(join(root, 'app'));
      await writeFile(join(root, 'app', '.env.local'), `TOKEN=${CANARY}\n`);
      await symlink('.env', join(root, 'settings.txt'));
      for (const [label, tool, args] of CALLS) {
        const raw = JSON.stringify(args);
        const [terminal, server] = await Promise.all([buildApprovalPreview(tool, raw, root), previewChange(tool, raw, root)]);
        const terminalText = terminal.lines.join('\n');
        const serverText = JSON.stringify(server);
        assert.ok(!terminalText.includes(CANARY), `${label}: terminal preview shows the secret:\n${terminalText}`);
        assert.ok(!serverText.includes(CANARY), `${label}: server preview shows the secret: ${serverText}`);
        // Still a preview: the file, why its content is not shown, and the lines the call adds.
        assert.equal(terminal.kind, 'diff');
        assert.match(terminalText, /is a secret file: only the lines the call adds are shown/, label);
        assert.match(server?.problem ?? '', /is a secret file/, label);
        const added = server!.files.flatMap((file) => file.lines.filter((line) => line.kind === 'add').map((line) => `+${line.text}`));
        for (const line of added) assert.ok(terminal.lines.includes(line), `${label}: ${line} missing from\n${terminalText}`);
      }
    });
  });

  test('the terminal renders the server preview line for line, for an ordinary file too', async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, 'a.txt'), 'one\ntwo\nthree\n');
      const raw = JSON.stringify({ path: 'a.txt', content: 'one\n2\nthree\n' });
      const [terminal, server] = await Promise.all([buildApprovalPreview('write_file', raw, root), previewChange('write_file', raw, root)]);
      assert.deepEqual(server?.files[0]?.lines, [
        { kind: 'hunk', text: '@@ -1,3 +1,3 @@' },
        { kind: 'ctx', text: 'one' },
        { kind: 'del', text: 'two' },
        { kind: 'add', text: '2' },
        { kind: 'ctx', text: 'three' },
      ]);
      assert.deepEqual(terminal.lines, ['--- a.txt', '@@ -1,3 +1,3 @@', ' one', '-two', '+2', ' three']);
    });
  });

  test('a call that would fail shows why, and what it asks for from its arguments alone', async () => {
    await withTempDir(async (root) => {
      await writeFile(join(root, '.env'), `API_KEY=${CANARY}\n`);
      const raw = JSON.stringify({ path: '.env', old_string: 'MISSING=1', new_string: 'MISSING=2' });
      const [terminal, server] = await Promise.all([buildApprovalPreview('edit_file', raw, root), previewChange('edit_file', raw, root)]);
      assert.deepEqual(server, { files: [], problem: 'old_string is not in .env as given; the edit will fail.' });
      assert.deepEqual(terminal.lines, [
        '(old_string is not in .env as given; the edit will fail.)',
        'what the call asks for:',
        '-MISSING=1',
        '+MISSING=2',
      ]);
    });
  });

  // What the write tools tell the model after (or instead of) changing a secret file: the
  // previous content was in write_file's and apply_patch's diffs (removed and context lines),
  // an edit's added lines, and the near misses quoted by a failed edit or hunk.
  test('the write tools never tell the model what a secret file held', async () => {
    await withTempDir(async (root) => {
      const context = makeWriteContext(root);
      const outputs: string[] = [];
      const run = async (tool: AnyTool, args: unknown) => {
        await writeFile(join(root, '.env'), `API_KEY=${CANARY}\nDEBUG=0\nOTHER=${CANARY}-2\n`);
        // An edit needs the file read first (its stamp); that read was approved, this is not it.
        await createReadFileTool().execute({ path: '.env' }, context);
        outputs.push(
          await tool.execute(args, context).then(
            (result) => result.output,
            (error: Error) => error.message,
          ),
        );
      };
      await run(createWriteFileTool(), { path: '.env', content: 'API_KEY=sk-new\nDEBUG=1\n' });
      await run(createEditFileTool(), { path: '.env', old_string: 'DEBUG=0', new_string: 'DEBUG=1' });
      await run(createEditFileTool(), { path: '.env', old_string: `API_KEY=${CANARY.slice(0, -1)}X`, new_string: 'x' });
      await run(createApplyPatchTool(), { patch: '*** Begin Patch\n*** Update File: .env\n@@\n-DEBUG=0\n+DEBUG=1\n*** End Patch' });
      await run(createApplyPatchTool(), {
        patch: `*** Begin Patch\n*** Update File: .env\n@@\n-API_KEY=${CANARY.slice(0, -1)}X\n+API_KEY=new\n*** End Patch`,
      });
      for (const output of outputs) assert.ok(!output.includes(CANARY), output);
      assert.match(outputs[0]!, /\+API_KEY=sk-new\n\+DEBUG=1/);
      assert.match(outputs[1]!, /^Edited \.env: replaced 1 occurrence at line 2\. It is a secret file: no diff is shown\.$/);
      assert.match(outputs[2]!, /old_string was not found in \.env as given \(a secret file: no lines of it are quoted\)/);
      assert.match(outputs[3]!, /\+DEBUG=1/);
      assert.match(outputs[4]!, /\.env is a secret file: no lines of it are quoted/);
    });
  });
});
