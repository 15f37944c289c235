// "Always allow" in the workbench (issue 26), in real Chromium: the approval card shows the exact
// rule it would save before saving it; saving writes it to `permissions.allow` in the user's
// `<home>/config.json`, the decision is recorded with the rule and the file, and a new session
// running the same command is not asked again (its permission decision names the saved rule).

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startRun, useBrowser, waitUntil } from './browser-suite.js';
import { screenshot, TOKEN } from './workbench-harness.js';

const { withWorkbench } = useBrowser();

interface AuditRecord {
  type: string;
  event?: { type: string; decision?: string; message?: string | null; rule?: string; by?: string };
}

async function auditOf(origin: string, sessionId: string): Promise<AuditRecord[]> {
  const response = await fetch(`${origin}/api/sessions/${sessionId}?limit=500`, { headers: { authorization: `Bearer ${TOKEN}` } });
  const page = (await response.json()) as { records: Array<{ record: AuditRecord }> };
  return page.records.map((entry) => entry.record);
}

describe('always allow', () => {
  test('the card shows the exact rule, saves it to the user config, and the command is not asked again', async () => {
    await withWorkbench(
      {
        sandbox: 'workspace-write',
        approvalPolicy: 'untrusted',
        whenExhausted: (request) =>
          (request.rawBody.match(/"role":"tool"/g) ?? []).length === 0
            ? { toolCalls: [{ name: 'shell', arguments: { command: 'touch made.txt' } }] }
            : { text: 'Made it.' },
      },
      async (page, workbench) => {
        await page.goto(workbench.url);
        await startRun(page, 'Make the file', { sandbox: 'workspace-write', approvalPolicy: 'untrusted' });
        const card = page.locator('.approval-card');
        await card.waitFor();
        await card.getByRole('button', { name: 'Always allow…' }).click();
        const shown = card.getByTestId('always-allow');
        await shown.waitFor();
        assert.equal(
          await shown.locator('.always-rule').textContent(),
          'shell(touch made.txt)',
          'the exact rule, shown before it is saved',
        );
        assert.match((await shown.textContent()) ?? '', /permissions\.allow.*config\.json/);
        await assert.rejects(readFile(join(workbench.home, 'config.json'), 'utf8'), 'nothing saved before the second press');
        await screenshot(page, '70-always-allow');
        await shown.getByRole('button', { name: 'Save the rule and approve' }).click();
        await page.locator('.message.role-final', { hasText: 'Made it.' }).waitFor();

        const config = JSON.parse(await readFile(join(workbench.home, 'config.json'), 'utf8')) as { permissions: { allow: string[] } };
        assert.deepEqual(config.permissions.allow, ['shell(touch made.txt)']);
        const first = new URL(page.url()).pathname.split('/')[2]!;
        const resolved = (await auditOf(workbench.origin, first)).find((record) => record.event?.type === 'approval_resolved');
        assert.equal(resolved?.event?.decision, 'approve_session');
        assert.equal(resolved?.event?.by, 'user');
        assert.match(resolved?.event?.message ?? '', /saved the rule shell\(touch made\.txt\) to .*config\.json/);

        // A new session, same command: decided by the saved rule, no card.
        await page.getByRole('button', { name: 'New session' }).click();
        await waitUntil(async () => new URL(page.url()).pathname === '/', 'a new session');
        await startRun(page, 'Make the file again', { sandbox: 'workspace-write', approvalPolicy: 'untrusted' });
        await waitUntil(
          async () => !new URL(page.url()).pathname.endsWith(first) && new URL(page.url()).pathname.startsWith('/sessions/'),
          'the second session has its address',
        );
        await page.locator('.message.role-final', { hasText: 'Made it.' }).waitFor();
        assert.equal(await page.locator('.approval-card').count(), 0, 'the second run was not asked');
        const second = new URL(page.url()).pathname.split('/')[2]!;
        const records = await auditOf(workbench.origin, second);
        assert.ok(!records.some((record) => record.event?.type === 'approval_requested'), 'no approval was requested');
        const decided = records.find((record) => record.event?.type === 'tool_permission_decided');
        assert.equal(decided?.event?.decision, 'allow');
        assert.match(JSON.stringify(decided?.event), /shell\(touch made\.txt\)/, 'the decision names the saved rule');
      },
    );
  });

  test('the server saves only the rule it works out for the call', async () => {
    await withWorkbench(
      {
        approvalPolicy: 'untrusted',
        sandbox: 'workspace-write',
        whenExhausted: (request) =>
          (request.rawBody.match(/"role":"tool"/g) ?? []).length === 0
            ? { toolCalls: [{ name: 'shell', arguments: { command: 'touch other.txt' } }] }
            : { text: 'Done.' },
      },
      async (page, workbench) => {
        await page.goto(workbench.url);
        await startRun(page, 'Make it', { sandbox: 'workspace-write', approvalPolicy: 'untrusted' });
        await page.locator('.approval-card').waitFor();
        const list = (await (
          await fetch(`${workbench.origin}/api/approvals`, { headers: { authorization: `Bearer ${TOKEN}` } })
        ).json()) as {
          approvals: Array<{ runId: string; callId: string }>;
        };
        const [pending] = list.approvals;
        assert.ok(pending);
        const broader = await fetch(`${workbench.origin}/api/approvals/${pending.runId}/${pending.callId}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({ decision: 'approve_session', saveRule: 'shell(touch *)' }),
        });
        assert.equal(broader.status, 409);
        await assert.rejects(readFile(join(workbench.home, 'config.json'), 'utf8'), 'nothing saved');
        await page.locator('.approval-card').getByRole('button', { name: 'Deny' }).click();
        await page.locator('.message.role-final', { hasText: 'Done.' }).waitFor();
      },
    );
  });
});
