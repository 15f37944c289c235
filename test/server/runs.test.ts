import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { JsonlSessionStore } from '../../src/sessions/index.js';
import { eventsOf, readFrames, startHarness, type Harness } from './server-harness.js';

type Event = ReturnType<typeof eventsOf>[number];

function assertContiguous(events: Event[], from = 1): void {
  events.forEach((event, index) => assert.equal(event.id, from + index, `event ${index} (${event.type}) has id ${event.id}`));
}

async function startRun(h: Harness, body: Record<string, unknown>): Promise<{ runId: string; response: Response }> {
  const response = await h.post('/api/runs', body);
  assert.equal(response.status, 200, response.status === 200 ? '' : await response.clone().text());
  const runId = response.headers.get('x-run-id');
  assert.ok(runId);
  return { runId, response };
}

describe('runs over SSE', () => {
  test('a run end to end: run_started first, the terminal event last, ids contiguous, data is the event JSON', async () => {
    const h = await startHarness({
      script: [{ text: 'Let me look.', toolCalls: [{ name: 'read_file', arguments: { path: 'README.md' } }] }, { text: 'It is a sample.' }],
    });
    try {
      const { runId, response } = await startRun(h, { prompt: 'What is this?' });
      assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
      const frames = await readFrames(response);
      const events = eventsOf(frames);
      assert.equal(events[0]!.type, 'run_started');
      assert.equal(events[0]!.event.runId, runId);
      assert.equal(events.at(-1)!.type, 'run_succeeded');
      assert.equal(events.at(-1)!.event.answer, 'It is a sample.');
      assertContiguous(events);
      for (const frame of frames.filter((f) => f.event !== ':')) {
        const parsed = JSON.parse(frame.data) as { type: string };
        assert.equal(frame.event, parsed.type);
        assert.equal(frame.data, JSON.stringify(parsed));
      }
      const finished = events.find((e) => e.type === 'tool_finished')!;
      assert.equal(finished.event.isError, false);
      assert.match(String(finished.event.output), /# Sample/);

      // The session recorded the same audit events the stream carried.
      const sessionId = String(events[0]!.event.sessionId);
      const page = (await (await h.api(`/api/sessions/${sessionId}`)).json()) as { records: Array<{ record: Record<string, unknown> }> };
      const audited = page.records
        .map((entry) => entry.record)
        .filter((record) => record.type === 'audit')
        .map((record) => record.event);
      const streamed = events
        .filter((e) => ['tool_permission_decided', 'tool_started', 'tool_finished'].includes(e.type))
        .map((e) => {
          const { output: _output, ...rest } = e.event;
          return rest;
        });
      assert.deepEqual(audited, streamed);

      const runs = (await (await h.api('/api/runs')).json()) as { runs: Array<Record<string, unknown>> };
      assert.equal(runs.runs.length, 1);
      assert.equal(runs.runs[0]!.runId, runId);
      assert.equal(runs.runs[0]!.sessionId, sessionId);
      assert.equal(runs.runs[0]!.status, 'succeeded');
      assert.equal(runs.runs[0]!.prompt, 'What is this?');

      // Re-attaching to a finished run replays everything, identically.
      const replay = eventsOf(await readFrames(await h.api(`/api/runs/${runId}/events`)));
      assert.deepEqual(replay, events);
    } finally {
      await h.close();
    }
  });

  test('re-attaching with Last-Event-ID replays exactly what was missed, and the run went on meanwhile', async () => {
    const h = await startHarness({
      script: [{ text: 'A long answer that streams in many small pieces, one by one.', chunkSize: 3, chunkDelayMs: 15 }],
    });
    try {
      const { runId, response } = await startRun(h, { prompt: 'stream please' });
      const seen = eventsOf(await readFrames(response, (frame) => frame.id === 4));
      assertContiguous(seen);
      assert.equal(seen.length, 4);

      const rest = eventsOf(await readFrames(await h.api(`/api/runs/${runId}/events`, { headers: { 'last-event-id': '4' } })));
      assertContiguous(rest, 5);
      assert.equal(rest.at(-1)!.type, 'run_succeeded');
      const all = eventsOf(await readFrames(await h.api(`/api/runs/${runId}/events`)));
      assert.deepEqual([...seen, ...rest], all);
      const text = all
        .filter((e) => e.type === 'assistant_delta')
        .map((e) => e.event.delta)
        .join('');
      assert.equal(text, 'A long answer that streams in many small pieces, one by one.');

      const query = eventsOf(await readFrames(await h.api(`/api/runs/${runId}/events?lastEventId=${all.length - 1}`)));
      assert.deepEqual(query, all.slice(-1));
      const beyond = await h.api(`/api/runs/${runId}/events`, { headers: { 'last-event-id': String(all.length + 5) } });
      assert.equal(beyond.status, 400);
      const garbage = await h.api(`/api/runs/${runId}/events`, { headers: { 'last-event-id': 'abc' } });
      assert.equal(garbage.status, 400);
      assert.equal((await h.api('/api/runs/00000000-0000-4000-8000-000000000000/events')).status, 404);
      assert.equal((await h.api('/api/runs/not-a-run/events')).status, 404);
    } finally {
      await h.close();
    }
  });

  test('cancel ends a run with run_cancelled; cancelling again is 409, an unknown run 404; heartbeats flow meanwhile', async () => {
    const h = await startHarness({ script: [{ fault: { kind: 'hang' } }], settings: { heartbeatMs: 40 } });
    try {
      const { runId, response } = await startRun(h, { prompt: 'hang' });
      const frames = await readFrames(response, (frame) => frame.event === ':');
      assert.equal(frames.at(-1)!.data, 'heartbeat');
      const cancel = await h.post(`/api/runs/${runId}/cancel`, {});
      assert.equal(cancel.status, 202);
      assert.deepEqual(await cancel.json(), { cancelled: true });
      const events = eventsOf(await readFrames(await h.api(`/api/runs/${runId}/events`)));
      const last = events.at(-1)!;
      assert.equal(last.type, 'run_cancelled');
      assert.equal(last.event.reason, 'Cancelled from the workbench.');
      assertContiguous(events);
      assert.equal((await h.post(`/api/runs/${runId}/cancel`, {})).status, 409);
      assert.equal((await h.post('/api/runs/00000000-0000-4000-8000-000000000000/cancel', {})).status, 404);
      const runs = (await (await h.api('/api/runs')).json()) as { runs: Array<Record<string, unknown>> };
      assert.equal(runs.runs[0]!.status, 'cancelled');
    } finally {
      await h.close();
    }
  });

  test('a second run on a session with an active run is 409; the session continues afterwards', async () => {
    const h = await startHarness({ script: [{ text: 'First answer.' }, { fault: { kind: 'hang' } }, { text: 'Third answer.' }] });
    try {
      const first = await startRun(h, { prompt: 'one' });
      const firstEvents = eventsOf(await readFrames(first.response));
      const sessionId = String(firstEvents[0]!.event.sessionId);

      const second = await startRun(h, { prompt: 'two', sessionId });
      await readFrames(second.response, (frame) => frame.event === 'model_requested');
      const conflict = await h.post('/api/runs', { prompt: 'three', sessionId });
      assert.equal(conflict.status, 409);
      assert.match(((await conflict.json()) as { error: string }).error, /active run/);
      const compact = await h.post(`/api/sessions/${sessionId}/compact`, {});
      assert.equal(compact.status, 409);

      assert.equal((await h.post(`/api/runs/${second.runId}/cancel`, {})).status, 202);
      await readFrames(await h.api(`/api/runs/${second.runId}/events`));
      const third = await startRun(h, { prompt: 'three', sessionId });
      const thirdEvents = eventsOf(await readFrames(third.response));
      assert.equal(thirdEvents[0]!.event.resumed, true);
      assert.equal(thirdEvents.at(-1)!.type, 'run_succeeded');
      // A new session id that does not exist is a 404, not a stream.
      const missing = await h.post('/api/runs', { prompt: 'x', sessionId: '01a2293c-35a7-7273-a315-931e21774c91' });
      assert.equal(missing.status, 404);
    } finally {
      await h.close();
    }
  });

  test('approving a shell call over the API lets it run', async () => {
    const h = await startHarness({
      script: [{ toolCalls: [{ name: 'shell', arguments: { command: 'touch made-by-agent.txt' } }] }, { text: 'Created it.' }],
    });
    try {
      const { runId, response } = await startRun(h, { prompt: 'make a file', sandbox: 'workspace-write', approvalPolicy: 'untrusted' });
      const before = eventsOf(await readFrames(response, (frame) => frame.event === 'approval_requested'));
      const requested = before.at(-1)!;
      assert.equal(requested.type, 'approval_requested');
      const callId = String(requested.event.callId);

      const listed = (await (await h.api(`/api/approvals?runId=${runId}`)).json()) as { approvals: Array<Record<string, unknown>> };
      assert.equal(listed.approvals.length, 1);
      assert.equal(listed.approvals[0]!.callId, callId);
      assert.equal(listed.approvals[0]!.toolName, 'shell');
      assert.match(String(listed.approvals[0]!.summary), /touch made-by-agent\.txt/);
      assert.ok(listed.approvals[0]!.requestedAt && listed.approvals[0]!.expiresAt);
      assert.equal(existsSync(join(h.root, 'made-by-agent.txt')), false);

      const resolved = await h.post(`/api/approvals/${runId}/${encodeURIComponent(callId)}`, { decision: 'approve' });
      assert.equal(resolved.status, 200);
      assert.deepEqual(await resolved.json(), { resolved: true });
      assert.equal((await h.post(`/api/approvals/${runId}/${encodeURIComponent(callId)}`, { decision: 'approve' })).status, 404);

      const after = eventsOf(
        await readFrames(await h.api(`/api/runs/${runId}/events`, { headers: { 'last-event-id': String(requested.id) } })),
      );
      assertContiguous(after, requested.id + 1);
      const resolvedEvent = after.find((e) => e.type === 'approval_resolved')!;
      assert.equal(resolvedEvent.event.decision, 'approve');
      assert.equal(resolvedEvent.event.by, 'user');
      const finished = after.find((e) => e.type === 'tool_finished')!;
      assert.equal(finished.event.isError, false, String(finished.event.output));
      assert.equal(after.at(-1)!.type, 'run_succeeded');
      assert.equal(existsSync(join(h.root, 'made-by-agent.txt')), true);
      assert.deepEqual(((await (await h.api('/api/approvals')).json()) as { approvals: unknown[] }).approvals, []);
    } finally {
      await h.close();
    }
  });

  test("a pending write's preview is the diff against the file on disk now; null for shell (which has its always-allow rule); 404 once answered", async () => {
    const h = await startHarness({
      files: { 'README.md': '# Sample\nold\n' },
      script: [
        { toolCalls: [{ name: 'write_file', arguments: { path: 'README.md', content: '# Sample\nnew\n' } }] },
        { toolCalls: [{ name: 'shell', arguments: { command: 'touch x' } }] },
        { text: 'Done.' },
      ],
    });
    try {
      const { runId, response } = await startRun(h, { prompt: 'write', sandbox: 'workspace-write', approvalPolicy: 'untrusted' });
      const callId = String(eventsOf(await readFrames(response, (frame) => frame.event === 'approval_requested')).at(-1)!.event.callId);
      const path = `/api/approvals/${runId}/${encodeURIComponent(callId)}/preview`;
      const answer = (await (await h.api(path)).json()) as { preview: { files: Array<Record<string, unknown>>; problem: unknown } };
      assert.deepEqual(answer.preview, {
        files: [
          {
            path: 'README.md',
            change: 'update',
            to: null,
            lines: [
              { kind: 'hunk', text: '@@ -1,2 +1,2 @@' },
              { kind: 'ctx', text: '# Sample' },
              { kind: 'del', text: 'old' },
              { kind: 'add', text: 'new' },
            ],
            omittedLines: 0,
          },
        ],
        problem: null,
      });
      // Worked out per request: a change on disk meanwhile shows in the next preview.
      await writeFile(join(h.root, 'README.md'), '# Sample\nnew\n');
      const again = (await (await h.api(path)).json()) as { preview: { files: Array<{ lines: unknown[] }> } };
      assert.deepEqual(again.preview.files[0]!.lines, []);
      assert.equal((await h.post(`/api/approvals/${runId}/${encodeURIComponent(callId)}`, { decision: 'deny' })).status, 200);
      assert.equal((await h.api(path)).status, 404);
      assert.equal((await h.api(`${path}?x=1`)).status, 400);

      const events = h.api(`/api/runs/${runId}/events`);
      const shell = eventsOf(
        await readFrames(await events, (frame) => frame.event === 'approval_requested' && frame.data.includes('shell')),
      );
      const shellCall = String(shell.at(-1)!.event.callId);
      const shellPreview = await h.api(`/api/approvals/${runId}/${encodeURIComponent(shellCall)}/preview`);
      assert.deepEqual(await shellPreview.json(), { preview: null, alwaysRule: 'shell(touch x)' });
      await h.post(`/api/approvals/${runId}/${encodeURIComponent(shellCall)}`, { decision: 'deny' });
    } finally {
      await h.close();
    }
  });

  test('denying with a message: the tool does not run and the model reads the message', async () => {
    const h = await startHarness({
      script: [{ toolCalls: [{ name: 'shell', arguments: { command: 'touch denied.txt' } }] }, { text: 'Understood.' }],
    });
    try {
      const { runId, response } = await startRun(h, { prompt: 'make a file', sandbox: 'workspace-write', approvalPolicy: 'untrusted' });
      const before = eventsOf(await readFrames(response, (frame) => frame.event === 'approval_requested'));
      const callId = String(before.at(-1)!.event.callId);
      const bad = await h.post(`/api/approvals/${runId}/${encodeURIComponent(callId)}`, { decision: 'maybe' });
      assert.equal(bad.status, 400);
      const denied = await h.post(`/api/approvals/${runId}/${encodeURIComponent(callId)}`, {
        decision: 'deny',
        message: 'Use a scratch directory instead.',
      });
      assert.equal(denied.status, 200);
      const after = eventsOf(await readFrames(await h.api(`/api/runs/${runId}/events`)));
      const resolvedEvent = after.find((e) => e.type === 'approval_resolved')!;
      assert.equal(resolvedEvent.event.decision, 'deny');
      assert.equal(resolvedEvent.event.message, 'Use a scratch directory instead.');
      assert.equal(after.at(-1)!.type, 'run_succeeded');
      assert.equal(existsSync(join(h.root, 'denied.txt')), false);
      assert.equal(h.provider.requests.length, 2);
      assert.match(JSON.stringify(h.provider.requests[1]!.body), /Use a scratch directory instead\./);
    } finally {
      await h.close();
    }
  });

  test('closing the server cancels active runs and ends their streams', async () => {
    const h = await startHarness({ script: [{ fault: { kind: 'hang' } }] });
    let closed = false;
    try {
      const { response } = await startRun(h, { prompt: 'hang' });
      const reading = readFrames(response);
      await h.server.close();
      closed = true;
      const events = eventsOf(await reading);
      assert.equal(events.at(-1)!.type, 'run_cancelled');
      assert.equal(events.at(-1)!.event.reason, 'The server is shutting down.');
    } finally {
      if (!closed) await h.server.close();
      await h.close();
    }
  });

  test('a config.json broken while the server runs is a 409 that says why, not a 500', async () => {
    const h = await startHarness({ script: [{ text: 'never reached' }] });
    try {
      await mkdir(h.home, { recursive: true });
      await writeFile(join(h.home, 'config.json'), '{"compaction": {"compactAt": "lots"}}');
      const run = await h.post('/api/runs', { prompt: 'hi' });
      assert.equal(run.status, 409);
      assert.match(((await run.json()) as { error: string }).error, /compactAt/);
      assert.equal((await h.api('/api/models')).status, 409);
      assert.equal(h.provider.requests.length, 0);
      assert.deepEqual(h.logs, []);
    } finally {
      await h.close();
    }
  });

  test('a session locked by another glassbox process is a 409, not a stream or a 500', async () => {
    const h = await startHarness({ script: [{ text: 'First.' }, { text: 'Second.' }] });
    try {
      const first = eventsOf(await readFrames((await startRun(h, { prompt: 'one' })).response));
      const sessionId = String(first[0]!.event.sessionId);
      const writer = await new JsonlSessionStore(join(h.home, 'sessions')).openForAppend(sessionId);
      try {
        const locked = await h.post('/api/runs', { prompt: 'two', sessionId });
        assert.equal(locked.status, 409);
        assert.match(((await locked.json()) as { error: string }).error, /in use/);
      } finally {
        await writer.close();
      }
      const after = eventsOf(await readFrames((await startRun(h, { prompt: 'two', sessionId })).response));
      assert.equal(after.at(-1)!.event.answer, 'Second.');
      assert.deepEqual(h.logs, []);
    } finally {
      await h.close();
    }
  });

  test('GET /api/runs pages newest first with limit and cursor; bad ones are 400', async () => {
    const h = await startHarness({ script: [{ text: 'One.' }, { text: 'Two.' }, { text: 'Three.' }] });
    try {
      const ids: string[] = [];
      for (const prompt of ['one', 'two', 'three']) {
        const { runId, response } = await startRun(h, { prompt });
        await readFrames(response);
        ids.push(runId);
      }
      type Listed = { runs: Array<{ runId: string }>; nextCursor: string | null };
      const first = (await (await h.api('/api/runs?limit=2')).json()) as Listed;
      assert.deepEqual(
        first.runs.map((run) => run.runId),
        [ids[2], ids[1]],
      );
      assert.ok(first.nextCursor !== null);
      const second = (await (await h.api(`/api/runs?limit=2&cursor=${first.nextCursor}`)).json()) as Listed;
      assert.deepEqual(second, { runs: [((await (await h.api('/api/runs')).json()) as Listed).runs[2]], nextCursor: null });
      assert.equal(second.runs[0]!.runId, ids[0]);
      for (const query of ['limit=0', 'limit=1001', 'limit=x', 'cursor=nonsense', 'cursor=9', 'page=2']) {
        assert.equal((await h.api(`/api/runs?${query}`)).status, 400, query);
      }
    } finally {
      await h.close();
    }
  });
});
