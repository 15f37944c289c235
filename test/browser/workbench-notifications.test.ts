// Approval notifications in real Chromium (the notifications permission granted through the
// browser context): off by default, turned on by a click, then a desktop notification for an
// approval that appears in a session the person is not looking at; clicking it opens that session.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertAccessible, runThroughApi, startThroughApi, useBrowser, waitUntil } from './browser-suite.js';
import { screenshot } from './workbench-harness.js';

const { withWorkbench } = useBrowser();

// Records every Notification the page creates (the real one is still created).
const SPY = `(() => {
  const Real = window.Notification;
  window.__notifications = [];
  window.Notification = class extends Real {
    constructor(title, options) {
      super(title, options);
      window.__notifications.push({ title, body: options && options.body, instance: this });
    }
  };
})();`;

const write = (path: string) => ({ toolCalls: [{ name: 'write_file', arguments: { path, content: 'x\n' } }] });

describe('approval notifications', () => {
  test('off by default; once turned on, a new approval elsewhere notifies, and the notification opens its session', async () => {
    await withWorkbench(
      {
        sandbox: 'workspace-write',
        whenExhausted: (request) =>
          request.rawBody.includes('Write one')
            ? write('one.md')
            : request.rawBody.includes('Write two')
              ? write('two.md')
              : { text: 'Quiet.' },
      },
      async (page, workbench) => {
        await page.context().grantPermissions(['notifications'], { origin: workbench.origin });
        await page.addInitScript(SPY);
        const quiet = await runThroughApi(workbench, 'A quiet session');
        await page.goto(workbench.url);
        await page.goto(`${workbench.origin}/sessions/${quiet}`);
        await page.locator('.message.role-final', { hasText: 'Quiet.' }).waitFor();
        const count = () => page.evaluate(() => (window as unknown as { __notifications: unknown[] }).__notifications.length);

        const toggle = page.getByRole('button', { name: 'Notify me of approvals' });
        assert.equal(await toggle.getAttribute('aria-pressed'), 'false', 'off by default');
        const first = await startThroughApi(workbench, 'Write one', { sandbox: 'workspace-write', approvalPolicy: 'untrusted' });
        await page.locator(`.session-item[data-session-id="${first.sessionId}"] .pill-approval`).waitFor({ timeout: 15_000 });
        assert.equal(await count(), 0, 'no notification while they are off');

        await toggle.click();
        await waitUntil(async () => (await toggle.getAttribute('aria-pressed')) === 'true', 'the toggle is on');
        assert.equal(await page.evaluate(() => window.localStorage.getItem('glassbox.approvalNotifications')), 'on');
        const second = await startThroughApi(workbench, 'Write two', { sandbox: 'workspace-write', approvalPolicy: 'untrusted' });
        await waitUntil(async () => (await count()) === 1, 'a notification for the new approval', 15_000);
        const shown = await page.evaluate(() => {
          const [note] = (window as unknown as { __notifications: Array<{ title: string; body: string }> }).__notifications;
          return { title: note!.title, body: note!.body };
        });
        assert.deepEqual(shown, { title: 'Glassbox: approval needed', body: 'write_file: write two.md' });
        await assertAccessible(page, 'the workbench with notifications on');
        await screenshot(page, '68-notifications-on');

        await page.evaluate(() => {
          const [note] = (window as unknown as { __notifications: Array<{ instance: Notification }> }).__notifications;
          note!.instance.onclick?.(new Event('click'));
        });
        await waitUntil(
          async () => new URL(page.url()).pathname === `/sessions/${second.sessionId}`,
          'the click opens the waiting session',
        );
        await page.locator('.approval-card').waitFor();

        // Remembered in this browser: after a reload they are still on, and nothing already pending notifies again.
        await page.reload();
        await page.locator('.approval-card').waitFor();
        assert.equal(await page.getByRole('button', { name: 'Notify me of approvals' }).getAttribute('aria-pressed'), 'true');
        assert.equal(await count(), 0);
      },
    );
  });
});
