// The plan in the workbench, in real Chromium: each update_plan call shows its plan as a checklist
// under its line (open, not behind the call's details), live and again after a reload (folded
// from the session's records); a plan the tool refused shows none.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startRun, useBrowser } from './browser-suite.js';

const { withWorkbench } = useBrowser();

const steps = (statuses: string[]) =>
  ['Read the parser', 'Fix the off-by-one', 'Run the tests'].map((step, index) => ({ step, status: statuses[index] }));

describe('workbench plan checklist', () => {
  test('live and replayed, the checklist shows each step and its status', async () => {
    await withWorkbench(
      {
        script: [
          {
            toolCalls: [
              { name: 'update_plan', arguments: { explanation: 'Parser first', plan: steps(['in_progress', 'pending', 'pending']) } },
            ],
          },
          { toolCalls: [{ name: 'update_plan', arguments: { plan: steps(['in_progress', 'in_progress', 'pending']) } }] },
          { toolCalls: [{ name: 'update_plan', arguments: { plan: steps(['completed', 'in_progress', 'pending']) } }] },
          { text: 'Fixing it.' },
        ],
      },
      async (page, workbench) => {
        await page.goto(workbench.url);
        await startRun(page, 'Fix the parser');
        await page.locator('.run-status .status-pill', { hasText: 'Succeeded' }).waitFor();
        const check = async () => {
          const calls = page.locator('.tool-call');
          await calls.nth(2).locator('.plan-checklist').waitFor();
          assert.equal(await calls.count(), 3);
          const first = calls.nth(0).locator('.plan-step');
          assert.deepEqual(await first.evaluateAll((items) => items.map((item) => item.getAttribute('data-status'))), [
            'in_progress',
            'pending',
            'pending',
          ]);
          assert.equal(await calls.nth(0).locator('.plan-explanation').textContent(), 'Parser first');
          assert.equal(await calls.nth(1).locator('.plan-checklist').count(), 0, 'a refused plan shows no checklist');
          const last = calls.nth(2).locator('.plan-step');
          assert.deepEqual(await last.allTextContents(), [
            '✔done: Read the parser',
            '◐in progress: Fix the off-by-one',
            '□to do: Run the tests',
          ]);
          // The checklist is on the page without opening the call's details.
          assert.ok(await calls.nth(2).locator('.plan-in_progress').isVisible());
        };
        await check();
        await page.reload();
        await check();
      },
    );
  });
});
