// A team worker that lost its run to another worker must write nothing more of the run's session,
// from that moment and without asking the database (whose own fence, a lease row deleted, lands a
// round trip later, or never while the database is away). runTurn's `fence` revokes the turn's
// session writer: the records of what the turn does next, and of how it ends, are refused at once.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NO_APPROVER } from '../../src/agent/index.js';
import { runTurn } from '../../src/runner/index.js';
import { MemorySessionStore } from '../../src/sessions/index.js';
import { startFakeProvider } from '../../src/testing/index.js';
import { withTempDir } from '../helpers/temp-dir.js';
import { openTestRunner } from '../helpers/test-runner.js';
import { appendAll, call, itemRecord, modelCall, turnStarted, user } from '../sessions/session-fixtures.js';

const policy = { sandbox: 'read-only' as const, approvalPolicy: 'never' as const, network: false };

test('a fenced turn appends nothing more to its session, its end record included', async () => {
  await withTempDir(async (root) => {
    const provider = await startFakeProvider({
      script: [{ text: 'An answer the worker never gets to record', chunkSize: 6, fault: { kind: 'stall', afterEvents: 3 } }],
    });
    try {
      const runner = await openTestRunner(root, provider.baseURL);
      const fence = new AbortController();
      const controller = new AbortController();
      let sessionId = '';
      let storedAtFence = -1;
      const ended = await runTurn(runner, {
        prompt: 'Explain',
        policy,
        runId: 'r1',
        signal: controller.signal,
        fence: fence.signal,
        approvals: NO_APPROVER,
        onEvent: (event) => {
          if (event.type === 'run_started') sessionId = event.sessionId;
          if (event.type !== 'assistant_delta' || storedAtFence >= 0) return;
          // What a worker does when its run lease is lost: the fence, then the stop.
          storedAtFence = 0;
          void runner.store.read(sessionId).then((contents) => {
            storedAtFence = contents.records.length;
            fence.abort();
            controller.abort('the worker lost its run lease');
          });
        },
      });
      assert.equal(ended.terminal.type, 'run_cancelled');
      assert.match(ended.persistError ?? '', /no longer this writer's/);
      const records = (await runner.store.read(ended.sessionId)).records;
      assert.ok(storedAtFence > 0);
      assert.equal(records.length, storedAtFence, `nothing lands after the fence: ${records.map((r) => r.type).join(', ')}`);
      assert.ok(!records.some((record) => record.type === 'turn_cancelled'));
    } finally {
      await provider.close();
    }
  });
});

test('a fence that is down before the session opens refuses its first record', async () => {
  await withTempDir(async (root) => {
    const provider = await startFakeProvider({ script: [{ text: 'never recorded' }] });
    try {
      const runner = await openTestRunner(root, provider.baseURL);
      const fence = new AbortController();
      fence.abort();
      const outcome = await runTurn(runner, {
        prompt: 'Explain',
        policy,
        runId: 'r1',
        signal: new AbortController().signal,
        fence: fence.signal,
        approvals: NO_APPROVER,
      }).then(
        (result) => ({ result }),
        (error: unknown) => ({ error: (error as Error).message }),
      );
      assert.match(JSON.stringify(outcome), /no longer this writer's/);
      assert.equal(provider.requests.length, 0, 'the turn stops at its first refused record, before asking the model');
      const { sessions } = await runner.store.list();
      assert.equal(sessions.length, 1);
      const records = (await runner.store.read(sessions[0]!.sessionId)).records;
      assert.deepEqual(
        records.map((record) => record.type),
        ['session_meta'],
        `only what the store wrote when it opened the session: ${JSON.stringify(outcome)}`,
      );
    } finally {
      await provider.close();
    }
  });
});

test('a revoked writer refuses appends queued behind the batch in flight and publishes nothing at close', async () => {
  const store = new MemorySessionStore();
  const writer = await store.create({ cwd: '/tmp', model: 'm', wireApi: 'chat', glassboxVersion: '0.0.0' });
  const started = {
    type: 'turn_started',
    turn: 1,
    runId: 'r',
    prompt: 'p',
    policy: { approvalPolicy: 'never', sandbox: 'read-only' },
    model: 'm',
    wireApi: 'chat',
  } as const;
  const first = writer.append(started);
  // Joins the batch the first append opened: it has not started writing yet, so it is refused too.
  const second = writer.append({ ...started, turn: 2 });
  writer.revoke?.('taken over');
  await assert.rejects(first, { code: 'SESSION_LOCKED' });
  await assert.rejects(second, { code: 'SESSION_LOCKED' });
  await assert.rejects(writer.append({ ...started, turn: 3 }), /no longer this writer's: taken over/);
  await assert.rejects(writer.sync(), { code: 'SESSION_LOCKED' });
  await writer.close();
  assert.deepEqual(
    (await store.read(writer.sessionId)).records.map((record) => record.type),
    ['session_meta'],
  );
});

test('a takeover that loses the run while it resumes the session appends no repair of it', async () => {
  await withTempDir(async (root) => {
    const provider = await startFakeProvider({ script: [{ text: 'never asked' }] });
    try {
      const runner = await openTestRunner(root, provider.baseURL);
      // The dead worker's turn (run-1) was cut off while two of its calls ran: a takeover repairs them.
      const writer = await runner.store.create({ cwd: root, model: 'acme', wireApi: 'chat', glassboxVersion: '0.0.0' });
      await appendAll(writer, [
        turnStarted(1, 'first'),
        itemRecord(1, user('first')),
        modelCall(1, 1),
        itemRecord(1, call('t1-a')),
        itemRecord(1, call('t1-b')),
      ]);
      await writer.close();
      const before = (await runner.store.read(writer.sessionId)).records.length;
      const fence = new AbortController();
      const controller = new AbortController();
      const outcome = await runTurn(runner, {
        prompt: 'first',
        policy,
        runId: 'run-1',
        resume: writer.sessionId,
        continueRun: true,
        signal: controller.signal,
        fence: fence.signal,
        approvals: NO_APPROVER,
        // The worker asks its approval rows; meanwhile it notices its run lease lost (another
        // worker claimed the run): the fence, then the stop, as onLeaseLost does.
        unstartedCalls: async () => {
          fence.abort();
          controller.abort('the worker lost its run lease');
          return new Set<string>();
        },
      }).then(
        (result) => ({ result }),
        (error: unknown) => ({ error: (error as Error).message }),
      );
      const records = (await runner.store.read(writer.sessionId)).records;
      assert.equal(
        records.length,
        before,
        `nothing lands after the fence: ${records
          .slice(before)
          .map((r) => r.type)
          .join(', ')} (${JSON.stringify(outcome)})`,
      );
    } finally {
      await provider.close();
    }
  });
});
