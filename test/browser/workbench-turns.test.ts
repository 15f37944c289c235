// Turns in real Chromium: every message shows when it was sent or written — live from the
// events as they arrive, and after a reload from the session's records (the same times the file
// holds); the last turn can be retried and any prompt edited and sent again, each in a fork after
// the turn before, so the session they came from stays as it was; a long session opens on its
// last turns and builds the others when they are scrolled to.

import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { assertAccessible, runThroughApi, startRun, useBrowser, waitUntil } from './browser-suite.js';
import { screenshot, TOKEN } from './workbench-harness.js';

const { withWorkbench } = useBrowser();

interface RecordLine {
  type: string;
  ts: string;
  item?: { type: string; role?: string; runtimeRole?: string };
}

async function recordsOf(origin: string, sessionId: string): Promise<RecordLine[]> {
  const response = await fetch(`${origin}/api/sessions/${sessionId}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  return ((await response.json()) as { records: Array<{ record: RecordLine }> }).records.map((entry) => entry.record);
}

describe('message timestamps', () => {
  for (const scheme of ['light', 'dark'] as const) {
    test(`prompt, working message and answer show their time, live and from the records (${scheme})`, async () => {
      await withWorkbench(
        {
          sandbox: 'workspace-write',
          script: [
            { text: 'Let me write the notes.', toolCalls: [{ name: 'write_file', arguments: { path: 'notes.md', content: 'x\n' } }] },
            { text: 'I left the notes alone.' },
          ],
        },
        async (page, workbench) => {
          const before = Date.now();
          await page.goto(workbench.url);
          await startRun(page, 'Write the notes', { approvalPolicy: 'untrusted', sandbox: 'workspace-write' });
          await page.locator('.approval-card').waitFor();
          // Live: the turn and the working message have times while the run still waits.
          const liveWorking = await page.locator('.message.role-working time').getAttribute('datetime');
          const liveStart = await page.locator('.turn-header time').getAttribute('datetime');
          assert.ok(liveWorking !== null && liveStart !== null);
          assert.ok(Date.parse(liveStart) >= before - 1000 && Date.parse(liveWorking) >= Date.parse(liveStart));
          assert.match((await page.locator('.message.role-working time').textContent()) ?? '', /^\d\d:\d\d:\d\d$/);
          await assertAccessible(page, `live message times (${scheme})`);
          await page.locator('.approval-card').getByRole('button', { name: 'Deny' }).click();
          await page.locator('.message.role-final', { hasText: 'I left the notes alone.' }).waitFor();
          await screenshot(page, `64-message-times-${scheme}`);

          // From the records: exactly the times the session file holds.
          const sessionId = new URL(page.url()).pathname.split('/')[2]!;
          await page.reload();
          await page.locator('.message.role-final', { hasText: 'I left the notes alone.' }).waitFor();
          const records = await recordsOf(workbench.origin, sessionId);
          const opened = records.find((record) => record.type === 'turn_started')!;
          const working = records.find((record) => record.item?.type === 'message' && record.item.runtimeRole === 'working_message')!;
          const answer = records.find((record) => record.item?.type === 'message' && record.item.runtimeRole === 'final_response')!;
          await waitUntil(
            async () => (await page.locator('.turn-header time').getAttribute('datetime')) === opened.ts,
            'the prompt time is the turn_started record',
          );
          assert.equal(await page.locator('.message.role-working time').getAttribute('datetime'), working.ts);
          assert.equal(await page.locator('.message.role-final time').getAttribute('datetime'), answer.ts);
          assert.match((await page.locator('.message.role-final time').getAttribute('title')) ?? '', /^Answered /);
        },
        { colorScheme: scheme },
      );
    });
  }
});

describe('retry and edit-and-resend', () => {
  test('the last turn is retried, and a first prompt edited, each in a fork with visible lineage', async () => {
    let secondRuns = 0;
    await withWorkbench(
      {
        whenExhausted: (request) => {
          const messages = (JSON.parse(request.rawBody) as { messages: Array<{ role: string; content: unknown }> }).messages;
          const last = String(messages.at(-1)?.content ?? '');
          if (last === 'First question') return { text: 'First answer.' };
          if (last === 'Second question') return { text: (secondRuns += 1) === 1 ? 'Second answer.' : 'Second answer, retried.' };
          if (last === 'First question, sharper') {
            // The fork at turn 0 starts like a new session: its system message first.
            return messages[0]?.role === 'system' ? { text: 'Sharper answer.' } : { text: 'No system message!' };
          }
          return { text: `Unexpected: ${last}` };
        },
      },
      async (page, workbench) => {
        const original = await runThroughApi(workbench, 'First question');
        await runThroughApi(workbench, 'Second question', { sessionId: original });
        await page.goto(workbench.url);
        await page.goto(`${workbench.origin}/sessions/${original}`);
        await page.locator('.message.role-final', { hasText: 'Second answer.' }).waitFor();
        const retry = page.getByRole('button', { name: 'Retry in a fork' });
        assert.equal(await retry.count(), 1, 'only the last turn offers a retry');
        assert.equal(await page.locator('.turn[data-turn="2"]').getByRole('button', { name: 'Retry in a fork' }).count(), 1);

        await retry.click();
        await waitUntil(async () => !new URL(page.url()).pathname.endsWith(original), 'the retry opens the fork');
        const retried = new URL(page.url()).pathname.split('/')[2]!;
        await page.locator('.turn[data-turn="2"] .message.role-final', { hasText: 'Second answer, retried.' }).waitFor();
        await page.locator('.turn[data-turn="1"] .message.role-final', { hasText: 'First answer.' }).waitFor();
        // The parent's title arrives after the page: wait for it rather than read too early.
        await page.getByTestId('lineage').filter({ hasText: 'Forked from First question after turn 1' }).waitFor();
        await page
          .getByRole('status')
          .filter({ hasText: /Turn 2 runs again with .*, sandbox .*, approvals .* in a fork/ })
          .waitFor();
        await assertAccessible(page, 'a retried turn in its fork');
        await screenshot(page, '65-retry-in-fork');

        // The original is as it was.
        await page.getByTestId('lineage').getByRole('link').click();
        await waitUntil(async () => new URL(page.url()).pathname === `/sessions/${original}`, 'back at the original');
        await page.locator('.turn[data-turn="2"] .message.role-final', { hasText: 'Second answer.' }).waitFor();
        assert.equal(await page.getByText('Second answer, retried.').count(), 0);

        await page.getByRole('button', { name: 'Edit and resend the prompt of turn 1' }).click();
        const editor = page.getByRole('textbox', { name: 'Edit the prompt of turn 1' });
        assert.equal(await editor.inputValue(), 'First question');
        assert.equal(await editor.evaluate((element) => element === document.activeElement), true, 'the editor has the focus');
        await assertAccessible(page, 'a prompt being edited');
        await editor.fill('First question, sharper');
        await screenshot(page, '66-edit-prompt');
        await editor.press('Control+Enter');
        await waitUntil(
          async () => ![original, retried].some((id) => new URL(page.url()).pathname.endsWith(id)),
          'the edited prompt runs in a new fork',
        );
        await page.locator('.message.role-final', { hasText: 'Sharper answer.' }).waitFor();
        await page.getByTestId('lineage').filter({ hasText: 'Forked from First question after turn 0' }).waitFor();
        assert.equal(await page.locator('.turn').count(), 1);
        assert.equal(
          await page
            .locator('.turn[data-turn="1"] .message.user')
            .first()
            .textContent()
            .then((text) => text?.includes('First question, sharper')),
          true,
        );
        await screenshot(page, '67-edited-in-fork');
      },
    );
  });
});

describe('a long session', () => {
  test('opens on its last turns: earlier turns are built when scrolled to, tool bodies when opened', async () => {
    const { sessionLines } = await import('../../bench/cases/workbench-long-session.js');
    await withWorkbench({}, async (page, workbench) => {
      const session = sessionLines(8, 40);
      await mkdir(join(workbench.home, 'sessions'), { recursive: true });
      await writeFile(join(workbench.home, 'sessions', `${session.id}.jsonl`), session.text);
      await page.goto(workbench.url);
      await page.goto(`${workbench.origin}/sessions/${session.id}`);
      await page.locator('.message.role-final', { hasText: 'Turn 8 is done' }).waitFor();
      assert.equal(await page.locator('.turn').count(), 8, 'every turn has its place');
      assert.equal(await page.locator('.turn-deferred').count(), 5, 'the five earliest wait');
      assert.equal(await page.locator('.tool-body').count(), 0, 'no closed tool call has its body built');
      await assertAccessible(page, 'a long session');
      await screenshot(page, '71-long-session');

      await page.locator('#transcript').evaluate((element) => {
        element.scrollTop = 0;
      });
      await page.locator('.turn[data-turn="1"] .message.role-final', { hasText: 'Turn 1 is done' }).waitFor();
      const call = page.locator('.turn[data-turn="1"] .tool-call').first();
      await call.locator('> details > summary').click();
      assert.match((await call.locator('.tool-output').textContent()) ?? '', /export const value1_0/);
    });
  });
});
