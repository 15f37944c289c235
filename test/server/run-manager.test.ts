import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { NO_APPROVER, type RunEvent, type TerminalRunEvent } from '../../src/agent/index.js';
import { emptyUsage } from '../../src/model/index.js';
import { RunManager, type RunParameters, type TurnHooks, type TurnStarter } from '../../src/server/index.js';

const usage = { total: emptyUsage(), byStage: {}, calls: 0 };
const SESSION = '01a2293c-35a7-7273-a315-931e21774c91';

function parameters(sessionId: string | null = null): RunParameters {
  return { prompt: 'p', sessionId, model: 'm', wireApi: 'chat', sandbox: 'read-only', approvalPolicy: 'on-request', compactAt: null };
}

function startedEvent(hooks: TurnHooks, sessionId = SESSION): RunEvent {
  return { type: 'run_started', sessionId, runId: hooks.runId, model: 'm', wireApi: 'chat', resumed: false };
}

/** A turn that starts, then waits for `release` (or the abort) before it ends. */
function controllableTurn(): { startTurn: TurnStarter; release: () => void } {
  let release = (): void => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  const startTurn: TurnStarter = async (_parameters, hooks) => {
    hooks.onEvent(startedEvent(hooks));
    await Promise.race([gate, new Promise((resolve) => hooks.signal.addEventListener('abort', resolve, { once: true }))]);
    const terminal: TerminalRunEvent = hooks.signal.aborted
      ? { type: 'run_cancelled', reason: String(hooks.signal.reason), usage, rounds: 0 }
      : { type: 'run_succeeded', answer: 'done', usage, rounds: 1 };
    hooks.onEvent(terminal);
    return { terminal };
  };
  return { startTurn, release };
}

function manager(startTurn: TurnStarter, logs: string[] = [], keepFinishedRuns?: number): RunManager {
  return new RunManager({ startTurn, approvals: NO_APPROVER, log: (line) => logs.push(line), keepFinishedRuns });
}

describe('RunManager', () => {
  test('a turn that fails before its first event rejects start and leaves no run behind', async () => {
    const runs = manager(async () => {
      throw new Error('cannot open the session');
    });
    await assert.rejects(runs.start(parameters(SESSION)), /cannot open the session/);
    assert.deepEqual(runs.list({ limit: 100, cursor: null }), { runs: [], nextCursor: null });
    assert.equal(runs.isSessionBusy(SESSION), false);
  });

  test('a turn that fails after it started ends with a synthetic run_failed, and the error is logged', async () => {
    const logs: string[] = [];
    const runs = manager(async (_parameters, hooks) => {
      hooks.onEvent(startedEvent(hooks));
      throw new Error('disk full');
    }, logs);
    const run = await runs.start(parameters());
    await run.done;
    assert.deepEqual(
      [...run.log.replay(0)].map((entry) => entry.event.type),
      ['run_started', 'run_failed'],
    );
    assert.equal(run.status, 'failed');
    assert.match(logs.join('\n'), /disk full/);
  });

  test('the terminal event waits until the turn has returned; the session is free when it arrives', async () => {
    const { startTurn, release } = controllableTurn();
    const runs = manager(startTurn);
    const run = await runs.start(parameters(SESSION));
    assert.equal(runs.isSessionBusy(SESSION), true);
    await assert.rejects(runs.start(parameters(SESSION)), (error: { status?: number }) => error.status === 409);
    let busyAtTerminal: boolean | null = null;
    run.log.subscribe(run.log.lastId, {
      onEvent: ({ event }) => {
        if (event.type === 'run_succeeded') busyAtTerminal = runs.isSessionBusy(SESSION);
      },
      onEnd: () => {},
    });
    release();
    await run.done;
    assert.equal(busyAtTerminal, false);
    assert.equal(run.status, 'succeeded');
  });

  test('cancel: cancelled, then finished; unknown ids; close cancels everything and refuses new runs', async () => {
    const first = controllableTurn();
    const runs = manager(first.startTurn);
    const run = await runs.start(parameters());
    assert.equal(runs.cancel('nope', 'x'), 'unknown');
    assert.equal(runs.cancel(run.runId, 'Stop it.'), 'cancelled');
    await run.done;
    assert.equal(run.status, 'cancelled');
    assert.equal([...run.log.replay(0)].at(-1)!.event.type, 'run_cancelled');
    assert.equal(runs.cancel(run.runId, 'again'), 'finished');

    const second = controllableTurn();
    const other = manager(second.startTurn);
    const active = await other.start(parameters());
    await other.close('Bye.');
    assert.equal(active.status, 'cancelled');
    await assert.rejects(other.start(parameters()), (error: { status?: number }) => error.status === 409);
  });

  test('only the newest finished runs are kept', async () => {
    let count = 0;
    const runs = manager(
      async (_parameters, hooks) => {
        count += 1;
        hooks.onEvent(startedEvent(hooks, `01a2293c-35a7-7273-a315-${String(count).padStart(12, '0')}`));
        return { terminal: { type: 'run_succeeded', answer: 'ok', usage, rounds: 1 } };
      },
      [],
      2,
    );
    const ids: string[] = [];
    for (let index = 0; index < 4; index += 1) {
      const run = await runs.start(parameters());
      await run.done;
      ids.push(run.runId);
    }
    assert.deepEqual(
      runs.list({ limit: 100, cursor: null }).runs.map((run) => run.runId),
      ids.slice(2).reverse(),
    );
    assert.equal(runs.get(ids[0]!), undefined);
  });

  test('the list pages newest first; a cursor outlives the runs forgotten after it', async () => {
    const runs = manager(
      async (_parameters, hooks) => {
        hooks.onEvent(startedEvent(hooks, SESSION));
        return { terminal: { type: 'run_succeeded', answer: 'ok', usage, rounds: 1 } };
      },
      [],
      4,
    );
    const ids: string[] = [];
    for (let index = 0; index < 4; index += 1) {
      const run = await runs.start(parameters());
      await run.done;
      ids.push(run.runId);
    }
    const first = runs.list({ limit: 3, cursor: null });
    assert.deepEqual(
      first.runs.map((run) => run.runId),
      [ids[3], ids[2], ids[1]],
    );
    assert.ok(first.nextCursor !== null);
    // Two more runs push the two oldest out; the cursor still means "started before ids[1]".
    for (let index = 0; index < 2; index += 1) await (await runs.start(parameters())).done;
    const rest = runs.list({ limit: 3, cursor: first.nextCursor });
    assert.deepEqual(rest, { runs: [], nextCursor: null });
    const exact = runs.list({ limit: 6, cursor: null });
    assert.equal(exact.runs.length, 4);
    assert.equal(exact.nextCursor, null, 'no cursor when the page holds the oldest run');
    for (const cursor of ['abc', '0', '-1', '1.5', '99']) {
      assert.throws(
        () => runs.list({ limit: 3, cursor }),
        (error: { status?: number; message: string }) => error.status === 400 && /invalid runs cursor/.test(error.message),
      );
    }
  });
});
