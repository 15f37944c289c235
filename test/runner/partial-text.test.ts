// A turn cancelled (or failed) while the model was streaming its answer keeps that text in its
// end record, so the person still sees what they saw after a reload (marked as never sent), and
// the text is never sent back to the model as if it had been said.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NO_APPROVER } from '../../src/agent/index.js';
import { runTurn } from '../../src/runner/index.js';
import { startFakeProvider } from '../../src/testing/index.js';
import { transcriptFromRecords } from '../../src/web/transcript/transcript-turns.js';
import { withTempDir } from '../helpers/temp-dir.js';
import { openTestRunner } from '../helpers/test-runner.js';

test('a cancelled turn records the streamed, uncommitted answer; a reload shows it as partial; the next turn does not send it', async () => {
  await withTempDir(async (root) => {
    const answer = 'The first half of an answer that the user stops before it ends';
    const provider = await startFakeProvider({
      script: [{ text: answer, chunkSize: 8, fault: { kind: 'stall', afterEvents: 4 } }, { text: 'Fresh start.' }],
    });
    try {
      const runner = await openTestRunner(root, provider.baseURL);
      const policy = { sandbox: 'read-only' as const, approvalPolicy: 'on-request' as const, network: false };
      const controller = new AbortController();
      let streamed = '';
      const cancelled = await runTurn(runner, {
        prompt: 'Explain',
        policy,
        runId: 'r1',
        signal: controller.signal,
        approvals: NO_APPROVER,
        onEvent: (event) => {
          if (event.type !== 'assistant_delta') return;
          streamed += event.delta;
          // Stop once some text is on screen (the provider stalls after it anyway).
          if (streamed.length >= 16) controller.abort('user pressed stop');
        },
      });
      assert.equal(cancelled.terminal.type, 'run_cancelled');
      const records = (await runner.store.read(cancelled.sessionId)).records;
      const end = records.find((record) => record.type === 'turn_cancelled');
      assert.ok(end && end.type === 'turn_cancelled');
      assert.equal(end.partialText, streamed);
      assert.ok(answer.startsWith(streamed));

      const [turn] = transcriptFromRecords(records);
      assert.ok(turn);
      const partial = turn.entries.filter((entry) => entry.kind === 'assistant' && entry.role === 'partial');
      assert.deepEqual(
        partial.map((entry) => (entry.kind === 'assistant' ? entry.text : '')),
        [streamed],
      );
      assert.equal(turn.outcome.status, 'cancelled');

      const next = await runTurn(runner, {
        prompt: 'Try again',
        resume: cancelled.sessionId,
        policy,
        runId: 'r2',
        signal: new AbortController().signal,
        approvals: NO_APPROVER,
      });
      assert.equal(next.terminal.type, 'run_succeeded');
      assert.ok(!JSON.stringify(provider.requests[1]!.body).includes(streamed), 'the partial text is never sent as said');
    } finally {
      await provider.close();
    }
  });
});
