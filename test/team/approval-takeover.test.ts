// A pending approval outlives its worker (issue 29): real `glassbox serve --no-worker` processes
// A and B, one `glassbox worker` at a time, a throwaway PostgreSQL cluster and the scripted
// provider. A run asks to run a shell command; while its approval is pending the worker holding it
// is stopped (SIGTERM: it hands the run over) or killed (SIGKILL), and the next worker takes the
// run over. In each case: the approval stays listed, once, on every server; an answer given through
// either server (also one given while no worker runs) lets the command run exactly once; the run
// succeeds without asking the model again first; the session holds no interrupted output. A worker
// stopped while a command runs lets the run finish there first (its stop grace).

import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import pg from 'pg';
import { type ScriptedTurn, startFakeProvider } from '../../src/testing/index.js';
import { startPgCluster } from '../helpers/pg-cluster.js';
import { promptOf, teamProcesses, toolResults, waitFor } from '../helpers/team-processes.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { eventsOf, readFrames } from '../server/server-harness.js';

const TOKEN = 'team-token-for-the-test-000003';
const LEASE_MS = '1500';

test('team server: a pending approval survives its worker', { timeout: 180_000 }, async (t) => {
  const cluster = await startPgCluster(t);
  if (cluster === null) return;
  const url = await cluster.newDatabase();
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on('error', () => undefined);
  t.after(() => pool.end());
  const base = await makeTempDir();
  const root = join(base, 'project');
  await mkdir(root, { recursive: true });
  await writeFile(join(root, 'README.md'), '# Approvals\n');

  // `approve-<name>`: run a command that appends a line to ran-<name>.txt, then answer.
  const provider = await startFakeProvider({
    whenExhausted: (request): ScriptedTurn => {
      // `slow-<name>`: a command that runs until the test creates go-<name>.
      const slow = /slow-(\w+)/.exec(promptOf(request))?.[1];
      if (slow !== undefined) {
        const command = `touch started-${slow}; while [ ! -e go-${slow} ]; do sleep 0.05; done; echo ran >> ran-${slow}.txt`;
        return toolResults(request) === 0 ? { toolCalls: [{ name: 'shell', arguments: { command } }] } : { text: `Done ${slow}.` };
      }
      const name = /approve-(\w+)/.exec(promptOf(request))?.[1] ?? 'unknown';
      return toolResults(request) === 0
        ? { toolCalls: [{ name: 'shell', arguments: { command: `echo ran >> ran-${name}.txt` } }] }
        : { text: `Done ${name}.` };
    },
  });
  t.after(() => provider.close());
  const team = teamProcesses(t, {
    token: TOKEN,
    databaseUrl: url,
    base,
    args: ['--base-url', provider.baseURL, '-C', root, '--sandbox', 'workspace-write', '--lease-ms', LEASE_MS],
  });
  const { api, post } = team;
  const [serverA, serverB] = await Promise.all([team.startServer('a'), team.startServer('b')]);
  let workerCount = 0;
  let worker = await team.startWorker(`w${(workerCount += 1)}`);

  type Pending = { approvals: Array<{ runId: string; callId: string }> };
  const pendingOn = async (origin: string) => ((await (await api(origin, '/api/approvals')).json()) as Pending).approvals;
  const sessionText = async (sessionId: string): Promise<string> =>
    (await pool.query<{ body: string }>('SELECT body FROM glassbox_session_records WHERE session_id = $1 ORDER BY line', [sessionId])).rows
      .map((row) => `${row.body}\n`)
      .join('');
  const stop = async (child: ChildProcess, signal: NodeJS.Signals): Promise<number | null> => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill(signal);
    return exited;
  };

  /**
   * Start `approve-<name>` through A and wait for its approval; `interrupt` stops the worker (and
   * may answer before the next one starts); a new worker takes the run over; `answer` (when the
   * interruption did not) answers through B. Then the checks every case shares.
   */
  const approvalAcrossWorkers = async (
    name: string,
    interrupt: (run: { runId: string; callId: string }) => Promise<void>,
    answerAfterTakeover: boolean,
  ) => {
    const { runId, response } = await team.startRun(serverA, { prompt: `approve-${name}`, approvalPolicy: 'untrusted' });
    const seen = eventsOf(await readFrames(response, (frame) => frame.event === 'approval_requested'));
    const callId = String(seen.at(-1)!.event.callId);
    const sessionId = String(seen.find((entry) => entry.type === 'run_started')!.event.sessionId);
    assert.deepEqual(
      (await pendingOn(serverB)).map((approval) => [approval.runId, approval.callId]),
      [[runId, callId]],
    );

    await interrupt({ runId, callId });
    assert.equal(existsSync(join(root, `ran-${name}.txt`)), false, 'the command has not run');
    const before = (await team.listRuns(serverB)).find((run) => run.runId === runId)!;
    assert.equal(before.state, 'running', 'the run is still open, waiting for a worker');

    worker = await team.startWorker(`w${(workerCount += 1)}`);
    const taker = worker.pid;
    await waitFor('the takeover', async () => {
      const listed = (await team.listRuns(serverB)).find((run) => run.runId === runId);
      return listed?.attempts === 2 && listed.worker?.pid === taker;
    });
    if (answerAfterTakeover) {
      // Still pending, listed once, on both servers: the new worker asks the same approval.
      for (const origin of [serverA, serverB]) {
        assert.deepEqual(
          (await pendingOn(origin)).map((approval) => approval.callId),
          [callId],
        );
      }
      const answered = await post(serverB, `/api/approvals/${runId}/${encodeURIComponent(callId)}`, { decision: 'approve' });
      assert.equal(answered.status, 200, await answered.text());
    }
    const rest = eventsOf(
      await readFrames(await api(serverB, `/api/runs/${runId}/events`, { headers: { 'last-event-id': String(seen.at(-1)!.id) } })),
    );
    assert.equal(rest.at(-1)!.type, 'run_succeeded', JSON.stringify(rest.at(-1)));
    assert.equal(rest.at(-1)!.event.answer, `Done ${name}.`);
    const resolved = rest.filter((entry) => entry.type === 'approval_resolved');
    assert.deepEqual(
      resolved.map((entry) => [entry.event.callId, entry.event.decision]),
      [[callId, 'approve']],
    );

    // The command ran once, and the model was asked once before it and once after.
    assert.equal(readFileSync(join(root, `ran-${name}.txt`), 'utf8'), 'ran\n');
    const asked = provider.requests.filter((request) => promptOf(request).includes(`approve-${name}`));
    assert.deepEqual(asked.map(toolResults), [0, 1]);
    const toolMessage = ((asked[1]!.body.messages ?? []) as Array<{ role: string; content: unknown }>).find(
      (message) => message.role === 'tool',
    );
    assert.doesNotMatch(JSON.stringify(toolMessage), /INTERRUPTED/);
    const text = await sessionText(sessionId);
    assert.doesNotMatch(text, /INTERRUPTED/);
    const records = text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; item?: { type: string; callId?: string } });
    assert.equal(records.filter((record) => record.item?.type === 'function_call_output' && record.item.callId === callId).length, 1);
    assert.equal(records.filter((record) => record.type === 'turn_started').length, 1);
    assert.equal(records.filter((record) => record.type === 'turn_completed').length, 1);
    assert.deepEqual(await pendingOn(serverA), []);
  };

  await t.test('SIGTERM: the stopping worker hands the run over, its approval still pending', async () => {
    await approvalAcrossWorkers(
      'term',
      async () => {
        assert.equal(await stop(worker, 'SIGTERM'), 0, 'the worker stops cleanly');
      },
      true,
    );
  });

  await t.test('SIGKILL: the next worker asks the same approval again', async () => {
    await approvalAcrossWorkers(
      'kill',
      async () => {
        await stop(worker, 'SIGKILL');
      },
      true,
    );
  });

  await t.test('an answer given while no worker runs is used by the worker that takes the run over', async () => {
    await approvalAcrossWorkers(
      'between',
      async ({ runId, callId }) => {
        await stop(worker, 'SIGKILL');
        const answered = await post(serverA, `/api/approvals/${runId}/${encodeURIComponent(callId)}`, { decision: 'approve' });
        assert.equal(answered.status, 200, await answered.text());
        assert.deepEqual(await pendingOn(serverB), []);
      },
      false,
    );
  });

  await t.test('SIGTERM with a command running: the run ends on the stopping worker (its stop grace), nothing interrupted', async () => {
    const { runId, response } = await team.startRun(serverA, { prompt: 'slow-grace', approvalPolicy: 'on-request' });
    const seen = eventsOf(await readFrames(response, (frame) => frame.event === 'tool_started'));
    const sessionId = String(seen.find((entry) => entry.type === 'run_started')!.event.sessionId);
    await waitFor('the command to start', async () => existsSync(join(root, 'started-grace')));
    const label = `[w${workerCount}] `;
    const exited = new Promise<number | null>((resolve) => worker.once('exit', (code) => resolve(code)));
    worker.kill('SIGTERM');
    await waitFor('the worker to take the signal', async () =>
      team.logs.some((line) => line.startsWith(label) && line.includes('stopping')),
    );
    await writeFile(join(root, 'go-grace'), '');
    assert.equal(await exited, 0, 'the worker stops cleanly once its run has ended');
    const run = (await team.listRuns(serverB)).find((listed) => listed.runId === runId)!;
    assert.deepEqual([run.state, run.attempts], ['succeeded', 1], 'the run ended on the worker that was stopping, not handed over');
    assert.equal(readFileSync(join(root, 'ran-grace.txt'), 'utf8'), 'ran\n');
    assert.doesNotMatch(await sessionText(sessionId), /INTERRUPTED/);
  });
});
