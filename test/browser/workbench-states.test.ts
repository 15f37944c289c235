// What the workbench shows while something is under way, in real Chromium (issue 25 item 17): a
// trace search says "searching…" until its results arrive (it flashed "0 calls matching"), the
// session header keeps its token and cost line during a search, a cancel shows one state at a
// time (it showed Cancelled, "Cancelling…" and a running run at once), no axe-core finding of
// any impact (landmark-unique, page-has-heading-one, region and skip-link were moderate ones),
// and trace rows fit a 1,024 px wide window.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { ScriptStep } from '../../src/testing/index.js';
import { axeViolations, runThroughApi, startRun, useBrowser, waitUntil } from './browser-suite.js';
import { screenshot } from './workbench-harness.js';

const { withWorkbench } = useBrowser();

function greps(rounds: number): ScriptStep[] {
  const steps: ScriptStep[] = [];
  for (let round = 1; round <= rounds; round++)
    steps.push({
      toolCalls: [{ name: 'grep', arguments: { pattern: `needle${round}` } }],
      usage: { input: 1000 + round * 100, output: 20 },
    });
  steps.push({ text: 'Found them all.', usage: { input: 2500, output: 20 } });
  return steps;
}

/** Starts recording every text `selector` shows (each change, however brief) into `window[name]`. */
async function recordTexts(page: Page, selector: string, name: string): Promise<void> {
  // A string, not a function: tsx wraps named functions in a helper the page does not have.
  await page.evaluate(`(() => {
    const seen = [];
    window[${JSON.stringify(name)}] = seen;
    const note = () => {
      const text = document.querySelector(${JSON.stringify(selector)})?.textContent ?? '(absent)';
      if (seen.at(-1) !== text) seen.push(text);
    };
    note();
    new MutationObserver(note).observe(document.body, { subtree: true, childList: true, characterData: true });
  })()`);
}

async function recorded(page: Page, name: string): Promise<string[]> {
  return page.evaluate((name) => (window as unknown as Record<string, string[]>)[name] ?? [], name);
}

describe('workbench states', () => {
  test('a trace search says searching… until its results, and the header keeps its cost line', async () => {
    await withWorkbench({ files: { 'a.txt': 'needle1 needle2 needle3\n' }, script: greps(3) }, async (page, workbench) => {
      const sessionId = await runThroughApi(workbench, 'Find the needles');
      await page.goto(workbench.url);
      await page.goto(`${workbench.origin}/sessions/${sessionId}`);
      const totals = page.getByTestId('trace-totals');
      await totals.getByText(/^\(4 calls · /).waitFor();
      await page
        .getByTestId('session-cost')
        .getByText(/4 model calls · /)
        .waitFor();
      await recordTexts(page, '[data-testid="trace-totals"]', 'totals');
      await recordTexts(page, '[data-testid="session-cost"]', 'header');
      await page.getByRole('searchbox', { name: 'Search the trace' }).fill('needle2');
      await waitUntil(async () => /\d+ calls? matching/.test((await totals.textContent()) ?? ''), 'the search has its results');
      const totalsSeen = await recorded(page, 'totals');
      assert.ok(
        totalsSeen.some((text) => /searching…/.test(text)),
        `"searching…" shows while the search runs: ${JSON.stringify(totalsSeen)}`,
      );
      assert.deepEqual(
        totalsSeen.filter((text) => /^\(0 calls/.test(text)),
        [],
        'no "0 calls" before the results arrive',
      );
      assert.match(totalsSeen.at(-1) ?? '', /^\([1-3] calls? matching/);
      const headerSeen = await recorded(page, 'header');
      assert.deepEqual(
        headerSeen.filter((text) => !/4 model calls · .* in .* · .* out/.test(text)),
        [],
        'the header keeps its token and cost line during the search',
      );
      await page.getByRole('button', { name: 'Clear' }).click();
      await totals.getByText(/^\(4 calls · /).waitFor();
      assert.match((await page.getByTestId('session-cost').textContent()) ?? '', /4 model calls · /);
    });
  });

  test('a cancel shows one state at a time: cancelling, then cancelled, never beside a running run', async () => {
    await withWorkbench(
      { whenExhausted: (request) => (request.rawBody.includes('Hang here') ? { fault: { kind: 'hang' } } : { text: 'Fine.' }) },
      async (page, workbench) => {
        await page.goto(workbench.url);
        await startRun(page, 'Hang here');
        await page.getByText('Waiting for the model…').waitFor();
        await waitUntil(async () => new URL(page.url()).pathname.startsWith('/sessions/'), 'the session has its address');
        // Wait until the server's own list of runs says this one runs (the state a poll brings in).
        await waitUntil(
          async () => (await page.locator('.transcript-footer').getByRole('button', { name: 'Cancel' }).count()) === 1,
          'Cancel',
        );
        await page.evaluate(`(() => {
          const clashes = [];
          window.clashes = clashes;
          const check = () => {
            const cancelled = document.querySelector('.turn-cancelled') !== null;
            const cancelling = (document.body.textContent ?? '').includes('Cancelling…');
            const running =
              document.querySelector('.status-pill.status-running') !== null ||
              [...document.querySelectorAll('button')].some((button) => /^Cancel( run)?$/.test(button.textContent ?? ''));
            const states = [cancelled && 'cancelled', cancelling && 'cancelling', running && 'running'].filter(Boolean);
            if (states.length > 1) clashes.push(states.join(' + '));
          };
          new MutationObserver(check).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
        })()`);
        await page.locator('.transcript-footer').getByRole('button', { name: 'Cancel' }).click();
        await page.locator('.turn-cancelled').waitFor();
        await page.getByRole('button', { name: 'Continue this session' }).waitFor();
        // The next poll of the server's runs has come and gone, whatever it said.
        await waitUntil(
          async () =>
            (await page.evaluate(() => performance.getEntriesByType('resource').filter((e) => e.name.includes('/api/runs')).length)) >= 3,
          'two more polls of the runs',
        );
        await page.locator('.status-pill.status-cancelled').waitFor();
        const clashes = await page.evaluate(() => (window as unknown as { clashes: string[] }).clashes);
        assert.deepEqual([...new Set(clashes)], [], 'no two states shown at once');
      },
    );
  });

  test('no axe-core finding of any impact, and trace rows fit at 1,024 px', async () => {
    await withWorkbench(
      { files: { 'a.txt': 'needle1\n' }, script: greps(2) },
      async (page, workbench) => {
        await page.goto(workbench.url);
        await page.getByRole('heading', { name: 'New session' }).waitFor();
        const screens: Record<string, string[]> = {};
        const check = async (screen: string) => {
          const found = await axeViolations(page);
          if (found.length > 0)
            screens[screen] = found.map((violation) => `${violation.id} (${violation.impact}): ${violation.nodes.join(' ')}`);
        };
        await check('the empty workbench');
        await startRun(page, 'Find the needle in a file whose name is long enough to fill the row');
        await page.locator('.message.role-final', { hasText: 'Found them all.' }).waitFor();
        await page.locator('.trace-call').nth(2).waitFor();
        await check('a session with its trace');
        await screenshot(page, '60-trace-1024');

        const clipped = await page.evaluate(() => {
          const out: string[] = [];
          for (const row of document.querySelectorAll<HTMLElement>('.trace-call, .trace-turn, .trace-tool')) {
            const box = row.getBoundingClientRect();
            const list = row.closest('.virtual-list')?.getBoundingClientRect();
            if (row.scrollWidth > row.clientWidth + 1) out.push(`${row.className} overflows (${row.scrollWidth} > ${row.clientWidth})`);
            if (list !== undefined && box.right > list.right + 1) out.push(`${row.className} reaches past its list`);
            for (const child of row.children) {
              const part = child.getBoundingClientRect();
              if (part.width > 0 && (part.right > box.right + 1 || part.left < box.left - 1))
                out.push(`${row.className}: "${child.textContent}" is cut`);
            }
          }
          return out;
        });
        const clipping = clipped;

        await page.locator('.trace-call').first().click();
        await page.locator('.call-view .request-message').first().waitFor();
        await check('a model call');
        await page.getByRole('button', { name: 'Back to the transcript' }).click();
        for (const tab of ['Audit', 'Session', 'Context']) {
          await page.getByRole('tab', { name: new RegExp(tab) }).click();
          await page.getByRole('tabpanel').waitFor();
          await check(`the ${tab} tab`);
        }
        assert.deepEqual(screens, {}, 'axe-core findings');
        assert.deepEqual(clipping, [], 'trace rows clip at 1,024 px');
        // The skip links lead somewhere that exists and takes the focus.
        for (const link of await page.locator('.skip-link').all()) {
          const target = (await link.getAttribute('href'))?.slice(1) ?? '';
          assert.ok(await page.evaluate((id) => document.getElementById(id) !== null, target), `#${target} exists`);
        }
      },
      { size: { width: 1024, height: 768 } },
    );
  });
});
