// Robustness in real Chromium: the server stops and restarts while the page is open (banner,
// automatic reconnect, the session still shown); text streaming when a run is cancelled stays,
// marked as not sent, also after a reload.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runThroughApi, startRun, useBrowser, waitUntil } from './browser-suite.js';
import { openPage, screenshot, startWorkbench } from './workbench-harness.js';

const suite = useBrowser();

describe('workbench robustness', () => {
  test('server stop and restart: an offline banner, then reconnect on its own with the session still open', async () => {
    const first = await startWorkbench({ webRoot: suite.webRoot(), keepFiles: true, script: [{ text: 'Before the restart.' }] });
    const { context, page } = await openPage(suite.browser());
    let second: Awaited<ReturnType<typeof startWorkbench>> | null = null;
    try {
      const sessionId = await runThroughApi(first, 'Survive a restart');
      await page.goto(first.url);
      await page.goto(`${first.origin}/sessions/${sessionId}`);
      await page.locator('.message.role-final', { hasText: 'Before the restart.' }).waitFor();
      await first.close();
      // Any request now fails: the next poll (approvals, every 1.5 s) finds out.
      const banner = page.getByRole('alert').filter({ hasText: 'cannot be reached' });
      await banner.waitFor({ timeout: 10_000 });
      await screenshot(page, '50-offline');
      second = await startWorkbench({
        webRoot: suite.webRoot(),
        base: first.base,
        port: first.port,
        script: [{ text: 'After the restart.' }],
      });
      await waitUntil(async () => (await banner.count()) === 0, 'the banner goes once the server answers', 15_000);
      await page.locator('.message.role-final', { hasText: 'Before the restart.' }).waitFor();
      await startRun(page, 'Still there?');
      await page.locator('.message.role-final', { hasText: 'After the restart.' }).waitFor();
    } finally {
      await context.close();
      await second?.close();
    }
  });

  test('cancelled while streaming: the partial text stays, marked as not sent, after a reload too', async () => {
    await suite.withWorkbench(
      {
        script: [
          { text: 'A long answer that streams slowly, word by word, until someone cancels it.'.repeat(4), chunkSize: 3, chunkDelayMs: 60 },
        ],
      },
      async (page, workbench) => {
        await page.goto(workbench.url);
        await startRun(page, 'Write slowly');
        // Cancel mid-answer: once some of it has streamed, long before all of it has.
        await page.locator('.message.role-streaming', { hasText: 'A long answer' }).waitFor();
        await page.locator('.transcript-footer').getByRole('button', { name: 'Cancel' }).click();
        await page.locator('.turn-cancelled').waitFor();
        const partial = page.locator('.message.role-partial');
        await partial.getByText('Not sent').waitFor();
        assert.match((await partial.textContent()) ?? '', /A long answer/);
        await screenshot(page, '51-partial-on-cancel');
        await page.reload();
        await page.locator('.turn-cancelled').waitFor();
        await partial.getByText('Not sent').waitFor();
        assert.match((await partial.textContent()) ?? '', /A long answer/);
      },
    );
  });
});
