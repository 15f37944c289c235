// Approval cards in real Chromium show what approving would do to the files on disk: the server
// dry-runs write_file, edit_file and apply_patch against the project and the card shows a diff per
// file under its project-relative path (also when the model named an absolute path), or why the
// call would fail. The browser reads no file itself.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { assertAccessible, startRun, useBrowser } from './browser-suite.js';
import { screenshot } from './workbench-harness.js';

const { withWorkbench } = useBrowser();

const NOTES = '# Notes\n\nold line\nkept\n';

async function diffOf(page: Page): Promise<{ paths: string[]; note: string; lines: string[] }> {
  const card = page.locator('.approval-card');
  await card.locator('.diff-lines').waitFor();
  return {
    paths: await card.locator('.diff-path').allTextContents(),
    note: (await card.locator('.diff-paths .muted').textContent()) ?? '',
    lines: (await card.locator('.diff-line').allTextContents()).map((line) => line.replace(/\n$/, '')),
  };
}

describe('approval diffs', () => {
  for (const scheme of ['light', 'dark'] as const) {
    test(`write, edit and patch approvals show the diff against the file on disk (${scheme})`, async () => {
      let root = '';
      await withWorkbench(
        {
          sandbox: 'workspace-write',
          files: { 'notes.md': NOTES, 'src/app.ts': 'const a = 1;\nconst b = 2;\n' },
          whenExhausted: (request) => {
            // One call per round, in this order; the answers come back as tool outputs.
            const rounds = (request.rawBody.match(/"role":"tool"/g) ?? []).length;
            if (rounds === 0) {
              return {
                toolCalls: [{ name: 'write_file', arguments: { path: join(root, 'notes.md'), content: '# Notes\n\nnew line\nkept\n' } }],
              };
            }
            if (rounds === 1)
              return { toolCalls: [{ name: 'edit_file', arguments: { path: 'src/app.ts', old_string: 'nowhere', new_string: 'x' } }] };
            if (rounds === 2) {
              const patch =
                '*** Begin Patch\n*** Update File: src/app.ts\n@@\n-const b = 2;\n+const b = 3;\n*** Add File: src/new.ts\n+export {};\n*** End Patch';
              return { toolCalls: [{ name: 'apply_patch', arguments: { patch } }] };
            }
            return { text: 'All asked.' };
          },
        },
        async (page, workbench) => {
          root = workbench.root;
          await page.goto(workbench.url);
          await startRun(page, 'Change the files', { approvalPolicy: 'untrusted', sandbox: 'workspace-write' });

          const write = await diffOf(page);
          assert.deepEqual(write.paths, ['notes.md'], 'the absolute path is shown relative to the project');
          assert.match(write.note, /Against the file on disk now/);
          assert.match((await page.locator('.tool-call .phrase').first().textContent()) ?? '', /^Write notes\.md — awaiting approval/);
          assert.equal(await page.locator('.waiting-summary').textContent(), 'write_file: write notes.md');
          assert.deepEqual(write.lines, ['update notes.md', '@@ -1,4 +1,4 @@', ' # Notes', ' ', '-old line', '+new line', ' kept']);
          await assertAccessible(page, `a write approval with its diff (${scheme})`);
          await screenshot(page, `62-approval-write-diff-${scheme}`);
          await page.locator('.approval-card').getByRole('button', { name: 'Approve', exact: true }).click();

          // The edit would fail: its card says why instead of showing a diff.
          const failing = page.locator('.approval-card', {
            hasText: 'As it stands the call will fail: old_string is not in src/app.ts as given',
          });
          await failing.waitFor();
          assert.equal(await failing.locator('.diff-line').count(), 0);
          await page.locator('.approval-card').getByRole('button', { name: 'Deny' }).click();

          await page.locator('.approval-card .diff-path', { hasText: 'src/new.ts' }).waitFor();
          const patch = await diffOf(page);
          assert.deepEqual(patch.paths, ['src/app.ts', 'src/new.ts']);
          assert.deepEqual(patch.lines, [
            'update src/app.ts',
            '@@ -1,2 +1,2 @@',
            ' const a = 1;',
            '-const b = 2;',
            '+const b = 3;',
            'new file src/new.ts',
            '@@ -1,0 +1,1 @@',
            '+export {};',
          ]);
          await screenshot(page, `63-approval-patch-diff-${scheme}`);
          await page.locator('.approval-card').getByRole('button', { name: 'Deny' }).click();
          await page.locator('.message.role-final', { hasText: 'All asked.' }).waitFor();
        },
        { colorScheme: scheme },
      );
    });
  }
});
