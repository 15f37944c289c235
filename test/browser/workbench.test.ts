// The workbench in real Chromium against a real `glassbox serve` (in process) and the scripted
// fake provider. Run with: node --import tsx --test test/browser/workbench.test.ts
// Screenshots of each screen land in test/browser/artifacts/.

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { assertAccessible, runThroughApi, startRun, useBrowser, waitUntil } from './browser-suite.js';
import { screenshot } from './workbench-harness.js';

const { withWorkbench } = useBrowser();

describe('workbench', () => {
  test('runs a task end to end: tools as phrases, the streamed answer as Markdown', async () => {
    const answer = [
      '# Summary',
      '',
      'This project prints **hello**.',
      '',
      '```ts',
      'const greeting: string = "hello";',
      '```',
      '',
      '| file | lines |',
      '|---|---|',
      '| README.md | 1 |',
    ].join('\n');
    await withWorkbench(
      {
        files: { 'README.md': 'hello world\n' },
        script: [
          {
            text: 'Let me look around.',
            toolCalls: [
              { name: 'read_file', arguments: { path: 'README.md' } },
              { name: 'grep', arguments: { pattern: 'hello' } },
            ],
          },
          { text: answer, chunkSize: 4, chunkDelayMs: 25 },
        ],
      },
      async (page, workbench) => {
        await page.goto(workbench.url);
        await page.getByRole('heading', { name: 'New session' }).waitFor();
        await screenshot(page, '01-empty');
        await startRun(page, 'What is this project?');

        // Streaming: the answer grows in a streaming block before it becomes the final answer.
        await page.locator('.message.role-streaming').first().waitFor();
        await screenshot(page, '02-streaming');
        const answerBlock = page.locator('.message.role-final');
        await answerBlock.getByRole('heading', { name: 'Summary' }).waitFor();
        await page.getByText(/Done in 2 rounds/).waitFor();

        await assert.doesNotReject(answerBlock.locator('strong', { hasText: 'hello' }).waitFor());
        assert.ok((await answerBlock.locator('pre code .hljs-keyword').count()) > 0, 'code is highlighted');
        assert.equal(await answerBlock.locator('table td').first().textContent(), 'README.md');
        assert.equal(await page.locator('.message.role-streaming').count(), 0);

        const calls = page.locator('.tool-call');
        assert.deepEqual(await calls.locator('.phrase').allTextContents(), ['Read README.md', 'Searched for “hello”']);
        await calls.first().locator('> details > summary').click();
        assert.match((await calls.first().locator('.tool-output').textContent()) ?? '', /hello world/);
        await screenshot(page, '03-answer');

        // The session appears in the list, and the inspector shows the requests as sent.
        await page.locator('.session-item', { hasText: 'What is this project?' }).waitFor();
        await page.locator('.trace-call').nth(1).waitFor();
        await screenshot(page, '04-debug');
        await page.locator('.trace-call').first().click();
        await page.locator('.call-view .request-message.role-user').first().waitFor();
        assert.match((await page.locator('.call-view .request-message.role-user').first().textContent()) ?? '', /What is this project\?/);
        await screenshot(page, '04b-call-view');
        await page.getByRole('button', { name: 'Back to the transcript' }).click();
        await page.locator('.message.role-final').waitFor();

        // Tabs are keyboard reachable: arrows move between them.
        await page.getByRole('tab', { name: 'Debug' }).focus();
        await page.keyboard.press('ArrowRight');
        assert.equal(await page.getByRole('tab', { name: /Audit/ }).getAttribute('aria-selected'), 'true');
        await page.locator('.audit-row').first().waitFor();
        assert.match((await page.locator('.audit-list').textContent()) ?? '', /allow\s*Read README\.md/);
        await page.keyboard.press('ArrowRight');
        await page.locator('.raw-records li', { hasText: 'session_meta' }).waitFor();
        await screenshot(page, '05-session-records');

        assert.equal(workbench.provider.requests.length, 2);
      },
    );
  });

  test('approves a shell call from the approval card, then denies one with a message', async () => {
    await withWorkbench(
      {
        sandbox: 'workspace-write',
        approvalPolicy: 'on-request',
        script: [
          { toolCalls: [{ name: 'shell', arguments: { command: 'echo approved > approved.txt' } }] },
          { text: 'Wrote **approved.txt**.' },
          { toolCalls: [{ name: 'shell', arguments: { command: 'rm approved.txt' } }] },
          { text: 'Understood, I kept the file.' },
        ],
      },
      async (page, workbench) => {
        await page.goto(workbench.url);
        await page.getByLabel('Approval').waitFor();
        // The caps: nothing looser than the server's on-request / workspace-write is offered.
        assert.deepEqual(await page.getByLabel('Approval').locator('option').allTextContents(), ['untrusted', 'on-request']);
        assert.deepEqual(await page.getByLabel('Sandbox').locator('option').allTextContents(), ['read-only', 'workspace-write']);
        await page.getByLabel('Sandbox').selectOption('workspace-write');
        await startRun(page, 'Create approved.txt', { approvalPolicy: 'untrusted' });

        const card = page.locator('.approval-card');
        await card.waitFor();
        assert.match(
          (await page.locator('.tool-call .phrase').first().textContent()) ?? '',
          /^Run echo approved > approved\.txt — awaiting approval/,
        );
        await screenshot(page, '06-approval-card');
        await card.getByRole('button', { name: 'Approve', exact: true }).click();
        await page.getByText(/Done in 2 rounds/).waitFor();
        assert.equal(await card.count(), 0);
        assert.equal(readFileSync(join(workbench.root, 'approved.txt'), 'utf8').trim(), 'approved');
        await page.locator('.tool-resolution', { hasText: 'Approved' }).waitFor();

        // Continue the session: the next prompt resumes it; deny the call with a message.
        await page.getByRole('button', { name: 'Continue this session' }).click();
        const prompt = page.getByRole('textbox', { name: 'Prompt' });
        await waitUntil(() => prompt.evaluate((element) => element === element.ownerDocument.activeElement), 'the prompt has the focus');
        await startRun(page, 'Now delete it', { approvalPolicy: 'untrusted' });
        await card.waitFor();
        await card.getByRole('textbox').fill('keep the file');
        await card.getByRole('button', { name: 'Deny' }).click();
        await page
          .locator('.turn[data-turn="2"]')
          .getByText(/Done in 2 rounds/)
          .waitFor();
        assert.ok(existsSync(join(workbench.root, 'approved.txt')), 'the denied command did not run');
        await page.locator('.tool-resolution', { hasText: 'Denied: “keep the file”' }).waitFor();
        const lastRequest = workbench.provider.requests[3]!.rawBody;
        assert.match(lastRequest, /keep the file/);
        assert.match(lastRequest, /Create approved\.txt/, 'the second turn resumed the first');

        await page.getByRole('tab', { name: /Audit/ }).click();
        const audit = (await page.locator('.audit-list').textContent()) ?? '';
        assert.match(audit, /asked/);
        assert.match(audit, /approved/);
        assert.match(audit, /denied.*keep the file/);
        await screenshot(page, '07-approval-audit');
      },
    );
  });

  test('a compaction shows as a card, and the context chart drops where it happened', async () => {
    await withWorkbench(
      {
        compactAt: '6000',
        contextWindow: '10000',
        files: { 'README.md': 'hello world\n' },
        script: [
          { toolCalls: [{ name: 'read_file', arguments: { path: 'README.md' } }], usage: { input: 2500, output: 50 } },
          { toolCalls: [{ name: 'list_dir', arguments: {} }], usage: { input: 6500, output: 50 } },
          // The summary request of the automatic compaction.
          { text: '## Progress\n\nRead README.md (it says hello world) and listed the root.', usage: { input: 900, output: 40 } },
          { text: 'The project says **hello world**.', usage: { input: 2100, output: 30 } },
          // The summary request of "Compact now".
          { text: '## Progress\n\nThe answer was given: hello world.', usage: { input: 700, output: 30 } },
        ],
      },
      async (page, workbench) => {
        await page.goto(workbench.url);
        await startRun(page, 'What does the README say?');
        await page.locator('.compaction-note').waitFor();
        await page.getByText(/Done in \d+ rounds/).waitFor();
        assert.match((await page.locator('.compaction-note summary').textContent()) ?? '', /Context compacted \(auto\): 6\.6k → /);

        await page.getByRole('tab', { name: 'Context' }).click();
        const tile = page.getByTestId('compactions-tile');
        await tile.getByText('1', { exact: true }).waitFor();
        assert.match((await tile.textContent()) ?? '', /largest: 6\.6k → /);
        const card = page.locator('.compaction-card');
        await card.first().waitFor();
        assert.match((await card.first().textContent()) ?? '', /auto · mid_turn/);
        await card.first().locator('.compaction-summary summary').click();
        await card.first().getByText('Read README.md (it says hello world)').waitFor();

        // The chart: three rounds, the line falls after the compaction marker.
        const dots = page.locator('.context-chart circle.chart-dot');
        await waitUntil(async () => (await dots.count()) === 3, 'the chart has a point per round');
        const ys = await Promise.all([0, 1, 2].map(async (i) => Number(await dots.nth(i).getAttribute('cy'))));
        assert.ok(ys[1]! < ys[0]!, 'the context grew (higher on the chart)');
        assert.ok(ys[2]! > ys[1]!, 'and dropped after the compaction');
        const markerX = Number(await page.locator('.chart-compaction line').first().getAttribute('x1'));
        const xs = await Promise.all([1, 2].map(async (i) => Number(await dots.nth(i).getAttribute('cx'))));
        assert.ok(markerX > xs[0]! && markerX < xs[1]!, 'the compaction is marked where the line drops');
        await page.locator('.chart-threshold').waitFor();
        await screenshot(page, '08-compaction-chart');

        // Compact now, with instructions: a second, manual card.
        await page.getByRole('textbox', { name: /instructions/ }).fill('keep the greeting');
        await page.getByRole('button', { name: 'Compact now' }).click();
        await waitUntil(async () => (await card.count()) === 2, 'the manual compaction card appears');
        assert.match((await card.nth(1).textContent()) ?? '', /manual/);
        await tile.getByText('2', { exact: true }).waitFor();
        assert.match(workbench.provider.requests[4]!.rawBody, /keep the greeting/);
        await screenshot(page, '09-compact-now');
      },
    );
  });

  test('opens an old session from the list, continues it, and forks it', async () => {
    await withWorkbench(
      {
        files: { 'notes.md': '# Notes\n' },
        script: [
          { toolCalls: [{ name: 'list_dir', arguments: {} }] },
          { text: 'There is one file: `notes.md`.' },
          { text: 'Another session.' },
          { text: 'Turn two answer.' },
        ],
      },
      async (page, workbench) => {
        const oldSession = await runThroughApi(workbench, 'List the files please');
        await runThroughApi(workbench, 'Something unrelated');

        await page.goto(workbench.url);
        const search = page.getByRole('searchbox', { name: 'Search sessions' });
        await page.locator('.session-item').nth(1).waitFor();
        await search.fill('List the files');
        await waitUntil(async () => (await page.locator('.session-item').count()) === 1, 'the search narrows the list');
        await page.locator('.session-item', { hasText: 'List the files please' }).click();

        // The transcript comes from the records.
        await page.locator('.tool-call .phrase', { hasText: 'Listed the project root' }).waitFor();
        await page.locator('.message.role-final code', { hasText: 'notes.md' }).waitFor();
        assert.match((await page.locator('.message.role-final').textContent()) ?? '', /There is one file: notes\.md/);
        assert.match((await page.locator('.run-target').textContent()) ?? '', /Continuing/);
        await screenshot(page, '10-old-session');

        await startRun(page, 'And what is in it?');
        await page.locator('.turn[data-turn="2"] .message.role-final', { hasText: 'Turn two answer.' }).waitFor();
        await page
          .locator('.turn[data-turn="2"]')
          .getByText(/Done in 1 round/)
          .waitFor();
        const resumed = workbench.provider.requests[3]!.rawBody;
        assert.match(resumed, /List the files please/);
        assert.match(resumed, /And what is in it\?/);
        await page.locator('.session-item', { hasText: 'List the files please' }).filter({ hasText: '2 turns' }).waitFor();

        // Fork at turn 1: a new session with the first turn only opens.
        await page.locator('.turn[data-turn="1"]').getByRole('button', { name: 'Fork here' }).click();
        await page.getByText(/Forked at turn 1/).waitFor();
        await waitUntil(async () => !((await page.locator('.transcript-head').textContent()) ?? '').includes(oldSession), 'the fork opens');
        await page.locator('.turn[data-turn="1"]').waitFor();
        assert.equal(await page.locator('.turn[data-turn="2"]').count(), 0);
        await page.getByRole('tab', { name: 'Session' }).click();
        await page.locator('.session-facts', { hasText: 'Forked from' }).waitFor();
        assert.match((await page.locator('.session-facts').textContent()) ?? '', new RegExp(oldSession));
        await screenshot(page, '11-forked');
      },
    );
  });

  test('cancel stops a waiting run; a failed run shows its error', async () => {
    await withWorkbench(
      {
        contextWindow: '128000',
        // By prompt, not by order: a cancel can land before the first request reaches the provider.
        whenExhausted: (request) =>
          request.rawBody.includes('Try again')
            ? { fault: { kind: 'status', status: 400, message: 'Unsupported parameter: temperature' } }
            : { fault: { kind: 'hang' } },
      },
      async (page, workbench) => {
        await page.goto(workbench.url);
        await startRun(page, 'Wait forever');
        await page.getByText('Waiting for the model…').waitFor();
        await page.locator('.transcript-footer').getByRole('button', { name: 'Cancel' }).click();
        await page.locator('.turn-cancelled').waitFor();
        await page.locator('.status-pill', { hasText: 'Cancelled' }).waitFor();
        assert.equal(await page.getByText('Waiting for the model…').count(), 0);

        await startRun(page, 'Try again');
        const failure = page.locator('.turn[data-turn="2"] .turn-error');
        await failure.waitFor();
        assert.match((await failure.textContent()) ?? '', /Run failed.*temperature/s);
        await screenshot(page, '12-cancelled-and-failed');
      },
    );
  });

  test('without the token the page says so (401), with it the workbench loads', async () => {
    await withWorkbench(
      {},
      async (page, workbench) => {
        await page.goto(workbench.origin);
        await page.getByRole('heading', { name: 'Not signed in' }).waitFor();
        const status = await page.evaluate(async () => (await fetch('/api/health')).status);
        assert.equal(status, 401);
        await screenshot(page, '13-unauthorized');

        await page.goto(workbench.url);
        await page.getByRole('heading', { name: 'New session' }).waitFor();
        assert.equal(new URL(page.url()).search, '', 'the token left the address bar');
        assert.equal(await page.evaluate(async () => (await fetch('/api/health')).status), 200);
      },
      { expectedErrors: /status of 401/ },
    );
  });

  test('narrow window in dark mode: one pane at a time, all reachable', async () => {
    await withWorkbench(
      { script: [{ text: 'Short **answer**.' }] },
      async (page, workbench) => {
        await page.emulateMedia({ colorScheme: 'dark' });
        await page.goto(workbench.url);
        const panes = page.getByRole('navigation', { name: 'Panes' });
        await panes.getByRole('button', { name: 'Runs' }).click();
        await startRun(page, 'Say something short');
        await page.locator('.message.role-final', { hasText: 'Short answer.' }).waitFor();
        assert.equal(await page.locator('.pane-sidebar').isVisible(), false);
        await screenshot(page, '14-narrow-dark-transcript');
        await panes.getByRole('button', { name: 'Inspector' }).click();
        await page.getByRole('tab', { name: 'Debug' }).waitFor();
        assert.equal(await page.locator('.pane-transcript').isVisible(), false);
        await screenshot(page, '15-narrow-dark-inspector');
        const background = await page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
        assert.notEqual(background, 'rgb(245, 245, 242)', 'dark mode changes the palette');
      },
      { size: { width: 420, height: 800 } },
    );
  });

  for (const scheme of ['light', 'dark'] as const) {
    test(`a phone (390×844, ${scheme}): the first screen has the prompt and the session list; a run shows its transcript`, async () => {
      await withWorkbench(
        { script: [{ text: 'An earlier answer.' }, { text: 'A short **answer** for the phone.' }] },
        async (page, workbench) => {
          const earlier = await runThroughApi(workbench, 'An earlier session');
          await page.goto(workbench.url);
          const prompt = page.getByRole('textbox', { name: 'Prompt' });
          const listed = page.locator(`.session-item[data-session-id="${earlier}"]`);
          await listed.waitFor();
          // Both in the first screen, without scrolling.
          for (const [what, element] of [
            ['the prompt', prompt],
            ['the session list', listed],
          ] as const) {
            const box = await element.boundingBox();
            assert.ok(
              box !== null && box.y >= 0 && box.y + box.height <= 844 && box.x + box.width <= 390,
              `${what} is on the first screen`,
            );
          }
          assert.equal(await page.locator('.pane-transcript').isVisible(), false);
          assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= 390), true, 'nothing sticks out sideways');
          await assertAccessible(page, `the phone's first screen (${scheme})`);
          await screenshot(page, `69-phone-first-screen-${scheme}`);

          await prompt.fill('Answer briefly');
          await prompt.press('Control+Enter');
          await page.locator('.message.role-final', { hasText: 'A short answer for the phone.' }).waitFor();
          assert.equal(await page.locator('.pane-sidebar').isVisible(), false, 'the run shows its transcript');
          await assertAccessible(page, `the phone's transcript (${scheme})`);
          await screenshot(page, `70-phone-transcript-${scheme}`);
          await page.getByRole('button', { name: 'Continue this session' }).click();
          await waitUntil(() => prompt.evaluate((element) => element === document.activeElement), 'the prompt is ready for the next turn');

          // A link to a session opens on its conversation.
          await page.goto(`${workbench.origin}/sessions/${earlier}`);
          await page.locator('.message.role-final', { hasText: 'An earlier answer.' }).waitFor();
          assert.equal(await page.locator('.pane-sidebar').isVisible(), false);
        },
        { size: { width: 390, height: 844 }, colorScheme: scheme },
      );
    });
  }
});
