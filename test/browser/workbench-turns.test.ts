// Turns in real Chromium: every message shows when it was sent or written — live from the
// events as they arrive, and after a reload from the session's records (the same times the file
// holds).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertAccessible, startRun, useBrowser, waitUntil } from './browser-suite.js';
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
          await screenshot(page, `44-message-times-${scheme}`);

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
