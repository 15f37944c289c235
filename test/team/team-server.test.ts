// The team server end to end: three `glassbox serve --database-url --no-worker` processes, two
// `glassbox worker` processes, one throwaway PostgreSQL cluster and the scripted provider (which
// answers by prompt, so whichever worker asks gets the same script). A run started through A
// streams identically through B and C; an approval asked by a worker is answered through the other
// server; a cancel through B stops a run A started; `kill -9` of the worker mid-run → the other
// worker takes it over and finishes it, the session holding each committed item once; a reconnect
// to the other server with Last-Event-ID loses nothing; concurrent runs all complete.

import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { PgSessionStore } from '../../src/sessions/index.js';
import { type CapturedRequest, type ScriptedTurn, startFakeProvider } from '../../src/testing/index.js';
import { startPgCluster } from '../helpers/pg-cluster.js';
import { cliEnv, startCli } from '../helpers/run-cli.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { eventsOf, readFrames } from '../server/server-harness.js';

const TOKEN = 'team-token-for-the-test-000002';
const LEASE_MS = '1500';

interface Gate {
  promise: Promise<void>;
  open(): void;
}
function gate(): Gate {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The first user message's text: which scripted conversation a request belongs to. */
function promptOf(request: CapturedRequest): string {
  const messages = (request.body.messages ?? []) as Array<{ role: string; content: unknown }>;
  const user = messages.find((message) => message.role === 'user');
  return typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content ?? '');
}
function toolResults(request: CapturedRequest): number {
  return ((request.body.messages ?? []) as Array<{ role: string }>).filter((message) => message.role === 'tool').length;
}

test('team server: servers, workers and PostgreSQL', { timeout: Number(process.env.TEAM_TEST_TIMEOUT ?? 240_000) }, async (t) => {
  const cluster = await startPgCluster(t);
  if (cluster === null) return;
  const url = await cluster.newDatabase();
  const base = await makeTempDir();
  const root = join(base, 'project');
  await mkdir(root, { recursive: true });
  await writeFile(join(root, 'README.md'), '# Team\n');

  const streamGate = gate();
  const cancelGate = gate();
  const killHeld = gate();
  let killRound2Requests = 0;
  const provider = await startFakeProvider({
    whenExhausted: async (request): Promise<ScriptedTurn> => {
      const prompt = promptOf(request);
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
      if (prompt.includes('kill-test')) {
        if (toolResults(request) === 0) return { toolCalls: [{ name: 'shell', arguments: { command: 'echo round-one' } }] };
        killRound2Requests += 1;
        // The first worker's round 2 never answers: it is killed while waiting.
        if (killRound2Requests === 1) await killHeld.promise;
        return { text: 'Finished after the takeover.' };
      }
      return { text: `Quick answer to ${prompt.slice(0, 40)}` };
    },
  });
  t.after(() => provider.close());
  t.after(() => killHeld.open());
  t.after(() => cancelGate.open());

  const children: ChildProcess[] = [];
  const logs: string[] = [];
  t.after(() => {
    if (process.env.TEAM_TEST_DEBUG) process.stderr.write(logs.join(''));
    for (const child of children) child.kill('SIGKILL');
  });
  const common = [
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
  ];
  const env = (name: string) =>
    cliEnv({ OPENAI_API_KEY: 'sk-test', GLASSBOX_TOKEN: TOKEN, GLASSBOX_DATABASE_URL: url, GLASSBOX_HOME: join(base, `home-${name}`) });
  const startServer = (name: string): Promise<string> => {
    const { child, done } = startCli(['serve', '--port', '0', '--no-worker', ...common], env(name));
    children.push(child);
    child.stderr!.on('data', (chunk: Buffer) => logs.push(`[${name}] ${chunk}`));
    let stdout = '';
    return new Promise<string>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes('\n')) resolve(new URL(stdout.trim()).origin);
      });
      void done.then((result) => reject(new Error(`serve ${name} exited: ${result.stderr}`)));
    });
  };
  const startWorker = (name: string): Promise<ChildProcess> => {
    const { child, done } = startCli(['worker', ...common], env(name));
    children.push(child);
    child.stderr!.on('data', (chunk: Buffer) => logs.push(`[${name}] ${chunk}`));
    let stderr = '';
    return new Promise<ChildProcess>((resolve, reject) => {
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes('Ctrl-C to stop')) resolve(child);
      });
      void done.then((result) => reject(new Error(`worker ${name} exited (${result.code}): ${result.stderr}`)));
    });
  };
  // One process migrates first; the others start against the schema (they would also race safely).
  const serverA = await startServer('a');
  const [serverB, serverC, worker1, worker2] = await Promise.all([
    startServer('b'),
    startServer('c'),
    startWorker('w1'),
    startWorker('w2'),
  ]);
  const workers = [worker1, worker2];

  const api = (origin: string, path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${TOKEN}`);
    return fetch(`${origin}${path}`, { ...init, headers });
  };
  const post = (origin: string, path: string, body: unknown) =>
    api(origin, path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const startRun = async (origin: string, body: Record<string, unknown>) => {
    const response = await post(origin, '/api/runs', { sandbox: 'workspace-write', approvalPolicy: 'never', ...body });
    if (response.status !== 200) assert.fail(`POST /api/runs: ${response.status} ${await response.text()}`);
    return { runId: response.headers.get('x-run-id')!, response };
  };
  type Listed = {
    runId: string;
    status: string;
    state: string;
    attempts: number;
    worker: { id: string; host: string; pid: number } | null;
    sessionId: string;
  };
  const listRuns = async (origin: string) => ((await (await api(origin, '/api/runs')).json()) as { runs: Listed[] }).runs;

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

  await t.test('kill -9 of the worker mid-run: the other takes it over and finishes it; B re-attaches with Last-Event-ID', async () => {
    const { runId, response } = await startRun(serverA, { prompt: 'kill-test' });
    const frames = await readFrames(response, (frame) => frame.event === 'tool_finished');
    const seen = eventsOf(frames);
    await waitFor('round 2 asked', async () => killRound2Requests === 1);
    const holder = (await listRuns(serverB)).find((run) => run.runId === runId)!.worker!;
    const victim = workers.find((worker) => worker.pid === holder.pid)!;
    assert.ok(victim, `the holder ${JSON.stringify(holder)} is one of the workers`);
    const killedAt = Date.now();
    victim.kill('SIGKILL');
    // Re-attach to the other server from the last event seen; the rest arrives there.
    const rest = eventsOf(
      await readFrames(await api(serverB, `/api/runs/${runId}/events`, { headers: { 'last-event-id': String(seen.at(-1)!.id) } })),
    );
    const tookOverWithin = Date.now() - killedAt;
    assert.equal(rest.at(-1)!.type, 'run_succeeded', JSON.stringify(rest.at(-1)));
    assert.ok(tookOverWithin < Number(LEASE_MS) + 1000 + 10_000, `took ${tookOverWithin} ms`);
    const listed = (await listRuns(serverA)).find((run) => run.runId === runId)!;
    assert.equal(listed.attempts, 2);
    // The takeover numbers above every id the dead worker sent (deltas included, which are not
    // stored): what attempt 1 committed keeps its ids, attempt 2's follow from 10,000,001.
    const restIds = rest.map((entry) => entry.id);
    assert.ok(
      restIds.every((id, index) => index === 0 || id > restIds[index - 1]!),
      JSON.stringify(restIds),
    );
    assert.ok(restIds.at(-1)! > 10_000_000, JSON.stringify(restIds));
    assert.notEqual(listed.worker!.pid, victim.pid);

    // Nothing lost: the stored events after the reconnect point are all there, in order, once.
    const full = eventsOf(await readFrames(await api(serverA, `/api/runs/${runId}/events`)));
    const storedAfter = full.filter((entry) => entry.id > seen.at(-1)!.id).map((entry) => entry.id);
    assert.deepEqual(
      rest.filter((entry) => entry.type !== 'assistant_delta').map((entry) => entry.id),
      storedAfter,
    );
    // Nothing duplicated: one turn, the prompt and round one's call recorded once.
    const store = await PgSessionStore.open(url);
    t.after(() => store.close());
    const { records } = await store.read(listed.sessionId);
    assert.equal(records.filter((record) => record.type === 'turn_started').length, 1);
    const items = records.filter((record) => record.type === 'response_item').map((record) => JSON.stringify(record.item));
    assert.equal(items.filter((item) => item.includes('kill-test') && item.includes('"user"')).length, 1);
    assert.equal(items.filter((item) => item.includes('function_call"') && item.includes('round-one')).length, 1);
    assert.equal(records.filter((record) => record.type === 'turn_completed').length, 1);
    workers.splice(workers.indexOf(victim), 1);
  });

  await t.test('concurrent runs through both servers all complete', async () => {
    const started = await Promise.all(
      Array.from({ length: 6 }, (_, index) => startRun(index % 2 === 0 ? serverA : serverB, { prompt: `quick run ${index}` })),
    );
    const ends = await Promise.all(started.map(async ({ response }) => eventsOf(await readFrames(response)).at(-1)!));
    assert.deepEqual(
      ends.map((end) => end.type),
      started.map(() => 'run_succeeded'),
    );
  });
});
