// The trace and its prices in real Chromium, on a long scripted session (many rounds, several
// compactions, a denied approval): search and filters, a tool call followed to the request that
// carried its output, the diff of consecutive requests, summary calls with their rebuilt prompt,
// payloads fetched per call, tokens, cached share and price per call, turn and session.

import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { ScriptStep } from '../../src/testing/index.js';
import { runThroughApi, startRun, useBrowser, waitUntil } from './browser-suite.js';
import { screenshot, TOKEN } from './workbench-harness.js';

const { withWorkbench } = useBrowser();

/** The compactor's request, in the live form (the conversation and tools) or the transcript form. */
function isSummaryRequest(request: { rawBody: string }): boolean {
  return request.rawBody.includes('You are compacting the working history');
}

/** A turn of `rounds` tool rounds whose context grows until compactions (at 6000) kick in. */
function longTurn(rounds: number): ScriptStep[] {
  const steps: ScriptStep[] = [];
  for (let round = 1; round <= rounds; round++) {
    steps.push((request) =>
      isSummaryRequest(request)
        ? { text: `## Progress\n\nSummary number ${round}.`, usage: { input: 900, output: 40 } }
        : {
            toolCalls: [{ name: 'grep', arguments: { pattern: `needle${round}` } }],
            usage: { input: 2000 + round * 900, output: 30, cached: 1000 },
          },
    );
  }
  steps.push({ text: 'Finished the long turn.', usage: { input: 3000, output: 20, cached: 1500 } });
  return steps;
}

describe('workbench trace', () => {
  test('a long session: search, filters, tool → carrying request, diff, summary calls, price per call, turn and session', async () => {
    await withWorkbench(
      {
        compactAt: '6000',
        contextWindow: '10000',
        files: { 'a.txt': 'needle1 needle2\n' },
        script: longTurn(14),
        whenExhausted: (request) =>
          isSummaryRequest(request)
            ? { text: '## Progress\n\nMore.', usage: { input: 800, output: 30 } }
            : { text: 'Done.', usage: { input: 3000, output: 20 } },
      },
      async (page, workbench) => {
        // A price for the fake model (USD per million tokens), as a user would configure one.
        await writeFile(
          join(workbench.home, 'config.json'),
          JSON.stringify({
            models: { 'fake-model': { pricing: { inputPerMillion: 1, cachedInputPerMillion: 0.1, outputPerMillion: 4 } } },
          }),
        );
        const sessionId = await runThroughApi(workbench, 'Search for every needle');
        const light = (await (
          await fetch(`${workbench.origin}/api/sessions/${sessionId}/model-calls?payloads=none`, {
            headers: { authorization: `Bearer ${TOKEN}` },
          })
        ).json()) as {
          calls: Array<{ stage: string; request: unknown; costUsd: number | null }>;
        };
        assert.ok(light.calls.length >= 15, `${light.calls.length} calls`);
        assert.ok(light.calls.filter((call) => call.stage === 'compaction').length >= 3, 'at least three summary calls');
        assert.ok(
          light.calls.every((call) => call.request === null),
          'no payloads in the list',
        );
        assert.ok(
          light.calls.every((call) => call.costUsd !== null && call.costUsd > 0),
          'every call priced',
        );

        await page.goto(workbench.url);
        await page.goto(`${workbench.origin}/sessions/${sessionId}`);
        const totals = page.getByTestId('trace-totals');
        await totals.getByText(/\$0\.\d+/).waitFor();
        assert.match((await totals.textContent()) ?? '', /\d+ % cached/);
        assert.match(
          (await page.getByTestId('session-cost').textContent()) ?? '',
          /model calls · .* in \(\d+ % cached\) · .* out · \$0\.\d+/,
        );
        assert.match((await page.locator('.session-item').first().textContent()) ?? '', /tok \(\d+ % cached\) · \$0\.\d+/);
        await page
          .locator('.trace-turn', { hasText: 'Turn 1' })
          .getByText(/\$0\.\d+/)
          .waitFor();
        await screenshot(page, '30-trace');

        // Search finds the call whose request first carried needle7's tool output (and the one that asked).
        await page.getByRole('searchbox', { name: 'Search the trace' }).fill('needle7');
        await waitUntil(async () => {
          const found = await page.locator('.trace-call').count();
          return /matching/.test((await totals.textContent()) ?? '') && found >= 1 && found < 6;
        }, 'the search narrows the trace to the calls that asked for or first carried needle7');
        await page.getByRole('button', { name: 'Clear' }).click();
        await page.getByLabel('Stage').selectOption('compaction');
        await waitUntil(async () => (await page.locator('.trace-call').count()) >= 3, 'summary calls only');
        // The transcript, kept while a call is open, is where it was on the way back.
        const scroller = page.locator('.transcript-scroll');
        await scroller.evaluate((element) => {
          element.scrollTop = Math.floor((element.scrollHeight - element.clientHeight) / 2);
        });
        const place = await scroller.evaluate((element) => element.scrollTop);
        assert.ok(place > 0, 'the transcript scrolls');
        await page.locator('.trace-call').first().click();
        await page
          .locator('.call-view')
          .getByText(/Rebuilt from the history it summarised/)
          .waitFor();
        await page.locator('.call-view .request-message.role-system').first().waitFor();
        await page.locator('.call-view .markdown', { hasText: 'Summary number' }).waitFor();
        await screenshot(page, '31-summary-call');
        await page.getByRole('button', { name: 'Back to the transcript' }).click();
        await waitUntil(async () => (await scroller.evaluate((element) => element.scrollTop)) === place, 'back where the transcript was');
        await page.getByLabel('Stage').selectOption('all');

        // The first tool call links to the request that carried its output.
        const firstTool = page.locator('.trace-tool').first();
        await firstTool.getByRole('button', { name: 'output → #2' }).click();
        await page.locator('.call-view h1', { hasText: 'Model call #2' }).waitFor();
        await page.locator('.call-view .request-message.role-tool').first().waitFor();
        await page.getByRole('button', { name: 'Diff vs previous' }).click();
        const diff = page.getByTestId('request-diff');
        await diff.waitFor();
        assert.match((await diff.textContent()) ?? '', /Against call #1: \d+ messages? unchanged, 2 added/);
        await screenshot(page, '32-request-diff');

        // A request after a compaction says what it no longer sends.
        const calls = (await (
          await fetch(`${workbench.origin}/api/sessions/${sessionId}/model-calls?payloads=none`, {
            headers: { authorization: `Bearer ${TOKEN}` },
          })
        ).json()) as {
          calls: Array<{ index: number; stage: string }>;
        };
        const afterSummary = calls.calls.find(
          (call, index) => index > 0 && calls.calls[index - 1]!.stage === 'compaction' && call.stage === 'turn',
        );
        assert.ok(afterSummary);
        await page.goto(`${workbench.origin}/sessions/${sessionId}/calls/${afterSummary.index + 1}`);
        await page.getByRole('button', { name: 'Diff vs previous' }).click();
        await diff.getByText(/no longer sent/).waitFor();
        await page.locator('.request-message.diff-removed').first().waitFor();

        // j/k step through calls; Escape closes the call.
        await page.keyboard.press('j');
        await waitUntil(async () => new URL(page.url()).pathname.endsWith(`/calls/${afterSummary.index + 2}`), 'j opens the next call');
        await page.keyboard.press('Escape');
        await waitUntil(async () => new URL(page.url()).pathname === `/sessions/${sessionId}`, 'Escape closes the call');
      },
    );
  });

  test('errors filter, unknown price said so, and the context chart opens the call of a point', async () => {
    await withWorkbench(
      {
        whenExhausted: (request) =>
          request.rawBody.includes('Break')
            ? { fault: { kind: 'status', status: 400, message: 'Unsupported parameter: x' } }
            : { text: 'Fine.', usage: { input: 500, output: 10 } },
      },
      async (page, workbench) => {
        await page.goto(workbench.url);
        await startRun(page, 'All fine');
        await page.getByText(/Done in 1 round/).waitFor();
        await startRun(page, 'Break now');
        await page.locator('.turn-error').waitFor();
        await page.locator('.trace-call.has-error').waitFor();
        assert.match((await page.getByTestId('trace-totals').textContent()) ?? '', /price unknown/);
        await page.getByLabel('Errors').check();
        await waitUntil(async () => (await page.locator('.trace-call').count()) === 1, 'only the failed call');
        await page.getByLabel('Errors').uncheck();

        await page.getByRole('tab', { name: 'Context' }).click();
        const dot = page.locator('.context-chart circle.chart-dot').first();
        await dot.waitFor();
        await dot.hover();
        await page.getByTestId('chart-hover').getByText('Click to open call #1').waitFor();
        await screenshot(page, '33-chart-hover');
        await dot.click();
        await page.locator('.call-view h1', { hasText: 'Model call #1' }).waitFor();
      },
    );
  });
});
