// Keeping and removing sessions in real Chromium: a session is exported as the JSON lines of its
// file, and deleted only after a confirmation; the workbench offers no Delete while a run goes in
// the session, and shows the server's refusal when another process is writing to it.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { JsonlSessionStore } from '../../src/sessions/index.js';
import { assertAccessible, runThroughApi, startThroughApi, useBrowser, waitUntil } from './browser-suite.js';
import { screenshot, TOKEN } from './workbench-harness.js';

const { withWorkbench } = useBrowser();

describe('workbench sessions', () => {
  for (const scheme of ['light', 'dark'] as const) {
    test(`export downloads the JSONL; delete asks first, shows a refusal, then removes the session (${scheme})`, async () => {
      await withWorkbench(
        { script: [{ text: 'Kept answer.' }, { text: 'Doomed answer.' }] },
        async (page, workbench) => {
          const kept = await runThroughApi(workbench, 'A session to keep');
          const doomed = await runThroughApi(workbench, 'A session to delete');
          await page.goto(workbench.url);
          await page.goto(`${workbench.origin}/sessions/${doomed}`);
          await page.locator('.message.role-final', { hasText: 'Doomed answer.' }).waitFor();

          const download = page.waitForEvent('download');
          await page.getByRole('link', { name: 'Export JSONL' }).click();
          const file = await (await download).path();
          const lines = (await readFile(file, 'utf8')).trim().split('\n');
          const records = lines.map((line) => JSON.parse(line) as { type: string; sessionId?: string });
          assert.equal(records[0]!.type, 'session_meta');
          assert.equal(records[0]!.sessionId, doomed);
          assert.ok(records.some((record) => record.type === 'turn_completed'));

          // Another process writing to the session holds its lock: the server says no, nothing goes.
          const writer = await new JsonlSessionStore(join(workbench.home, 'sessions')).openForAppend(doomed);
          await page.getByRole('button', { name: 'Delete…' }).click();
          const dialog = page.getByRole('dialog', { name: 'Delete this session?' });
          await dialog.waitFor();
          assert.equal(
            await dialog.getByRole('button', { name: 'Keep it' }).evaluate((element) => element === document.activeElement),
            true,
          );
          await assertAccessible(page, `the delete confirmation (${scheme})`);
          await dialog.getByRole('button', { name: 'Delete session' }).click();
          await dialog
            .getByRole('alert')
            .filter({ hasText: /in use by pid/ })
            .waitFor();
          await screenshot(page, `60-delete-refused-${scheme}`);
          await writer.close();
          await page.keyboard.press('Escape');
          await dialog.waitFor({ state: 'hidden' });
          assert.equal(new URL(page.url()).pathname, `/sessions/${doomed}`, 'Keep leaves everything as it was');

          await page.getByRole('button', { name: 'Delete…' }).click();
          await dialog.getByRole('button', { name: 'Delete session' }).click();
          await waitUntil(async () => new URL(page.url()).pathname === '/', 'the workbench leaves the deleted session');
          await page.getByRole('status').filter({ hasText: 'Deleted the session “A session to delete”.' }).waitFor();
          await waitUntil(
            async () => (await page.locator(`.session-item[data-session-id="${doomed}"]`).count()) === 0,
            'the list no longer has it',
          );
          await page.locator(`.session-item[data-session-id="${kept}"]`).waitFor();
          await assertAccessible(page, `the workbench after a delete (${scheme})`);
          await screenshot(page, `61-deleted-${scheme}`);
          const gone = await fetch(`${workbench.origin}/api/sessions/${doomed}`, { headers: { authorization: `Bearer ${TOKEN}` } });
          assert.equal(gone.status, 404);
        },
        // The refused delete is a 409 the browser logs; the page itself shows it.
        { colorScheme: scheme, expectedErrors: /status of 409 \(Conflict\)/ },
      );
    });
  }

  test('no Delete while a run goes in the session', async () => {
    await withWorkbench(
      { whenExhausted: (request) => (request.rawBody.includes('Hang here') ? { fault: { kind: 'hang' } } : { text: 'Quick.' }) },
      async (page, workbench) => {
        const { sessionId, runId } = await startThroughApi(workbench, 'Hang here');
        await page.goto(workbench.url);
        await page.goto(`${workbench.origin}/sessions/${sessionId}`);
        await page.getByText('Waiting for the model…').waitFor();
        assert.equal(await page.getByRole('button', { name: 'Delete…' }).isDisabled(), true);
        const cancelled = await fetch(`${workbench.origin}/api/runs/${runId}/cancel`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body: '{}',
        });
        assert.equal(cancelled.status, 202);
        await page.locator('.turn-cancelled').waitFor();
        await waitUntil(async () => !(await page.getByRole('button', { name: 'Delete…' }).isDisabled()), 'Delete is offered again');
      },
    );
  });
});
