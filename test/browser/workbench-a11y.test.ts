// Accessibility in real Chromium: axe-core (injected into the page) finds no serious or critical
// violation on any screen, in light and in dark; the skip link and the shortcuts work from the
// keyboard alone; after Ctrl+Enter the focus is on the conversation, not lost to <body>.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertAccessible, seriousViolations, startRun, useBrowser, waitUntil } from './browser-suite.js';
import { screenshot } from './workbench-harness.js';

const { withWorkbench } = useBrowser();

const answer = '## Findings\n\nThe file says **hello**.\n\n```ts\n// a comment\nconst x = 1;\n```\n';

for (const scheme of ['light', 'dark'] as const) {
  describe(`accessibility (${scheme})`, () => {
    test('every screen has zero serious axe-core violations', async () => {
      await withWorkbench(
        {
          sandbox: 'workspace-write',
          compactAt: '6000',
          contextWindow: '10000',
          files: { 'README.md': 'hello\n' },
          script: [
            { toolCalls: [{ name: 'read_file', arguments: { path: 'README.md' } }], usage: { input: 6500, output: 20 } },
            { text: '## Progress\n\nRead the README.', usage: { input: 900, output: 20 } },
            { text: answer, usage: { input: 1200, output: 40 } },
            { toolCalls: [{ name: 'edit_file', arguments: { path: 'README.md', old_string: 'hello', new_string: 'hi' } }] },
            { text: 'Left it.' },
          ],
        },
        async (page, workbench) => {
          await page.goto(workbench.url);
          await page.getByRole('heading', { name: 'New session' }).waitFor();
          await assertAccessible(page, 'the empty workbench');
          // The checker itself: a nameless button must be caught.
          await page.evaluate(() => document.body.append(Object.assign(document.createElement('button'), { id: 'axe-probe' })));
          assert.ok(
            (await seriousViolations(page)).some((violation) => violation.id === 'button-name'),
            'axe-core runs and reports',
          );
          await page.evaluate(() => document.getElementById('axe-probe')?.remove());
          await startRun(page, 'Read the readme');
          await page.locator('.message.role-final h2', { hasText: 'Findings' }).waitFor();
          // The heading is a heading, not a sidebar label.
          assert.equal(await page.locator('.message.role-final h2').evaluate((element) => getComputedStyle(element).textTransform), 'none');
          await page.locator('.tool-call > details > summary').first().click();
          await assertAccessible(page, 'the transcript with an answer');
          await page.locator('.trace-call').first().waitFor();
          await assertAccessible(page, 'the Debug tab');
          await page.locator('.trace-call').first().click();
          await page.locator('.call-view .request-message').first().waitFor();
          await assertAccessible(page, 'a model call');
          await page.getByRole('button', { name: 'JSON' }).click();
          await assertAccessible(page, 'a request as JSON');
          await page.keyboard.press('Escape');
          // What each tab shows once its data is in (Session and Context fetch theirs), so the
          // check sees the tab as a person reads it, not its first frame.
          const loaded: Record<string, string> = {
            Audit: '[role="tabpanel"] :is(.audit-list, p.muted)',
            Session: '[role="tabpanel"] .session-facts',
            Context: '[role="tabpanel"] .context-tab .tiles',
          };
          for (const tab of ['Audit', 'Session', 'Context']) {
            await page.getByRole('tab', { name: new RegExp(tab) }).click();
            await page.locator(loaded[tab]!).first().waitFor();
            await assertAccessible(page, `the ${tab} tab`);
          }
          await screenshot(page, `40-a11y-context-${scheme}`);
          await page.getByRole('tab', { name: 'Debug' }).click();
          await startRun(page, 'Edit it', { approvalPolicy: 'untrusted' });
          await page.locator('.approval-card').waitFor();
          await assertAccessible(page, 'an approval card');
          await screenshot(page, `41-a11y-approval-${scheme}`);
          await page.locator('.approval-card').getByRole('button', { name: 'Deny' }).click();
          await page.locator('.message.role-final', { hasText: 'Left it.' }).waitFor();
          await page.keyboard.press('?');
          await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
          await assertAccessible(page, 'the shortcut overlay');
          await screenshot(page, `42-a11y-shortcuts-${scheme}`);
        },
        { colorScheme: scheme },
      );
    });
  });
}

describe('keyboard', () => {
  test('skip link, shortcuts, and the focus after Ctrl+Enter', async () => {
    await withWorkbench({ script: [{ text: 'Short.' }] }, async (page, workbench) => {
      await page.goto(workbench.url);
      await page.getByRole('heading', { name: 'New session' }).waitFor();
      await page.keyboard.press('Tab');
      const skip = page.getByRole('link', { name: 'Skip to the conversation' });
      assert.ok(await skip.evaluate((element) => element === document.activeElement), 'the first Tab reaches the skip link');
      await skip.press('Enter');
      await waitUntil(() => page.evaluate(() => document.activeElement?.id === 'transcript'), 'the skip link moves the focus');

      await page.keyboard.press('n');
      await waitUntil(
        () =>
          page.evaluate(
            () => document.activeElement?.getAttribute('aria-label') === null && document.activeElement?.tagName === 'TEXTAREA',
          ),
        'n focuses the prompt',
      );
      await page.keyboard.type('Say it');
      await page.keyboard.press('Control+Enter');
      await page.locator('.message.role-final', { hasText: 'Short.' }).waitFor();
      assert.notEqual(await page.evaluate(() => document.activeElement?.tagName), 'BODY', 'the focus did not fall to <body>');
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());

      await page.keyboard.press('3');
      await waitUntil(
        async () => (await page.getByRole('tab', { name: 'Session' }).getAttribute('aria-selected')) === 'true',
        '3 opens the Session tab',
      );
      await page.keyboard.press('?');
      const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
      await help.waitFor();
      assert.match((await help.textContent()) ?? '', /Next \/ previous model call/);
      await page.keyboard.press('Escape');
      await waitUntil(async () => !(await help.isVisible()), 'Escape closes the overlay');
      await page.keyboard.press('/');
      await waitUntil(
        () => page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.type === 'search'),
        '/ focuses the session search',
      );
    });
  });
});
