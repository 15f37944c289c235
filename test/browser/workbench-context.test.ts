// The Context chart in real Chromium (issue 25 item 16): its "compact at" line is the threshold the
// session ran with, which its turn_started records keep, not the one the server would use now (a
// session run with compactAt 60000 under `serve --compact-at 25000` showed "compact at 25k"). A
// session recorded before turns kept it falls back to the server's. The Context view also says
// what skills cost (issue 27): the list on every request and each loaded skill, with the figures
// the terminal's /status computes (views/'s skillContextCost).

import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { skillContextCost } from '../../src/views/index.js';
import { runThroughApi, useBrowser } from './browser-suite.js';
import { TOKEN } from './workbench-harness.js';

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

  test('the Context view shows what the skill list and each loaded skill cost, as /status computes it', async () => {
    const body = `REVIEW-BODY: ${'read the checklist, then look for missing tests. '.repeat(40)}`;
    await withWorkbench(
      {
        files: {
          '.agents/skills/review/SKILL.md': `---\nname: review\ndescription: Review a change against the house checklist.\n---\n${body}\n`,
          '.agents/skills/deploy/SKILL.md': '---\nname: deploy\ndescription: Deploy the service to staging.\n---\nDEPLOY-BODY\n',
        },
        script: [{ toolCalls: [{ name: 'skill', arguments: { name: 'review' } }] }, { text: 'Reviewed.' }],
      },
      async (page, workbench) => {
        const sessionId = await runThroughApi(workbench, 'Review my change');
        // The figures /status shows, from the same reading over the session's history.
        const records = (await (
          await fetch(`${workbench.origin}/api/sessions/${sessionId}?limit=500`, { headers: { authorization: `Bearer ${TOKEN}` } })
        ).json()) as { records: Array<{ record: { type: string; item?: unknown } }> };
        const items = records.records.flatMap(({ record }) => (record.type === 'response_item' ? [record.item] : []));
        const expected = skillContextCost(items as Parameters<typeof skillContextCost>[0]);
        assert.equal(expected.listed, 2);
        assert.equal(expected.loaded.length, 1);
        assert.ok(expected.loaded[0]!.tokens > 400, String(expected.loaded[0]!.tokens));

        await page.goto(workbench.url);
        await page.goto(`${workbench.origin}/sessions/${sessionId}?tab=context`);
        const cost = page.getByTestId('skill-cost');
        await cost.waitFor();
        const rows = (await cost.locator('tr').allTextContents()).map((row) => row.replace(/\s+/g, ' ').trim());
        const k = (tokens: number) => (tokens >= 1000 ? `${(tokens / 1000).toFixed(1).replace(/\.0$/, '')}k` : String(tokens));
        assert.deepEqual(rows, [
          `Skill list (2 listed, on every request)~${k(expected.listTokens)}`,
          `Loaded: review~${k(expected.loaded[0]!.tokens)}`,
        ]);
        assert.match((await cost.textContent()) ?? '', /~[\d.]+k? tokens in all/);
      },
    );
  });
});
