// Words of the workbench in real Chromium (issue 25 item 17): a tool call whose output no request
// ever carried (its turn stopped at --max-rounds) is worded as having run, as the transcript words
// it ("Searched for", never "Search for" beside it), and says its output was never sent rather than
// "not sent yet" forever; the run box labels the run id it shows.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startRun, useBrowser } from './browser-suite.js';

const { withWorkbench } = useBrowser();

describe('workbench tool rows and run box', () => {
  test('a grep stopped before its output was sent: "Searched for" everywhere, "never sent", a labelled run id', async () => {
    await withWorkbench(
      {
        maxRounds: 1,
        files: { 'notes.txt': 'TODO: buy milk\n' },
        script: [{ toolCalls: [{ name: 'grep', arguments: { pattern: 'TODO' } }] }],
      },
      async (page, workbench) => {
        await page.goto(workbench.url);
        await startRun(page, 'Find the TODOs');
        await page.locator('.run-status .status-pill', { hasText: 'Failed' }).waitFor();
        const runId = page.locator('.run-status .run-id');
        assert.match((await runId.textContent()) ?? '', /^Run [0-9a-f-]{8,}$/);

        const tool = page.locator('.trace-tool');
        await tool.waitFor();
        // The trace row settles from the session's records, which can land a moment after the status pill.
        await tool.locator('.trace-tool-phrase', { hasText: /^Searched for/ }).waitFor({ timeout: 10_000 });
        assert.match((await tool.locator('.trace-tool-phrase').textContent()) ?? '', /^Searched for/);
        assert.match((await tool.textContent()) ?? '', /output never sent \(the turn ended\)/);
        const text = (await page.locator('body').textContent()) ?? '';
        assert.doesNotMatch(text, /Search for/);
        assert.doesNotMatch(text, /not sent yet/);
      },
    );
  });
});
