// The Context chart in real Chromium (issue 25 item 16): its "compact at" line is the threshold the
// session ran with, which its turn_started records keep, not the one the server would use now (a
// session run with compactAt 60000 under `serve --compact-at 25000` showed "compact at 25k"). A
// session recorded before turns kept it falls back to the server's.

import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { runThroughApi, useBrowser } from './browser-suite.js';

const { withWorkbench } = useBrowser();

async function thresholdLabel(page: Page, origin: string, sessionId: string): Promise<string> {
  await page.goto(`${origin}/sessions/${sessionId}?tab=context`);
  const threshold = page.locator('.context-chart .chart-threshold text');
  await threshold.waitFor();
  return (await threshold.textContent())?.trim() ?? '';
}

describe('workbench context chart', () => {
  test("the threshold line is the session's own; an old session's is the server's", async () => {
    await withWorkbench(
      { compactAt: '25000', script: [{ text: 'Own threshold.' }, { text: 'Server threshold.' }] },
      async (page, workbench) => {
        const own = await runThroughApi(workbench, 'Run with its own threshold', { compactAt: '60000' });
        // The first visit signs in (the address carries the token).
        await page.goto(workbench.url);
        assert.equal(await thresholdLabel(page, workbench.origin, own), 'compact at 60k');

        // As a session file from before turns recorded their compaction limits.
        const old = await runThroughApi(workbench, 'Run as an old session', { compactAt: '60000' });
        const file = join(workbench.home, 'sessions', `${old}.jsonl`);
        const lines = (await readFile(file, 'utf8')).trim().split('\n');
        const stripped = lines.map((line) => {
          const record = JSON.parse(line) as Record<string, unknown>;
          if (record.type !== 'turn_started') return line;
          assert.ok(record.compaction !== undefined, 'a turn records its compaction limits');
          const { compaction: _compaction, ...rest } = record;
          return JSON.stringify(rest);
        });
        await writeFile(file, `${stripped.join('\n')}\n`);
        assert.equal(await thresholdLabel(page, workbench.origin, old), 'compact at 25k');
      },
    );
  });
});
