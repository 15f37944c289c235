// Addresses, lineage and approvals in real Chromium: every session, tab and call has a URL that
// survives reload, Back and sharing; a fork links to its parent and shows its parent's calls; an
// approval waiting in another session is seen everywhere, and is answered with its diff in view.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runThroughApi, startRun, startThroughApi, useBrowser, waitUntil } from './browser-suite.js';
import { screenshot, TOKEN } from './workbench-harness.js';

const { withWorkbench } = useBrowser();

describe('workbench addresses', () => {
  test('session, tab and call are in the URL: reload, Back and a shared link open the same place', async () => {
    await withWorkbench(
      {
        files: { 'README.md': 'hello\n' },
        script: [{ toolCalls: [{ name: 'read_file', arguments: { path: 'README.md' } }] }, { text: 'It says hello.' }, { text: 'Other.' }],
      },
      async (page, workbench) => {
        const first = await runThroughApi(workbench, 'Read the readme');
        await runThroughApi(workbench, 'Something else');
        await page.goto(workbench.url);
        await page.locator('.session-item', { hasText: 'Read the readme' }).click();
        await waitUntil(async () => new URL(page.url()).pathname === `/sessions/${first}`, 'the address names the session');
        await page.locator('.message.role-final', { hasText: 'It says hello.' }).waitFor();

        await page.getByRole('tab', { name: /Audit/ }).click();
        await waitUntil(async () => new URL(page.url()).search === '?tab=audit', 'the tab is in the address');
        await page.reload();
        await page.locator('.message.role-final', { hasText: 'It says hello.' }).waitFor();
        assert.equal(await page.getByRole('tab', { name: /Audit/ }).getAttribute('aria-selected'), 'true');

        await page.goBack();
        await waitUntil(
          async () => (await page.getByRole('tab', { name: 'Debug' }).getAttribute('aria-selected')) === 'true',
          'Back returns to the Debug tab',
        );
        await page.locator('.trace-call').nth(1).click();
        await waitUntil(async () => new URL(page.url()).pathname === `/sessions/${first}/calls/2`, 'the open call is in the address');
        await page.locator('.call-view h1', { hasText: 'Model call #2' }).waitFor();
        await page.reload();
        await page.locator('.call-view h1', { hasText: 'Model call #2' }).waitFor();
        await screenshot(page, '20-call-address');
        await page.goBack();
        await page.locator('.message.role-final', { hasText: 'It says hello.' }).waitFor();

        // A link shared with another browser (signed in with the token) opens the same call.
        const other = await page.context().browser()!.newContext();
        const shared = await other.newPage();
        await shared.goto(`${workbench.origin}/?token=${TOKEN}`);
        await shared.goto(`${workbench.origin}/sessions/${first}/calls/1`);
        await shared.locator('.call-view h1', { hasText: 'Model call #1' }).waitFor();
        await shared.locator('.call-view .request-message.role-user', { hasText: 'Read the readme' }).waitFor();
        await other.close();
      },
    );
  });

  test('a fork names its parent (a link) and the fork point, and has its own Debug and Context data', async () => {
    await withWorkbench({ script: [{ text: 'First answer.' }, { text: 'Second answer.' }] }, async (page, workbench) => {
      const parent = await runThroughApi(workbench, 'The parent session');
      await runThroughApi(workbench, 'Go on', { sessionId: parent });
      const forked = await fetch(`${workbench.origin}/api/sessions/${parent}/fork`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ atTurn: 1 }),
      });
      const { sessionId: fork } = (await forked.json()) as { sessionId: string };
      await page.goto(workbench.url);
      await page.goto(`${workbench.origin}/sessions/${fork}`);
      const lineage = page.getByTestId('lineage');
      await lineage.getByText('The parent session').waitFor();
      assert.match((await lineage.textContent()) ?? '', /Forked from The parent session after turn 1/);
      await page.locator('.trace-turn', { hasText: 'Turn 1 (parent session)' }).waitFor();
      assert.equal(await page.locator('.trace-call').count(), 1, "the parent's call up to the fork point");
      await page.getByRole('tab', { name: 'Context' }).click();
      await waitUntil(async () => (await page.locator('.context-chart circle.chart-dot').count()) === 1, 'the fork has a context point');
      await screenshot(page, '21-fork-lineage');
      await lineage.getByRole('link').click();
      await waitUntil(async () => new URL(page.url()).pathname === `/sessions/${parent}`, 'the link opens the parent');
      await page.locator('.turn[data-turn="2"]').waitFor();
    });
  });
});

describe('workbench approvals', () => {
  test('an approval waiting in another session shows in the list, the status box and the tab title; its card has the diff and the focus', async () => {
    await withWorkbench(
      {
        sandbox: 'workspace-write',
        script: [
          { text: 'Done here.' },
          { toolCalls: [{ name: 'write_file', arguments: { path: 'notes.md', content: '# Notes\n\nfirst line\n' } }] },
          { text: 'I did not write it.' },
          { toolCalls: [{ name: 'write_file', arguments: { path: 'notes.md', content: 'second try\n' } }] },
          { text: 'Not written either.' },
        ],
      },
      async (page, workbench) => {
        const quiet = await runThroughApi(workbench, 'A quiet session');
        await page.goto(`${workbench.url}`);
        await page.goto(`${workbench.origin}/sessions/${quiet}`);
        await page.locator('.message.role-final', { hasText: 'Done here.' }).waitFor();

        const { sessionId: waiting } = await startThroughApi(workbench, 'Write the notes', {
          sandbox: 'workspace-write',
          approvalPolicy: 'untrusted',
        });
        const item = page.locator(`.session-item[data-session-id="${waiting}"]`);
        await item.locator('.pill-approval', { hasText: 'needs approval' }).waitFor({ timeout: 15_000 });
        await page.locator('.run-status .pill-approval', { hasText: '1 approval waiting' }).waitFor();
        await waitUntil(async () => (await page.title()).startsWith('(1) Approval needed'), 'the tab title says so');
        // The quiet session's sidebar offers no Cancel for a run that is not its own.
        assert.equal(await page.getByRole('button', { name: 'Cancel run' }).count(), 0);
        await screenshot(page, '22-approval-elsewhere');

        await page.locator('.run-status').getByRole('button', { name: 'Open' }).click();
        const card = page.locator('.approval-card');
        await card.waitFor();
        await waitUntil(() => card.evaluate((element) => element === document.activeElement), 'the new card has the focus');
        assert.deepEqual(await card.locator('.diff-path').allTextContents(), ['notes.md']);
        assert.match((await card.locator('.diff-lines').textContent()) ?? '', /\+# Notes/);
        assert.match((await page.locator('.tool-call .phrase').first().textContent()) ?? '', /^Write notes\.md — awaiting approval/);
        await screenshot(page, '23-approval-diff');
        await card.getByRole('button', { name: 'Deny' }).click();
        await page.locator('.tool-call .phrase', { hasText: 'Write notes.md — denied' }).waitFor({ timeout: 15_000 });
        await waitUntil(async () => !(await page.title()).startsWith('('), 'the title clears');
        await page.locator('.message.role-final', { hasText: 'I did not write it.' }).waitFor();

        // Someone typing (here: searching the sessions) when a card appears keeps the focus and the text.
        const editor = page.getByRole('searchbox', { name: 'Search sessions' });
        await editor.fill('Write');
        await startThroughApi(workbench, 'Try once more', { sessionId: waiting, sandbox: 'workspace-write', approvalPolicy: 'untrusted' });
        await card.waitFor({ timeout: 15_000 });
        assert.ok(await editor.evaluate((element) => element === document.activeElement), 'the text box kept the focus');
        assert.equal(await editor.inputValue(), 'Write');
        await card.getByRole('button', { name: 'Deny' }).click();
        await page.locator('.message.role-final', { hasText: 'Not written either.' }).waitFor({ timeout: 15_000 });
      },
    );
  });

  test("the sidebar's Cancel cancels the shown session's run, never another one", async () => {
    await withWorkbench(
      {
        whenExhausted: (request) => (request.rawBody.includes('Hang here') ? { fault: { kind: 'hang' } } : { text: 'Quick answer.' }),
      },
      async (page, workbench) => {
        const quiet = await runThroughApi(workbench, 'Quick one');
        await page.goto(workbench.url);
        await startRun(page, 'Hang here');
        await page.getByText('Waiting for the model…').waitFor();
        await waitUntil(async () => new URL(page.url()).pathname.startsWith('/sessions/'), 'the new session has its address');
        const hanging = new URL(page.url()).pathname;
        await page.locator(`.session-item[data-session-id="${quiet}"]`).click();
        await page.locator('.message.role-final', { hasText: 'Quick answer.' }).waitFor();
        assert.equal(await page.getByRole('button', { name: 'Cancel run' }).count(), 0, 'no Cancel for the quiet session');
        await page.locator('.run-form', { hasText: 'A run is going in another session' }).waitFor();
        const runs = (await (await fetch(`${workbench.origin}/api/runs`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as {
          runs: Array<{ status: string }>;
        };
        assert.ok(
          runs.runs.some((run) => run.status === 'running'),
          'the other run still runs',
        );

        await page.locator('.run-form').getByRole('button', { name: 'Show it' }).click();
        await waitUntil(async () => new URL(page.url()).pathname === hanging, 'back at the running session');
        await page.getByRole('button', { name: 'Cancel run' }).click();
        await page.locator('.turn-cancelled').waitFor();
      },
    );
  });
});
