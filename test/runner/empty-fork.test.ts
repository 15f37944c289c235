// A fork at turn 0 has no history, so no system message to keep: its first turn gets one, as a
// new session's does (this is how the workbench retries or edits a session's first turn).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NO_APPROVER } from '../../src/agent/index.js';
import { runTurn } from '../../src/runner/index.js';
import { forkSession } from '../../src/sessions/index.js';
import { startFakeProvider } from '../../src/testing/index.js';
import { withTempDir } from '../helpers/temp-dir.js';
import { openTestRunner } from '../helpers/test-runner.js';

test("a fork at turn 0 sends the system message first, like a new session; a later fork keeps the parent's", async () => {
  await withTempDir(async (root) => {
    const provider = await startFakeProvider({ script: [{ text: 'One.' }, { text: 'Again.' }, { text: 'Later.' }] });
    try {
      const runner = await openTestRunner(root, provider.baseURL);
      const policy = { sandbox: 'read-only' as const, approvalPolicy: 'on-request' as const, network: false };
      const turn = (prompt: string, resume: string | null) =>
        runTurn(runner, { prompt, resume, policy, runId: prompt, signal: new AbortController().signal, approvals: NO_APPROVER });
      const first = await turn('First prompt', null);
      const empty = await forkSession(runner.store, first.sessionId, { atTurn: 0 });
      const retried = await turn('First prompt, edited', empty);
      assert.equal(retried.terminal.type, 'run_succeeded', JSON.stringify(retried.terminal));
      const later = await forkSession(runner.store, first.sessionId, { atTurn: 1 });
      await turn('Go on', later);

      const roles = (index: number) =>
        (provider.requests[index]!.body as { messages: Array<{ role: string; content: unknown }> }).messages.map((m) => m.role);
      const system = (index: number) => (provider.requests[index]!.body as { messages: Array<{ content: unknown }> }).messages[0]!.content;
      assert.deepEqual(roles(0), ['system', 'user']);
      assert.deepEqual(roles(1), ['system', 'user'], 'the empty fork got a system message');
      assert.deepEqual(roles(2), ['system', 'user', 'assistant', 'user'], "the later fork has the parent's, once");
      assert.deepEqual(system(2), system(0), "the later fork's system message is the parent's, byte for byte");
      const records = (await runner.store.read(empty)).records;
      const items = records.flatMap((record) => (record.type === 'response_item' ? [record.item] : []));
      assert.deepEqual(
        items.map((item) => (item.type === 'message' ? item.role : item.type)),
        ['system', 'user', 'assistant'],
      );
    } finally {
      await provider.close();
    }
  });
});
