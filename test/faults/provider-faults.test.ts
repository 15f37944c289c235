// Provider faults on both wire APIs: whatever the provider does (rate limits, 5xx bursts, refused
// connections, hangs, broken or malformed streams, an overflowing context, a bad key), a
// committed turn is never lost, a failed round commits nothing, and the session resumes with the
// history the file holds. Most cases run the real runner in this process (retry delays shrunk);
// the exit codes are checked through `glassbox exec` in a child process.

import assert from 'node:assert/strict';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { describe, test } from 'node:test';
import type { RunEvent, TerminalRunEvent } from '../../src/agent/index.js';
import type { WireApi } from '../../src/model/index.js';
import { estimateRequestTokens, startFakeProvider, type FakeProvider, type ScriptStep } from '../../src/testing/index.js';
import { cliEnv } from '../helpers/run-cli.js';
import {
  assertAppendOnly,
  assertReplays,
  assertResumes,
  inProject,
  parseJsonLines,
  snapshotSession,
  startGlassbox,
  turnInProcess,
  WIRE_APIS_UNDER_TEST,
  type FaultProject,
  type InProcessTurnOptions,
} from './fault-helpers.js';

const FIRST_TURN: ScriptStep[] = [
  { text: 'Reading the notes.', toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
  { text: 'The notes say to remember the milk.' },
];
const FIRST_PROMPT = 'what do the notes say?';

interface Scenario {
  project: FaultProject;
  provider: FakeProvider;
  wireApi: WireApi;
  sessionId: string;
  turn(prompt: string, extra?: Partial<InProcessTurnOptions>): Promise<{ terminal: TerminalRunEvent; events: RunEvent[] }>;
}

/**
 * A session with one good turn (a tool round and an answer) on a live fake provider, then `body`
 * (the faulty turn 2, maybe more), then the checks every fault ends with: the file only grew,
 * turn 1 is intact, and a resumed turn succeeds and sends exactly the replayed history.
 */
async function withSession(wireApi: WireApi, label: string, body: (scenario: Scenario) => Promise<void>): Promise<void> {
  await inProject(`${label} (${wireApi})`, async (project) => {
    const provider = await startFakeProvider({ script: FIRST_TURN });
    try {
      const first = await turnInProcess({ project, wireApi, baseURL: provider.baseURL, prompt: FIRST_PROMPT });
      assert.equal(first.terminal.type, 'run_succeeded', JSON.stringify(first.terminal));
      const sessionId = first.sessionId;
      const afterFirst = snapshotSession(project, sessionId);
      const scenario: Scenario = {
        project,
        provider,
        wireApi,
        sessionId,
        turn: (prompt, extra = {}) => turnInProcess({ project, wireApi, baseURL: provider.baseURL, prompt, resume: sessionId, ...extra }),
      };
      await body(scenario);

      const afterFault = snapshotSession(project, sessionId);
      assertAppendOnly(afterFirst, afterFault);
      assert.deepEqual(afterFault.items.slice(0, afterFirst.items.length), afterFirst.items, 'turn 1 items changed');
      await assertResumes(
        project,
        sessionId,
        async (prompt) => {
          const from = provider.requests.length;
          provider.push({ text: 'Resumed fine.' });
          const resumed = await scenario.turn(prompt);
          assert.equal(resumed.terminal.type, 'run_succeeded', JSON.stringify(resumed.terminal));
          return provider.requests[from];
        },
        label,
      );
    } finally {
      await provider.close();
    }
  });
}

function failed(terminal: TerminalRunEvent): { code: string; message: string } {
  assert.equal(terminal.type, 'run_failed', JSON.stringify(terminal));
  return (terminal as Extract<TerminalRunEvent, { type: 'run_failed' }>).error;
}

function retries(events: RunEvent[]): Array<Extract<RunEvent, { type: 'model_retry' }>> {
  return events.filter((event): event is Extract<RunEvent, { type: 'model_retry' }> => event.type === 'model_retry');
}

/** The response items turn `turn` committed, in file order. */
function itemsOfTurn(scenario: Scenario, turn: number): Array<Record<string, unknown>> {
  return snapshotSession(scenario.project, scenario.sessionId)
    .records.filter((record) => record.type === 'response_item' && record.turn === turn)
    .map((record) => record.item as Record<string, unknown>);
}

function recordsOfTurn(scenario: Scenario, turn: number, type: string): Array<Record<string, unknown>> {
  return snapshotSession(scenario.project, scenario.sessionId).records.filter((record) => record.type === type && record.turn === turn);
}

/** A failed turn 2 left its user message, a failed model_call and a turn_failed with `code`. */
function assertFailedTurnRecorded(scenario: Scenario, code: string, prompt: string): void {
  const items = itemsOfTurn(scenario, 2);
  assert.deepEqual(items[0], { type: 'message', role: 'user', content: prompt });
  const calls = recordsOfTurn(scenario, 2, 'model_call');
  assert.equal((calls.at(-1)?.error as { code?: string } | null)?.code, code, JSON.stringify(calls));
  const ends = recordsOfTurn(scenario, 2, 'turn_failed');
  assert.equal(ends.length, 1);
  assert.equal((ends[0]!.error as { code: string }).code, code);
}

/** A port nothing listens on: bound and released by this process a moment ago. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A loopback proxy in front of the fake provider that passes its SSE frames on until one contains
 * `marker`, then goes silent with the connection open: a provider that stalls mid-answer, which
 * the fake provider's uniform chunk delay cannot script (it would stall before the first event).
 */
async function startStallProxy(providerBaseURL: string, marker: string): Promise<{ baseURL: string; close(): Promise<void> }> {
  const upstream = new URL(providerBaseURL);
  const aborts = new Set<AbortController>();
  const sockets = new Set<Socket>();
  const server = createHttpServer((req, res) => {
    const controller = new AbortController();
    aborts.add(controller);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const answer = await fetch(new URL(req.url ?? '/', upstream.origin), {
          method: req.method,
          headers: { 'content-type': 'application/json', authorization: req.headers.authorization ?? '' },
          body: Buffer.concat(chunks),
          signal: controller.signal,
        });
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/event-stream' });
        res.flushHeaders();
        let pending = '';
        const decoder = new TextDecoder();
        // Read by hand: leaving the loop of an async iterator would cancel the upstream body.
        const reader = answer.body!.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          pending += decoder.decode(value, { stream: true });
          let end: number;
          while ((end = pending.indexOf('\n\n')) >= 0) {
            const frame = pending.slice(0, end + 2);
            pending = pending.slice(end + 2);
            res.write(frame);
            // Silence from here on (connection open): the client's timeout has to notice.
            if (frame.includes(marker)) return;
          }
        }
        res.end(pending);
      })().catch(() => res.destroy());
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}${upstream.pathname}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const controller of aborts) controller.abort();
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

// Small enough to keep the suite quick, large enough that a loaded machine still answers a
// healthy loopback request (and delivers a stream's first event) well inside them.
const HANG_TIMEOUT_MS = 400;
const STALL_TIMEOUT_MS = 1_000;

const LONG_TEXT = 'This answer is streamed in many small pieces so the cut lands in the middle of it. '.repeat(4);
const LONG_ARGUMENTS = { path: 'notes.txt', offset: 1, limit: 2000 };

for (const wireApi of WIRE_APIS_UNDER_TEST) {
  describe(`provider faults, in process (${wireApi})`, () => {
    test('429 with and without Retry-After is retried and the turn succeeds', async () => {
      await withSession(wireApi, '429 retried', async (scenario) => {
        scenario.provider.push(
          { fault: { kind: 'status', status: 429, retryAfter: '0' } },
          { fault: { kind: 'status', status: 429 } },
          { text: 'Fine after the rate limit.' },
        );
        const from = scenario.provider.requests.length;
        const { terminal, events } = await scenario.turn('try despite rate limits');
        assert.equal(terminal.type, 'run_succeeded', JSON.stringify(terminal));
        assert.deepEqual(
          retries(events).map((event) => event.error.code),
          ['RATE_LIMITED', 'RATE_LIMITED'],
        );
        assert.equal(retries(events)[0]!.delayMs, 0, 'Retry-After: 0 is honoured');
        const attempts = scenario.provider.requests.slice(from);
        assert.equal(attempts.length, 3);
        assert.ok(
          attempts.every((request) => request.rawBody === attempts[0]!.rawBody),
          'every retry sends the same request',
        );
        assert.equal(itemsOfTurn(scenario, 2).length, 2, 'prompt and answer, nothing twice');
      });
    });

    test('a burst of 500/502/503 is retried; a fourth 5xx fails the run SERVER_ERROR after 4 attempts', async () => {
      await withSession(wireApi, '5xx burst', async (scenario) => {
        scenario.provider.push(
          { fault: { kind: 'status', status: 500 } },
          { fault: { kind: 'status', status: 502 } },
          { fault: { kind: 'status', status: 503 } },
          { text: 'Made it through the burst.' },
        );
        const burst = await scenario.turn('survive a burst');
        assert.equal(burst.terminal.type, 'run_succeeded', JSON.stringify(burst.terminal));
        assert.equal(retries(burst.events).length, 3);

        // Turn 3 of this session: four 5xx in a row exhaust the attempts.
        scenario.provider.push(...[500, 502, 503, 500].map((status): ScriptStep => ({ fault: { kind: 'status', status } })));
        const from = scenario.provider.requests.length;
        const exhausted = await scenario.turn('fail after four');
        const error = failed(exhausted.terminal);
        assert.equal(error.code, 'SERVER_ERROR');
        assert.match(error.message, /after 4 attempts/);
        assert.equal(scenario.provider.requests.length - from, 4);
        assert.equal(recordsOfTurn(scenario, 3, 'turn_failed').length, 1);
        assert.deepEqual(itemsOfTurn(scenario, 3), [{ type: 'message', role: 'user', content: 'fail after four' }]);
      });
    });

    test('connection refused fails CONNECTION_FAILED after 4 attempts; the prompt is kept', async () => {
      const port = await closedPort();
      await withSession(wireApi, 'connection refused', async (scenario) => {
        const { terminal, events } = await scenario.turn('anyone there?', { baseURL: `http://127.0.0.1:${port}/v1` });
        const error = failed(terminal);
        assert.equal(error.code, 'CONNECTION_FAILED');
        assert.match(error.message, /ECONNREFUSED|connect/i);
        assert.equal(retries(events).length, 3);
        assertFailedTurnRecorded(scenario, 'CONNECTION_FAILED', 'anyone there?');
      });
    });

    test('a hang past the timeout is retried; hanging on every attempt fails CONNECTION_FAILED', async () => {
      await withSession(wireApi, 'hang', async (scenario) => {
        scenario.provider.push({ fault: { kind: 'hang' } }, { text: 'Answered on the second attempt.' });
        const hung = await scenario.turn('are you awake?', { timeoutMs: HANG_TIMEOUT_MS });
        assert.equal(hung.terminal.type, 'run_succeeded', JSON.stringify(hung.terminal));
        assert.deepEqual(
          retries(hung.events).map((event) => event.error.code),
          ['CONNECTION_FAILED'],
        );

        scenario.provider.push(...Array.from({ length: 4 }, (): ScriptStep => ({ fault: { kind: 'hang' } })));
        const from = scenario.provider.requests.length;
        const gone = await scenario.turn('still there?', { timeoutMs: HANG_TIMEOUT_MS });
        const error = failed(gone.terminal);
        assert.equal(error.code, 'CONNECTION_FAILED');
        assert.match(error.message, /after 4 attempts/);
        assert.equal(scenario.provider.requests.length - from, 4);
        assert.deepEqual(itemsOfTurn(scenario, 3), [{ type: 'message', role: 'user', content: 'still there?' }]);
      });
    });

    test('a stream that goes silent mid-answer past the timeout fails STREAM_INTERRUPTED and is not retried', async () => {
      await withSession(wireApi, 'stall mid-stream', async (scenario) => {
        const proxy = await startStallProxy(scenario.provider.baseURL, 'This ans');
        try {
          for (let attempt = 0; attempt < 4; attempt += 1) scenario.provider.push({ text: LONG_TEXT, chunkSize: 8 });
          const from = scenario.provider.requests.length;
          const stalled = await scenario.turn('stall please', { baseURL: proxy.baseURL, timeoutMs: STALL_TIMEOUT_MS });
          const error = failed(stalled.terminal);
          assert.equal(error.code, 'STREAM_INTERRUPTED', error.message);
          assert.match(error.message, /silent/);
          const deltas = stalled.events.filter((event) => event.type === 'assistant_delta');
          assert.deepEqual(
            deltas.map((event) => (event as { delta: string }).delta),
            ['This ans', 'This ans', 'This ans', 'This ans'],
            'only what got through was shown, once per attempt',
          );
          // The round is asked again three times (stream_retry), then the run fails.
          assert.equal(stalled.events.filter((event) => event.type === 'stream_retry').length, 3);
          assert.equal(scenario.provider.requests.length - from, 4, 'a broken round is retried three times');
          assertFailedTurnRecorded(scenario, 'STREAM_INTERRUPTED', 'stall please');
          assert.equal(itemsOfTurn(scenario, 2).length, 1, 'nothing of the broken round');
        } finally {
          await proxy.close();
        }
      });
    });

    test('a stream cut mid-text every time fails STREAM_INTERRUPTED after three round retries and commits nothing of the round', async () => {
      await withSession(wireApi, 'cut mid-text', async (scenario) => {
        for (let attempt = 0; attempt < 4; attempt += 1)
          scenario.provider.push({ text: LONG_TEXT, chunkSize: 6, fault: { kind: 'cut', afterEvents: 8 } });
        const from = scenario.provider.requests.length;
        const { terminal, events } = await scenario.turn('talk to me');
        assert.equal(failed(terminal).code, 'STREAM_INTERRUPTED');
        assert.ok(
          events.some((event) => event.type === 'assistant_delta'),
          'the cut came after text was streamed',
        );
        assert.equal(scenario.provider.requests.length - from, 4);
        assertFailedTurnRecorded(scenario, 'STREAM_INTERRUPTED', 'talk to me');
        assert.equal(itemsOfTurn(scenario, 2).length, 1, 'no partial assistant message');
      });
    });

    test('a stream cut mid-tool-call (after a completed tool round) commits the first round only and runs no tool', async () => {
      await withSession(wireApi, 'cut mid-tool-call', async (scenario) => {
        scenario.provider.push(
          { text: 'First a listing.', toolCalls: [{ id: 'call_list', name: 'list_dir', arguments: { path: '.' } }] },
          ...Array.from({ length: 4 }, () => ({
            toolCalls: [{ id: 'call_cut', name: 'read_file', arguments: LONG_ARGUMENTS }],
            chunkSize: 3,
            fault: { kind: 'cut' as const, afterEvents: 6 },
          })),
        );
        const { terminal, events } = await scenario.turn('list then read');
        assert.equal(failed(terminal).code, 'STREAM_INTERRUPTED');
        const started = events.filter((event) => event.type === 'tool_started').map((event) => (event as { callId: string }).callId);
        assert.deepEqual(started, ['call_list'], 'the cut call never ran');
        assert.deepEqual(
          itemsOfTurn(scenario, 2).map((item) => `${String(item.type)}:${String(item.callId ?? item.role)}`),
          ['message:user', 'message:assistant', 'function_call:call_list', 'function_call_output:call_list'],
        );
      });
    });

    test('malformed SSE fails MALFORMED_STREAM without committing the round', async () => {
      await withSession(wireApi, 'malformed SSE', async (scenario) => {
        scenario.provider.push({ text: LONG_TEXT, chunkSize: 10, fault: { kind: 'malformed', afterEvents: 4 } });
        const from = scenario.provider.requests.length;
        const { terminal } = await scenario.turn('say something');
        assert.equal(failed(terminal).code, 'MALFORMED_STREAM');
        assert.equal(scenario.provider.requests.length - from, 1);
        assertFailedTurnRecorded(scenario, 'MALFORMED_STREAM', 'say something');
      });
    });

    test('a response that fails in-band fails RESPONSE_FAILED without committing the round', async () => {
      await withSession(wireApi, 'response failed', async (scenario) => {
        scenario.provider.push({
          text: 'Half an answer',
          fault: { kind: 'response_failed', message: 'the model fell over', code: 'server_error' },
        });
        const { terminal } = await scenario.turn('fail in band');
        assert.equal(failed(terminal).code, 'RESPONSE_FAILED');
        assertFailedTurnRecorded(scenario, 'RESPONSE_FAILED', 'fail in band');
      });
    });

    test('a context overflow (400) fails CONTEXT_OVERFLOW or is compacted and retried; either way nothing is lost', async (t) => {
      const bigFile = 'a line of a large file that fills the context window\n'.repeat(160);
      await inProject(
        `context overflow (${wireApi})`,
        async (project) => {
          const roomy = await startFakeProvider({
            script: [
              { ...FIRST_TURN[0], toolCalls: [{ id: 'call_t1', name: 'read_file', arguments: { path: 'notes.txt' } }] },
              FIRST_TURN[1]!,
            ],
          });
          let tight: FakeProvider | null = null;
          try {
            const first = await turnInProcess({ project, wireApi, baseURL: roomy.baseURL, prompt: FIRST_PROMPT });
            assert.equal(first.terminal.type, 'run_succeeded');
            const afterFirst = snapshotSession(project, first.sessionId);
            // Room for turn 1 and a short prompt, not for the large file turn 2 reads.
            const last = roomy.requests.at(-1)!;
            const window = estimateRequestTokens(last.body, last.wireApi) + 400;
            tight = await startFakeProvider({
              contextWindow: window,
              script: [{ toolCalls: [{ id: 'call_big', name: 'read_file', arguments: { path: 'big.txt' } }] }],
              whenExhausted: { text: 'The notes mention milk; big.txt is a large file of repeated lines.' },
            });
            const second = await turnInProcess({
              project,
              wireApi,
              baseURL: tight.baseURL,
              prompt: 'now read big.txt',
              resume: first.sessionId,
            });
            t.diagnostic(
              `turn 2 ended ${second.terminal.type}${second.terminal.type === 'run_failed' ? ` ${second.terminal.error.code}` : ''}`,
            );
            if (second.terminal.type === 'run_failed') {
              assert.equal(second.terminal.error.code, 'CONTEXT_OVERFLOW', JSON.stringify(second.terminal));
            } else {
              assert.equal(second.terminal.type, 'run_succeeded', JSON.stringify(second.terminal));
              assert.ok(
                second.events.some((event) => event.type === 'history_compacted'),
                'it can only have fit by compacting',
              );
            }
            const afterSecond = snapshotSession(project, first.sessionId);
            assertAppendOnly(afterFirst, afterSecond);
            assert.ok(
              afterSecond.items.some((item) => item.type === 'function_call_output' && item.callId === 'call_big'),
              'the large output that overflowed the window is committed, not dropped',
            );
            await assertReplays(project, first.sessionId);
            // A model with a bigger window picks the session up: it gets what the file replays to.
            await assertResumes(
              project,
              first.sessionId,
              async (prompt) => {
                const from = roomy.requests.length;
                roomy.push({ text: 'Resumed on a bigger window.' });
                const resumed = await turnInProcess({ project, wireApi, baseURL: roomy.baseURL, prompt, resume: first.sessionId });
                assert.equal(resumed.terminal.type, 'run_succeeded', JSON.stringify(resumed.terminal));
                return roomy.requests[from];
              },
              'context overflow',
            );
          } finally {
            await roomy.close();
            await tight?.close();
          }
        },
        { 'notes.txt': 'remember the milk\n', 'big.txt': bigFile },
      );
    });

    test('a 401 fails AUTH_FAILED at once, without retries', async () => {
      await inProject(`401 (${wireApi})`, async (project) => {
        const provider = await startFakeProvider({ apiKey: 'sk-right', script: FIRST_TURN });
        try {
          const first = await turnInProcess({ project, wireApi, baseURL: provider.baseURL, prompt: FIRST_PROMPT, apiKey: 'sk-right' });
          assert.equal(first.terminal.type, 'run_succeeded');
          const from = provider.requests.length;
          const denied = await turnInProcess({
            project,
            wireApi,
            baseURL: provider.baseURL,
            prompt: 'with a bad key',
            apiKey: 'sk-wrong',
            resume: first.sessionId,
          });
          assert.equal(failed(denied.terminal).code, 'AUTH_FAILED');
          assert.equal(provider.requests.length - from, 1, 'a 401 is not retried');
          await assertResumes(
            project,
            first.sessionId,
            async (prompt) => {
              const at = provider.requests.length;
              provider.push({ text: 'Right key, right answer.' });
              const resumed = await turnInProcess({
                project,
                wireApi,
                baseURL: provider.baseURL,
                prompt,
                apiKey: 'sk-right',
                resume: first.sessionId,
              });
              assert.equal(resumed.terminal.type, 'run_succeeded', JSON.stringify(resumed.terminal));
              return provider.requests[at];
            },
            '401',
          );
        } finally {
          await provider.close();
        }
      });
    });
  });

  describe(`provider faults through glassbox exec (${wireApi})`, () => {
    test('401 exits 2 with AUTH_FAILED; 429/503 are retried; a cut mid-tool-call exits 1; the session resumes', async () => {
      await inProject(`exec faults (${wireApi})`, async (project) => {
        const provider = await startFakeProvider({ apiKey: 'sk-right', script: FIRST_TURN });
        const common = ['exec', '--json', '--wire-api', wireApi, '--base-url', provider.baseURL, '-m', 'test-model', '-C', project.root];
        const exec = async (args: string[], key = 'sk-right') => {
          const result = await startGlassbox([...common, ...args], cliEnv({ OPENAI_API_KEY: key, GLASSBOX_HOME: project.home })).done;
          return { ...result, events: parseJsonLines(result.stdout) };
        };
        try {
          const first = await exec([FIRST_PROMPT]);
          assert.equal(first.code, 0, first.stderr);
          const sessionId = String(first.events[0]!.sessionId);
          const afterFirst = snapshotSession(project, sessionId);

          const denied = await exec(['--resume', sessionId, 'with the wrong key'], 'sk-wrong');
          assert.equal(denied.code, 2, denied.stderr);
          assert.equal(denied.events.at(-1)?.type, 'run_failed');
          assert.equal((denied.events.at(-1)?.error as { code: string }).code, 'AUTH_FAILED');
          assertAppendOnly(afterFirst, snapshotSession(project, sessionId));
          await assertReplays(project, sessionId);

          provider.push(
            { fault: { kind: 'status', status: 429, retryAfter: '0' } },
            { fault: { kind: 'status', status: 503 } },
            { text: 'Listing first.', toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }] },
            // Cut every time: the round is retried three times (stream_retry), then the run fails.
            ...Array.from({ length: 4 }, () => ({
              toolCalls: [{ name: 'read_file', arguments: LONG_ARGUMENTS }],
              chunkSize: 3,
              fault: { kind: 'cut' as const, afterEvents: 6 },
            })),
          );
          const beforeCut = snapshotSession(project, sessionId);
          const cut = await exec(['--resume', sessionId, 'list then read']);
          assert.equal(cut.code, 1, cut.stderr);
          assert.deepEqual(
            cut.events.filter((event) => event.type === 'model_retry').map((event) => (event.error as { code: string }).code),
            ['RATE_LIMITED', 'SERVER_ERROR'],
          );
          assert.equal((cut.events.at(-1)?.error as { code: string }).code, 'STREAM_INTERRUPTED');
          assert.equal(cut.events.filter((event) => event.type === 'tool_started').length, 1, 'only the listing ran');
          assertAppendOnly(beforeCut, snapshotSession(project, sessionId));

          await assertResumes(
            project,
            sessionId,
            async (prompt) => {
              const from = provider.requests.length;
              provider.push({ text: 'Back after the faults.' });
              const resumed = await exec(['--resume', sessionId, prompt]);
              assert.equal(resumed.code, 0, resumed.stderr);
              assert.equal(resumed.events.at(-1)?.type, 'run_succeeded');
              return provider.requests[from];
            },
            'exec faults',
          );
        } finally {
          await provider.close();
        }
      });
    });
  });
}
