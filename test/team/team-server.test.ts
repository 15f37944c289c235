// The team server end to end: three `glassbox serve --database-url --no-worker` processes, two
// `glassbox worker` processes, one throwaway PostgreSQL cluster and the scripted provider (which
// answers by prompt, so whichever worker asks gets the same script). A run started through A
// streams identically through B and C; an approval asked by a worker is answered through another
// server; a cancel through B stops a run A started; `kill -9` of the worker at three points of a
// run (while the model streams, while a tool runs, between a tool's output and the next answer) →
// the other worker claims it within the lease + 1 s by the database's clock and finishes it, a
// reconnect to another server with Last-Event-ID loses nothing, and the session passes the checks
// the fault suite holds a session file to after a kill (test/helpers/session-checks.ts); a second
// writer on a session a worker holds is refused, as a run (409) and as `glassbox exec --resume`; a
// repository run is worked in a worktree of its own; 50 concurrent runs all complete.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import pg from 'pg';
import { PgSessionStore } from '../../src/sessions/index.js';
import { type CapturedRequest, type ScriptedTurn, startFakeProvider } from '../../src/testing/index.js';
import { startPgCluster } from '../helpers/pg-cluster.js';
import { cliEnv, runCli } from '../helpers/run-cli.js';
import {
  assertRepairedOnce,
  assertSentHistory,
  assertStoreReplays,
  expectedHistory,
  orphanCallIds,
  snapshotOfText,
} from '../helpers/session-checks.js';
import { gate, promptOf, teamProcesses, toolResults, waitFor } from '../helpers/team-processes.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { waitUntil } from '../helpers/wait-until.js';
import { eventsOf, readFrames, type SseFrame } from '../server/server-harness.js';

const TOKEN = 'team-token-for-the-test-000002';
const LEASE_MS = '1500';

const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com',
};

/** A repository with `hello.txt` at tag v1 and a later commit on main. */
async function sourceRepository(dir: string): Promise<void> {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env: GIT_ENV });
  await mkdir(dir, { recursive: true });
  git('init', '-q', '-b', 'main');
  await writeFile(join(dir, 'hello.txt'), 'hello from v1\n');
  git('add', 'hello.txt');
  git('commit', '-q', '-m', 'v1');
  git('tag', 'v1');
  await writeFile(join(dir, 'hello.txt'), 'hello from v2\n');
  git('commit', '-q', '-am', 'v2');
}

/** A run's queue row: the claim stamps updated_at (by the database's clock), renewals do not. */
interface RunRow {
  state: string;
  attempts: number;
  worker_pid: number;
  updated_at: Date;
}

/** A run the test kills the worker of: what its model answers before the kill and after the takeover. */
interface KillPoint {
  prompt: string;
  runId: string | null;
  killed: boolean;
  /** The takeover's first model request, and the run's row as it stood then (claimed, not yet finished). */
  takeover: CapturedRequest | null;
  claim: RunRow | null;
  beforeKill(request: CapturedRequest): Promise<ScriptedTurn> | ScriptedTurn;
  afterKill(request: CapturedRequest): ScriptedTurn;
}
function killPoint(prompt: string, beforeKill: KillPoint['beforeKill'], afterKill: KillPoint['afterKill']): KillPoint {
  return { prompt, runId: null, killed: false, takeover: null, claim: null, beforeKill, afterKill };
}

test('team server: servers, workers and PostgreSQL', { timeout: Number(process.env.TEAM_TEST_TIMEOUT ?? 240_000) }, async (t) => {
  const cluster = await startPgCluster(t);
  if (cluster === null) return;
  const url = await cluster.newDatabase();
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on('error', () => undefined);
  t.after(() => pool.end());
  const runRow = async (runId: string): Promise<RunRow> =>
    (await pool.query<RunRow>('SELECT state, attempts, worker_pid, updated_at FROM glassbox_runs WHERE run_id = $1', [runId])).rows[0]!;
  const base = await makeTempDir();
  const root = join(base, 'project');
  await mkdir(root, { recursive: true });
  await writeFile(join(root, 'README.md'), '# Team\n');
  const source = join(base, 'source');
  await sourceRepository(source);

  const streamGate = gate();
  const cancelGate = gate();
  const killHeld = gate();
  const holdGate = gate();
  const kills = {
    // Round 1's answer streams a few deltas and then goes silent: the worker dies mid-stream.
    stream: killPoint(
      'kill-stream',
      () => ({ text: 'A long answer that the kill cuts off halfway through.', chunkSize: 4, fault: { kind: 'stall', afterEvents: 6 } }),
      () => ({ text: 'Answered after the takeover.' }),
    ),
    // The command marks that it runs, then runs on until the worker (and its sandbox) is killed.
    tool: killPoint(
      'kill-tool',
      () => ({ toolCalls: [{ name: 'shell', arguments: { command: 'touch tool-running && sleep 20' } }] }),
      (request) => ({ text: `Went on after ${toolResults(request)} interrupted call.` }),
    ),
    // The first worker's round 2 never answers: it is killed while waiting.
    round2: killPoint(
      'kill-round2',
      async (request) => {
        if (toolResults(request) === 0) return { toolCalls: [{ name: 'shell', arguments: { command: 'echo round-one' } }] };
        await killHeld.promise;
        return { text: 'too late' };
      },
      () => ({ text: 'Finished after the takeover.' }),
    ),
  };
  const provider = await startFakeProvider({
    whenExhausted: async (request): Promise<ScriptedTurn> => {
      const prompt = promptOf(request);
      const point = Object.values(kills).find((candidate) => prompt.includes(candidate.prompt));
      if (point !== undefined) {
        if (!point.killed) return point.beforeKill(request);
        if (point.takeover === null) {
          point.takeover = request;
          point.claim = await runRow(point.runId!);
        }
        return point.afterKill(request);
      }
      if (prompt.includes('stream-test')) {
        await streamGate.promise;
        return { text: 'Hello from the team, streamed through every server.' };
      }
      if (prompt.includes('approval-test')) {
        return toolResults(request) === 0
          ? { toolCalls: [{ name: 'shell', arguments: { command: 'touch approved.txt' } }] }
          : { text: 'Made it.' };
      }
      if (prompt.includes('cancel-test')) {
        await cancelGate.promise;
        return { text: 'too late' };
      }
      if (prompt.includes('hold-test')) {
        // A second writer let in asks with its own prompt and gets its answer at once (and fails the test).
        if (JSON.stringify(request.body).includes('second writer')) return { text: 'The second writer was let in.' };
        await holdGate.promise;
        return { text: 'Held, then answered.' };
      }
      if (prompt.includes('repo-test')) {
        return toolResults(request) === 0 ? { toolCalls: [{ name: 'read_file', arguments: { path: 'hello.txt' } }] } : { text: 'Read it.' };
      }
      return { text: `Quick answer to ${prompt.slice(0, 40)}` };
    },
  });
  t.after(() => provider.close());
  t.after(() => killHeld.open());
  t.after(() => cancelGate.open());
  t.after(() => holdGate.open());
  const toolResultRequests = (prompt: string) =>
    provider.requests.filter((request) => promptOf(request).includes(prompt) && toolResults(request) === 1).length;

  const { startServer, startWorker, api, post, startRun, listRuns, logs } = teamProcesses(t, {
    token: TOKEN,
    databaseUrl: url,
    base,
    args: [
      '--base-url',
      provider.baseURL,
      '-C',
      root,
      '--sandbox',
      'workspace-write',
      '--approval-policy',
      'never',
      '--lease-ms',
      LEASE_MS,
      '--repository',
      source,
    ],
  });
  // One process migrates first; the others start against the schema (they would also race safely).
  const serverA = await startServer('a');
  const [serverB, serverC, worker1, worker2] = await Promise.all([
    startServer('b'),
    startServer('c'),
    startWorker('w1'),
    startWorker('w2'),
  ]);
  const workers = [worker1, worker2];
  let workerCount = workers.length;

  await t.test('a run started through A streams identically through B and C', async () => {
    const { runId, response } = await startRun(serverA, { prompt: 'stream-test' });
    const [throughB, throughC] = await Promise.all([api(serverB, `/api/runs/${runId}/events`), api(serverC, `/api/runs/${runId}/events`)]);
    assert.equal(throughB.status, 200);
    assert.equal(throughC.status, 200);
    // Both streams are subscribed before the model answers anything.
    await waitFor('the model request', async () => provider.requests.some((request) => promptOf(request).includes('stream-test')));
    streamGate.open();
    const [framesA, framesB, framesC] = await Promise.all([readFrames(response), readFrames(throughB), readFrames(throughC)]);
    const a = eventsOf(framesA);
    assert.equal(a.at(-1)!.type, 'run_succeeded');
    assert.ok(
      a.some((entry) => entry.type === 'assistant_delta'),
      'deltas reach the subscribers',
    );
    assert.deepEqual(eventsOf(framesB), a);
    assert.deepEqual(eventsOf(framesC), a);
    const listed = (await listRuns(serverB)).find((run) => run.runId === runId)!;
    assert.equal(listed.state, 'succeeded');
    assert.ok(listed.worker !== null && workers.some((worker) => worker.pid === listed.worker!.pid), JSON.stringify(listed));
  });

  await t.test('an approval asked on a worker is listed and answered through the other server', async () => {
    const { runId, response } = await startRun(serverA, { prompt: 'approval-test', approvalPolicy: 'untrusted' });
    const before = eventsOf(await readFrames(response, (frame) => frame.event === 'approval_requested'));
    const callId = String(before.at(-1)!.event.callId);
    // The row is stored before the event that announces it: listed at once, on another server.
    type Listed = { approvals: Array<{ callId: string; sessionId: string | null }> };
    const listed = (await (await api(serverB, `/api/approvals?runId=${runId}`)).json()) as Listed;
    assert.deepEqual(
      listed.approvals.map((approval) => approval.callId),
      [callId],
    );
    assert.ok(listed.approvals[0]!.sessionId);
    const resolved = await post(serverB, `/api/approvals/${runId}/${encodeURIComponent(callId)}`, { decision: 'approve' });
    assert.equal(resolved.status, 200);
    const after = eventsOf(
      await readFrames(await api(serverA, `/api/runs/${runId}/events`, { headers: { 'last-event-id': String(before.at(-1)!.id) } })),
    );
    assert.equal(after.find((entry) => entry.type === 'approval_resolved')?.event.decision, 'approve');
    assert.equal(after.at(-1)!.type, 'run_succeeded');
    assert.equal(existsSync(join(root, 'approved.txt')), true);
    assert.deepEqual(((await (await api(serverA, '/api/approvals')).json()) as { approvals: unknown[] }).approvals, []);
  });

  await t.test('a run started through A is cancelled through B', async () => {
    const { runId, response } = await startRun(serverA, { prompt: 'cancel-test' });
    await waitFor('the model request', async () => provider.requests.some((request) => promptOf(request).includes('cancel-test')));
    const cancelled = await post(serverB, `/api/runs/${runId}/cancel`, {});
    assert.equal(cancelled.status, 202);
    const events = eventsOf(await readFrames(response));
    assert.equal(events.at(-1)!.type, 'run_cancelled');
    assert.equal((await listRuns(serverA)).find((run) => run.runId === runId)!.state, 'cancelled');
    assert.equal((await post(serverB, `/api/runs/${runId}/cancel`, {})).status, 409);
  });

  /** A session's JSONL text as the store holds it: each row is one line, exactly. */
  const sessionText = async (sessionId: string): Promise<string> => {
    const rows = await pool.query<{ body: string }>('SELECT body FROM glassbox_session_records WHERE session_id = $1 ORDER BY line', [
      sessionId,
    ]);
    return rows.rows.map((row) => `${row.body}\n`).join('');
  };
  const snapshotOf = async (sessionId: string) => snapshotOfText(`session ${sessionId} in PostgreSQL`, await sessionText(sessionId));
  const store = await PgSessionStore.open(url);
  t.after(() => store.close());

  /**
   * Start the point's run through A, wait for `trigger` on its stream (and `ready`), record the
   * database's clock and `kill -9` the worker holding the run; the other worker takes it over.
   * Then: B re-attaches with Last-Event-ID and gets the rest; the claim came within the lease + 1 s
   * of the kill by the database's clock; and the session passes the checks a file session passes
   * after a kill (test/helpers/session-checks.ts), with the takeover continuing the same turn.
   * Returns the session as the takeover found it, and how long after the kill the claim came.
   */
  const killMidRun = async (point: KillPoint, trigger: (frame: SseFrame) => boolean, ready: () => Promise<unknown> = async () => {}) => {
    const { runId, response } = await startRun(serverA, { prompt: point.prompt });
    point.runId = runId;
    const seen = eventsOf(await readFrames(response, trigger));
    assert.ok(!/^run_(succeeded|failed|cancelled)$/.test(seen.at(-1)!.type), 'the run ended before the kill point');
    await ready();
    const sessionId = String(seen.find((entry) => entry.type === 'run_started')!.event.sessionId);
    const holder = (await runRow(runId)).worker_pid;
    const victim = workers.find((worker) => worker.pid === holder);
    assert.ok(victim, `the holder (pid ${holder}) is one of the workers`);
    const exited = new Promise((resolve) => victim.once('exit', resolve));
    // The kill time by the database's clock, the one the claim is stamped with, taken right before the kill.
    const killedAt = (await pool.query<{ now: Date }>('SELECT clock_timestamp() AS now')).rows[0]!.now;
    point.killed = true;
    victim.kill('SIGKILL');
    await exited;
    workers.splice(workers.indexOf(victim), 1);
    // What the dead worker left: the takeover cannot write before the session lease it held ends.
    const before = await snapshotOf(sessionId);
    assert.equal(before.tornTailBytes, 0);

    // Re-attach to the other server from the last event seen; the rest arrives there.
    const rest = eventsOf(
      await readFrames(await api(serverB, `/api/runs/${runId}/events`, { headers: { 'last-event-id': String(seen.at(-1)!.id) } })),
    );
    assert.equal(rest.at(-1)!.type, 'run_succeeded', JSON.stringify(rest.at(-1)));
    // Two workers again for what follows, started while this run is checked.
    const replacement = startWorker(`w${(workerCount += 1)}`);

    const claim = point.claim!;
    assert.ok(claim, 'the takeover asked the model');
    assert.equal(claim.attempts, 2);
    assert.notEqual(claim.worker_pid, victim.pid);
    const tookOverMs = claim.updated_at.getTime() - killedAt.getTime();
    assert.ok(
      tookOverMs >= 0 && tookOverMs <= Number(LEASE_MS) + 1000,
      `claimed ${tookOverMs} ms after the kill (lease ${LEASE_MS} ms + 1 s at most)`,
    );
    const listed = (await listRuns(serverA)).find((run) => run.runId === runId)!;
    assert.equal(listed.attempts, 2);
    assert.equal(listed.worker!.pid, claim.worker_pid);

    // The takeover numbers above every id the dead worker sent (deltas included, which are not
    // stored): what attempt 1 committed keeps its ids, attempt 2's follow from 10,000,001.
    const restIds = rest.map((entry) => entry.id);
    assert.ok(
      restIds.every((id, index) => index === 0 || id > restIds[index - 1]!),
      JSON.stringify(restIds),
    );
    assert.ok(restIds.at(-1)! > 10_000_000, JSON.stringify(restIds));
    // Nothing lost: the stored events after the reconnect point are all there, in order, once.
    const full = eventsOf(await readFrames(await api(serverA, `/api/runs/${runId}/events`)));
    assert.deepEqual(
      rest.filter((entry) => entry.type !== 'assistant_delta').map((entry) => entry.id),
      full.filter((entry) => entry.id > seen.at(-1)!.id).map((entry) => entry.id),
    );

    // The session passes what a file session passes after a kill: only appended to, one repair
    // per call left without an output, the takeover's request sent exactly the history the dead
    // worker committed (and no new prompt: the turn is continued, not started again), the replay
    // equals that history, and a second resume finds nothing left to repair.
    const after = await snapshotOf(sessionId);
    const expected = expectedHistory(before.items, before.repairs);
    assertSentHistory(point.takeover!, expected, null, 'the takeover request');
    const continued = await assertRepairedOnce(store, sessionId, before, after, () => sessionText(sessionId));
    assert.ok(continued.length > 0 && continued[0]!.type !== 'turn_started', 'the takeover continues the turn');
    const history = await assertStoreReplays(store, sessionId, after);
    assert.deepEqual(history.slice(0, expected.length), expected, 'the replayed history starts with what the dead worker committed');
    const count = (type: string) => after.records.filter((record) => record.type === type).length;
    assert.equal(count('turn_started'), 1);
    assert.equal(count('turn_completed'), 1);
    const prompts = after.items.filter((item) => item.type === 'message' && item.role === 'user' && item.content.includes(point.prompt));
    assert.equal(prompts.length, 1, 'the prompt is recorded once');

    workers.push(await replacement);
    return { before, tookOverMs };
  };

  await t.test('kill -9 of the worker while the model streams: the other takes the run over and redoes the round', async (t) => {
    const { before, tookOverMs } = await killMidRun(kills.stream, (frame) => frame.event === 'assistant_delta');
    t.diagnostic(`claimed ${tookOverMs} ms after the kill`);
    assert.deepEqual(orphanCallIds(before.items), []);
    assert.ok(!before.items.some((item) => item.type === 'message' && item.role === 'assistant'), 'the cut-off answer was not committed');
  });

  await t.test('kill -9 of the worker while a tool runs: the call gets one interrupted output and the turn goes on', async (t) => {
    const marker = join(root, 'tool-running');
    const { before, tookOverMs } = await killMidRun(
      kills.tool,
      (frame) => frame.event === 'tool_started',
      () => waitUntil(async () => existsSync(marker), 'the command runs', 30_000),
    );
    t.diagnostic(`claimed ${tookOverMs} ms after the kill`);
    assert.equal(orphanCallIds(before.items).length, 1, 'the call was committed and its output not');
  });

  await t.test('kill -9 of the worker between a tool output and the next answer: the other finishes it', async (t) => {
    const { before, tookOverMs } = await killMidRun(
      kills.round2,
      (frame) => frame.event === 'tool_finished',
      () => waitFor('round 2 asked', async () => toolResultRequests(kills.round2.prompt) === 1),
    );
    t.diagnostic(`claimed ${tookOverMs} ms after the kill`);
    assert.deepEqual(orphanCallIds(before.items), []);
    assert.ok(
      before.items.some((item) => item.type === 'function_call_output' && item.output.includes('round-one')),
      'the output was committed before the kill',
    );
  });

  await t.test('a second writer on a session a worker holds is refused: another run (409) and glassbox exec --resume', async () => {
    const { runId, response } = await startRun(serverA, { prompt: 'hold-test' });
    const sessionId = String(eventsOf(await readFrames(response, (frame) => frame.event === 'run_started')).at(-1)!.event.sessionId);
    await waitFor('the model request', async () => provider.requests.some((request) => promptOf(request).includes('hold-test')));
    const before = await sessionText(sessionId);
    const holder = (await runRow(runId)).worker_pid;

    const second = await post(serverB, '/api/runs', {
      sandbox: 'workspace-write',
      approvalPolicy: 'never',
      prompt: 'second run',
      sessionId,
    });
    assert.equal(second.status, 409);
    assert.match(((await second.json()) as { error: string }).error, new RegExp(`session ${sessionId} already has an active run`));

    const exec = await runCli(
      [
        'exec',
        '--database-url',
        url,
        '--resume',
        sessionId,
        '--base-url',
        provider.baseURL,
        '-C',
        root,
        '--sandbox',
        'workspace-write',
        '--approval-policy',
        'never',
        'second writer',
      ],
      cliEnv({ OPENAI_API_KEY: 'sk-test', GLASSBOX_HOME: join(base, 'home-exec') }),
    );
    assert.equal(exec.code, 1, exec.stderr);
    // The worker holding it then: the one that claimed it, or (the test's lease is short, and a
    // late renewal on loaded cores hands a run over) the one holding it now.
    const named = Number(new RegExp(`session ${sessionId} is in use by pid (\\d+)`).exec(exec.stderr)?.[1]);
    assert.ok([holder, (await runRow(runId)).worker_pid].includes(named), exec.stderr);
    assert.equal(exec.stdout, '', 'the second writer started no run');
    assert.equal(await sessionText(sessionId), before, 'the refused writers wrote nothing');
    assert.ok(!provider.requests.some((request) => JSON.stringify(request.body).includes('second')), 'no second run asked the model');

    holdGate.open();
    const runs = await waitFor('the held run ends', async () => {
      const listed = (await listRuns(serverB)).filter((run) => run.sessionId === sessionId);
      return listed.every((run) => run.state !== 'running' && run.state !== 'queued') && listed;
    });
    assert.deepEqual(
      runs.map((run) => [run.runId, run.state]),
      [[runId, 'succeeded']],
    );
    const after = await snapshotOf(sessionId);
    assert.ok(after.text.startsWith(before));
    assert.equal(after.records.filter((record) => record.type === 'turn_started').length, 1);
  });

  await t.test('a repository run through a team worker reads the ref’s files in a worktree of its own', async () => {
    const { runId, response } = await startRun(serverC, { prompt: 'repo-test', project: { repository: source, ref: 'v1' } });
    const events = eventsOf(await readFrames(response));
    assert.equal(events.at(-1)!.type, 'run_succeeded', JSON.stringify(events.at(-1)));
    const finished = events.find((entry) => entry.type === 'tool_finished')!;
    assert.equal(finished.event.isError, false, String(finished.event.output));
    assert.match(String(finished.event.output), /hello from v1/);
    const holder = (await runRow(runId)).worker_pid;
    assert.ok(workers.some((worker) => worker.pid === holder));
    // The worktree was made beside the worker's home (its work dir) and removed with the run.
    const workDirs = (await readdir(base)).filter((name) => /^home-w\d+-work$/.test(name));
    assert.ok(workDirs.length > 0, 'a worker made its work dir');
    for (const dir of workDirs) assert.equal(existsSync(join(base, dir, 'worktrees', runId)), false, 'the worktree outlived the run');
  });

  // 50 at once across A, B and C (TEAM_TEST_RUNS sets another count when looking for a flake).
  await t.test('concurrent runs through the three servers all complete, each session holding its prompt and answer once', async () => {
    const count = Number(process.env.TEAM_TEST_RUNS ?? 50);
    const origins = [serverA, serverB, serverC];
    const started = await Promise.all(
      Array.from({ length: count }, (_, index) => startRun(origins[index % origins.length]!, { prompt: `quick run ${index}` })),
    );
    const ends = await Promise.all(started.map(async ({ response }) => eventsOf(await readFrames(response)).at(-1)!));
    const listed = new Map((await listRuns(serverC)).map((run) => [run.runId, run]));
    const failed = ends.flatMap((end, index) =>
      end.type === 'run_succeeded'
        ? []
        : [
            {
              run: listed.get(started[index]!.runId),
              end: JSON.stringify(end).slice(0, 600),
              // What the workers logged of it: the cause of a failure lands there, not in the event.
              log: logs
                .filter((entry) => entry.includes(started[index]!.runId))
                .join('')
                .slice(0, 2000),
            },
          ],
    );
    assert.deepEqual(failed, [], 'every run succeeded');
    await Promise.all(
      started.map(async ({ runId }, index) => {
        const run = listed.get(runId)!;
        assert.equal(run.state, 'succeeded');
        // The test's lease is short (1.5 s, for the takeover timing above): on two loaded cores a
        // renewal can come late and hand a run to the other worker mid-turn. That is a takeover
        // like any other, and what follows checks it lost and repeated nothing.
        assert.ok(run.attempts >= 1, `${runId}: attempts ${run.attempts}`);
        const session = await snapshotOf(run.sessionId);
        const count = (type: string) => session.records.filter((record) => record.type === type).length;
        assert.equal(count('turn_started'), 1, run.sessionId);
        assert.equal(count('turn_completed'), 1, run.sessionId);
        const said = (role: string, text: string) =>
          session.items.filter((item) => item.type === 'message' && item.role === role && item.content === text).length;
        assert.equal(said('user', `quick run ${index}`), 1, `${run.sessionId}: the prompt once`);
        assert.equal(said('assistant', `Quick answer to quick run ${index}`), 1, `${run.sessionId}: the answer once`);
        await assertStoreReplays(store, run.sessionId, session);
      }),
    );
    const workedBy = new Set(started.map(({ runId }) => listed.get(runId)!.worker!.pid));
    assert.equal(workedBy.size, 2, 'both workers took runs');
  });
});
