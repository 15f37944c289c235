import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ModelGateway, ModelRequest } from '../../src/model/index.js';
import { JsonlSessionStore, type SessionStore } from '../../src/sessions/index.js';
import { eventsOf, rawRequest, readFrames, startHarness, TEST_TOKEN, type Harness } from './server-harness.js';

/** Records every IR request the loop hands to the gateway, so rebuilt requests can be compared exactly. */
function capturingGateway(inner: ModelGateway, requests: ModelRequest[]): ModelGateway {
  return {
    wireApi: inner.wireApi,
    baseURL: inner.baseURL,
    createResponse: (request, options) => {
      requests.push(structuredClone(request));
      return inner.createResponse(request, options);
    },
    streamResponse: (request, options) => {
      requests.push(structuredClone(request));
      return inner.streamResponse(request, options);
    },
  };
}

/** A store that notes every session id it is asked about. */
function watchedStore(directory: string, seen: string[]): SessionStore {
  const store = new JsonlSessionStore(directory);
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (typeof args[0] === 'string') seen.push(args[0]);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

async function run(h: Harness, body: Record<string, unknown>): Promise<ReturnType<typeof eventsOf>> {
  const response = await h.post('/api/runs', body);
  assert.equal(response.status, 200);
  const events = eventsOf(await readFrames(response));
  assert.equal(events.at(-1)!.type, 'run_succeeded', JSON.stringify(events.at(-1)));
  return events;
}

describe('session routes', () => {
  let h: Harness;
  const captured: ModelRequest[] = [];
  const storeCalls: string[] = [];
  let sessionId = '';
  let otherSessionId = '';

  before(async () => {
    h = await startHarness({
      script: [
        { text: 'Reading.', toolCalls: [{ name: 'read_file', arguments: { path: 'README.md' } }], usage: { input: 900, output: 20 } },
        { text: 'A sample project.', usage: { input: 1000, output: 10 } },
        { toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }], usage: null },
        { text: 'Only a README.', usage: { input: 1300, output: 8 } },
        { text: 'Another session.' },
      ],
      settings: { contextWindow: '50000', compactAt: '50%' },
      wrapGateway: (gateway) => capturingGateway(gateway, captured),
      store: (directory) => watchedStore(directory, storeCalls),
    });
    const first = await run(h, { prompt: 'What is this project?' });
    sessionId = String(first[0]!.event.sessionId);
    await run(h, { prompt: 'Which files are there?', sessionId });
    const other = await run(h, { prompt: 'Something else' });
    otherSessionId = String(other[0]!.event.sessionId);
    assert.equal(captured.length, 5);
  });
  after(async () => {
    await h.close();
  });

  test('list: newest first, with summaries; query and pagination', async () => {
    const list = (await (await h.api('/api/sessions')).json()) as {
      sessions: Array<Record<string, unknown>>;
      nextCursor: string | null;
      problems: unknown[];
    };
    assert.deepEqual(
      list.sessions.map((s) => s.sessionId),
      [otherSessionId, sessionId],
    );
    assert.equal(list.nextCursor, null);
    assert.deepEqual(list.problems, []);
    const summary = list.sessions[1]!;
    assert.equal(summary.title, 'What is this project?');
    assert.equal(summary.turns, 2);
    assert.equal(summary.model, 'test-model');
    assert.equal(summary.cwd, h.root);
    assert.equal(summary.parent, null);

    const page1 = (await (await h.api('/api/sessions?limit=1')).json()) as { sessions: Array<{ sessionId: string }>; nextCursor: string };
    assert.equal(page1.sessions[0]!.sessionId, otherSessionId);
    assert.ok(page1.nextCursor);
    const page2 = (await (await h.api(`/api/sessions?limit=1&cursor=${encodeURIComponent(page1.nextCursor)}`)).json()) as {
      sessions: Array<{ sessionId: string }>;
      nextCursor: string | null;
    };
    assert.deepEqual(
      page2.sessions.map((s) => s.sessionId),
      [sessionId],
    );
    assert.equal(page2.nextCursor, null);
    const found = (await (await h.api('/api/sessions?query=which%20files')).json()) as { sessions: unknown[] };
    assert.equal(found.sessions.length, 0);
    const byTitle = (await (await h.api('/api/sessions?query=WHAT%20IS')).json()) as { sessions: Array<{ sessionId: string }> };
    assert.deepEqual(
      byTitle.sessions.map((s) => s.sessionId),
      [sessionId],
    );
    assert.equal((await h.api('/api/sessions?cursor=garbage')).status, 400);
    assert.equal((await h.api('/api/sessions?limit=abc')).status, 400);
    assert.equal((await h.api('/api/sessions?limit=2&limit=3')).status, 400);
    assert.equal((await h.api('/api/sessions?bogus=1')).status, 400);
  });

  test('show: records page by page with meta and summary on every page', async () => {
    const pages: Array<{
      summary: Record<string, unknown>;
      meta: Record<string, unknown>;
      records: Array<{ line: number; record: { type: string } }>;
      nextCursor: string | null;
    }> = [];
    let cursor: string | null = null;
    do {
      const path: string = `/api/sessions/${sessionId}?limit=4${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
      const response = await h.api(path);
      assert.equal(response.status, 200);
      const page = (await response.json()) as (typeof pages)[number];
      pages.push(page);
      cursor = page.nextCursor;
    } while (cursor !== null && pages.length < 100);
    assert.ok(pages.length > 2);
    const lines = pages.flatMap((page) => page.records.map((entry) => entry.line));
    assert.deepEqual(
      lines,
      lines.map((_, index) => index + 1),
    );
    for (const page of pages) {
      assert.ok(page.records.length <= 4);
      assert.equal(page.meta.type, 'session_meta');
      assert.equal(page.meta.sessionId, sessionId);
      assert.equal(page.summary.sessionId, sessionId);
      assert.equal(page.summary.turns, 2);
    }
    const all = (await (await h.api(`/api/sessions/${sessionId}?limit=1000`)).json()) as {
      records: Array<{ record: { type: string } }>;
      nextCursor: null;
    };
    assert.equal(all.nextCursor, null);
    assert.equal(all.records.length, lines.length);
    assert.equal(all.records.filter((entry) => entry.record.type === 'turn_completed').length, 2);
    assert.equal((await h.api(`/api/sessions/${sessionId}?cursor=garbage`)).status, 400);
  });

  test('model-calls: each request rebuilt by replay equals what the model was sent', async () => {
    const body = (await (await h.api(`/api/sessions/${sessionId}/model-calls`)).json()) as {
      calls: Array<{
        turn: number;
        round: number;
        stage: string;
        request: ModelRequest;
        contextTokens: number | null;
        usage: unknown;
        finishReason: string | null;
        requestError: string | null;
      }>;
      nextCursor: string | null;
    };
    assert.equal(body.calls.length, 4);
    assert.equal(body.nextCursor, null);
    assert.deepEqual(
      body.calls.map((c) => [c.turn, c.round, c.stage]),
      [
        [1, 1, 'turn'],
        [1, 2, 'turn'],
        [2, 1, 'turn'],
        [2, 2, 'turn'],
      ],
    );
    for (let index = 0; index < 4; index += 1) {
      const call = body.calls[index]!;
      assert.equal(call.requestError, null);
      assert.deepEqual(call.request.messages, captured[index]!.messages, `messages of call ${index}`);
      assert.deepEqual(call.request.tools, captured[index]!.tools, `tools of call ${index}`);
      assert.equal(call.request.model, captured[index]!.model);
    }
    assert.deepEqual(
      body.calls.map((c) => c.contextTokens),
      [920, 1010, null, 1308],
    );
    assert.deepEqual(
      body.calls.map((c) => c.finishReason),
      ['tool_calls', 'stop', 'tool_calls', 'stop'],
    );

    const page = (await (await h.api(`/api/sessions/${sessionId}/model-calls?limit=2&cursor=1`)).json()) as {
      calls: Array<{ turn: number; round: number }>;
      nextCursor: string | null;
    };
    assert.deepEqual(
      page.calls.map((c) => [c.turn, c.round]),
      [
        [1, 2],
        [2, 1],
      ],
    );
    assert.equal(page.nextCursor, '3');
    assert.equal((await h.api(`/api/sessions/${sessionId}/model-calls?cursor=-1`)).status, 400);
  });

  test('context: tokens per round from usage, estimates where usage is missing, window and threshold from the settings', async () => {
    const chart = (await (await h.api(`/api/sessions/${sessionId}/context`)).json()) as {
      window: number;
      threshold: number;
      points: Array<{ turn: number; round: number; tokens: number; estimated: boolean }>;
      compactions: unknown[];
    };
    assert.equal(chart.window, 50000);
    assert.equal(chart.threshold, 25000);
    assert.deepEqual(chart.compactions, []);
    assert.deepEqual(
      chart.points.map((p) => [p.turn, p.round, p.estimated]),
      [
        [1, 1, false],
        [1, 2, false],
        [2, 1, true],
        [2, 2, false],
      ],
    );
    assert.deepEqual([chart.points[0]!.tokens, chart.points[1]!.tokens, chart.points[3]!.tokens], [920, 1010, 1308]);
    // The estimate counts the history that was sent: more than the first call's, less than the window.
    assert.ok(chart.points[2]!.tokens > 100 && chart.points[2]!.tokens < 50000, String(chart.points[2]!.tokens));
  });

  test('fork: 201 with a new session whose parent is recorded; bad turns are 400', async () => {
    const response = await h.post(`/api/sessions/${sessionId}/fork`, { atTurn: 1 });
    assert.equal(response.status, 201);
    const { sessionId: forked } = (await response.json()) as { sessionId: string };
    assert.notEqual(forked, sessionId);
    const page = (await (await h.api(`/api/sessions/${forked}`)).json()) as {
      summary: { parent: unknown; turns: number };
      meta: { parent: unknown };
    };
    assert.deepEqual(page.meta.parent, { sessionId, atTurn: 1 });
    assert.deepEqual(page.summary.parent, { sessionId, atTurn: 1 });
    assert.equal(page.summary.turns, 1);
    const tooFar = await h.post(`/api/sessions/${sessionId}/fork`, { atTurn: 7 });
    assert.equal(tooFar.status, 400);
    assert.match(((await tooFar.json()) as { error: string }).error, /turn 7/);
    assert.equal((await h.post(`/api/sessions/${sessionId}/fork`, { atTurn: -1 })).status, 400);
    assert.equal((await h.post(`/api/sessions/${sessionId}/fork`, { atTurn: 1.5 })).status, 400);
    const whole = await h.post(`/api/sessions/${sessionId}/fork`, {});
    assert.equal(whole.status, 201);
  });

  test('unknown ids are 404 and malformed ids 400, without the store ever seeing them', async () => {
    const unknown = '01a2293c-35a7-7273-a315-931e21774c91';
    for (const path of ['', '/model-calls', '/context']) {
      const response = await h.api(`/api/sessions/${unknown}${path}`);
      assert.equal(response.status, 404, path);
      assert.ok(((await response.json()) as { error: string }).error);
    }
    assert.equal((await h.post(`/api/sessions/${unknown}/fork`, {})).status, 404);
    assert.equal((await h.post(`/api/sessions/${unknown}/compact`, {})).status, 404);

    storeCalls.length = 0;
    const hostile = [
      '..%2F..%2Fetc%2Fpasswd',
      '%2E%2E%2F%2E%2E%2Fetc%2Fpasswd',
      'last',
      '01A2293C-35A7-7273-A315-931E21774C91',
      '01a2293c',
      '%00',
      'a'.repeat(300),
    ];
    for (const id of hostile) {
      for (const path of ['', '/model-calls', '/context']) {
        const response = await rawRequest(h.port, {
          path: `/api/sessions/${id}${path}`,
          headers: { host: `127.0.0.1:${h.port}`, authorization: `Bearer ${TEST_TOKEN}` },
        });
        assert.ok(response.status === 400 || response.status === 404, `${id}${path}: ${response.status} ${response.body.slice(0, 200)}`);
        assert.doesNotMatch(response.body, /root:/);
      }
      const fork = await h.post(`/api/sessions/${id}/fork`, {});
      assert.ok(fork.status === 400 || fork.status === 404, `${id}/fork: ${fork.status}`);
    }
    // Literal dot segments are resolved by the URL parser before routing (to /etc/passwd, a
    // workbench page route): they never reach a session handler or the file system.
    const dotted = await rawRequest(h.port, {
      path: '/api/sessions/../../etc/passwd',
      headers: { host: `127.0.0.1:${h.port}`, authorization: `Bearer ${TEST_TOKEN}` },
    });
    assert.ok(dotted.status < 500, String(dotted.status));
    assert.doesNotMatch(dotted.body, /root:/);
    assert.match(dotted.body, /Glassbox/);
    assert.deepEqual(
      storeCalls.filter((id) => !/^[0-9a-f-]{36}$/.test(id) && id !== ''),
      [],
    );
  });
});

describe('manual compaction over the API', () => {
  test('compacts a session, shows it on the context chart, and later requests are still rebuilt exactly', async () => {
    const captured: ModelRequest[] = [];
    const h = await startHarness({
      files: { 'README.md': `# Big\n\n${'A line of documentation that takes up room in the context.\n'.repeat(80)}` },
      script: [
        { text: 'Reading.', toolCalls: [{ name: 'read_file', arguments: { path: 'README.md' } }] },
        { text: 'It is documentation.' },
        { text: 'SUMMARY: the user asked what README.md holds; it was read; it is repetitive documentation.' },
        { text: 'After compaction.' },
        { text: 'Short.' },
      ],
      wrapGateway: (gateway) => capturingGateway(gateway, captured),
    });
    try {
      const first = await run(h, { prompt: 'What does the README say?' });
      const sessionId = String(first[0]!.event.sessionId);

      const response = await h.post(`/api/sessions/${sessionId}/compact`, { instructions: 'Mention the README by name.' });
      assert.equal(response.status, 200, await response.clone().text());
      const { compaction } = (await response.json()) as { compaction: Record<string, unknown> };
      assert.equal(compaction.type, 'history_compacted');
      assert.equal(compaction.kind, 'summary');
      assert.equal(compaction.trigger, 'manual');
      assert.match(String(compaction.summary), /SUMMARY: the user asked/);
      assert.match(JSON.stringify(captured[2]!.messages), /Mention the README by name\./);

      const chart = (await (await h.api(`/api/sessions/${sessionId}/context`)).json()) as {
        compactions: Array<Record<string, unknown>>;
        points: unknown[];
      };
      assert.equal(chart.compactions.length, 1);
      assert.equal(chart.compactions[0]!.turn, 1);
      assert.equal(chart.compactions[0]!.compactionId, compaction.compactionId);
      assert.equal(chart.compactions[0]!.summary, compaction.summary);
      assert.equal(chart.points.length, 2);

      await run(h, { prompt: 'And now?', sessionId });
      assert.match(JSON.stringify(captured[3]!.messages), /SUMMARY: the user asked/);
      const calls = (await (await h.api(`/api/sessions/${sessionId}/model-calls`)).json()) as {
        calls: Array<{ stage: string; request: ModelRequest | null; requestError: string | null }>;
      };
      assert.deepEqual(
        calls.calls.map((c) => c.stage),
        ['turn', 'turn', 'compaction', 'turn'],
      );
      assert.equal(calls.calls[2]!.request, null);
      assert.match(String(calls.calls[2]!.requestError), /compaction/);
      assert.deepEqual(calls.calls[3]!.request!.messages, captured[3]!.messages);
      assert.deepEqual(calls.calls[3]!.request!.tools, captured[3]!.tools);

      // A session too short to compact is a conflict with a reason, not a server error.
      const small = await run(h, { prompt: 'Hi' });
      const refused = await h.post(`/api/sessions/${String(small[0]!.event.sessionId)}/compact`, {});
      assert.equal(refused.status, 409);
      assert.match(((await refused.json()) as { error: string }).error, /nothing worth compacting/);
      assert.equal((await h.post(`/api/sessions/${sessionId}/compact`, { instructions: 7 })).status, 400);
    } finally {
      await h.close();
    }
  });
});

describe('deleting a session over the API', () => {
  test('removes the file; refused while a run is active or another writer holds the lock; forks keep their history', async () => {
    const h = await startHarness({
      script: [{ text: 'Kept.' }, { text: 'Doomed.' }],
      whenExhausted: (request) => (request.rawBody.includes('Hang here') ? { fault: { kind: 'hang' } } : { text: 'Later.' }),
    });
    try {
      const kept = String((await run(h, { prompt: 'A kept session' }))[0]!.event.sessionId);
      const doomed = String((await run(h, { prompt: 'A doomed session' }))[0]!.event.sessionId);
      const forked = (await (await h.post(`/api/sessions/${doomed}/fork`, { atTurn: 1 })).json()) as { sessionId: string };
      const remove = (id: string, headers: Record<string, string> = {}) => h.api(`/api/sessions/${id}`, { method: 'DELETE', headers });

      // A run going in it holds the session.
      const started = await h.post('/api/runs', { prompt: 'Hang here', sessionId: doomed });
      const runId = String(eventsOf(await readFrames(started, (frame) => frame.event === 'run_started'))[0]!.event.runId);
      const busy = await remove(doomed);
      assert.equal(busy.status, 409);
      assert.match(((await busy.json()) as { error: string }).error, /active run/);
      assert.equal((await h.post(`/api/runs/${runId}/cancel`, {})).status, 202);
      const ended = eventsOf(await readFrames(await h.api(`/api/runs/${runId}/events`)));
      assert.equal(ended.at(-1)!.type, 'run_cancelled');

      // Another process (here: a second store on the same directory) writing to it holds its lock.
      const writer = await new JsonlSessionStore(join(h.home, 'sessions')).openForAppend(doomed);
      const locked = await remove(doomed);
      assert.equal(locked.status, 409);
      assert.match(((await locked.json()) as { error: string }).error, /in use by pid/);
      await writer.close();

      assert.equal((await remove(doomed, { origin: 'http://evil.example' })).status, 403, 'a cross-site request is refused');
      const deleted = await remove(doomed);
      assert.equal(deleted.status, 200, await deleted.clone().text());
      assert.deepEqual(await deleted.json(), { deleted: true });
      assert.equal((await h.api(`/api/sessions/${doomed}`)).status, 404);
      assert.equal((await remove(doomed)).status, 404);
      assert.equal((await remove('not-a-session')).status, 400);
      const list = (await (await h.api('/api/sessions')).json()) as { sessions: Array<{ sessionId: string }> };
      assert.deepEqual(list.sessions.map((summary) => summary.sessionId).sort(), [kept, forked.sessionId].sort());

      // The fork has its own copy of the shared turn; only the parent link leads nowhere now.
      const fork = (await (await h.api(`/api/sessions/${forked.sessionId}`)).json()) as { records: Array<{ record: { type: string } }> };
      assert.ok(fork.records.some((entry) => entry.record.type === 'response_item'));
      assert.equal((await h.api(`/api/sessions/${forked.sessionId}/model-calls`)).status, 200);
    } finally {
      await h.close();
    }
  });
});
