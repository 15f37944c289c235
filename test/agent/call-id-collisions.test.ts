// Providers that reuse tool-call ids (`call_1` in every response, as several local servers do;
// `"..."` from llama.cpp; the same id twice in one response; an empty id). Glassbox gives such a
// call an id of its own at commit time, records the provider's, and sends its own id in both the
// call and the output on every later request, on both wire APIs.

import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  ALLOW_ALL_GATE,
  NO_APPROVER,
  ToolRuntime,
  itemsToModelMessages,
  runSamplingLoop,
  userMessage,
  type FunctionCallItem,
  type ResponseItem,
} from '../../src/agent/index.js';
import { createToolSessionState } from '../../src/tools/index.js';
import {
  createGateway,
  type ModelGateway,
  type ModelRequest,
  type ModelResponse,
  type ModelToolCall,
  type WireApi,
} from '../../src/model/index.js';
import { openRunner, runTurn, type TurnResult } from '../../src/runner/index.js';
import {
  INTERRUPTED_CALL_OUTPUT,
  MemorySessionStore,
  replaySession,
  type NewSessionRecord,
  type SessionStore,
  type SessionWriter,
} from '../../src/sessions/index.js';
import { startFakeProvider, type FakeProvider, type ScriptedTurn } from '../../src/testing/index.js';
import { WIRE_APIS_UNDER_TEST, echoTool, runLoop } from '../helpers/loop-harness.js';
import { withTempDir } from '../helpers/temp-dir.js';
import { assertToolItemsWellFormed, toolItemsOfMessages, toolItemsSent, type SentToolItem } from './sent-tool-calls.js';

const echo = (text: string, id: string) => ({ id, name: 'echo', arguments: { text } });

function callsOf(history: readonly ResponseItem[]): FunctionCallItem[] {
  return history.filter((item): item is FunctionCallItem => item.type === 'function_call');
}

function outputIdsOf(history: readonly ResponseItem[]): string[] {
  return history.flatMap((item) => (item.type === 'function_call_output' ? [item.callId] : []));
}

function assertUnique(ids: readonly string[], where: string): void {
  assert.equal(new Set(ids).size, ids.length, `${where}: ids ${JSON.stringify(ids)} are not unique`);
  for (const id of ids) assert.notEqual(id, '', `${where}: an empty id`);
}

for (const wireApi of WIRE_APIS_UNDER_TEST) {
  describe(`colliding tool-call ids in the loop (${wireApi})`, () => {
    test('a provider that names every call call_1: committed ids are unique, the provider id is recorded, our id is sent', async () => {
      const run = await runLoop({
        wireApi,
        tools: [echoTool()],
        script: [
          { toolCalls: [echo('one', 'call_1')] },
          { toolCalls: [echo('two', 'call_1')] },
          { toolCalls: [echo('three', 'call_1')] },
          { text: 'done' },
        ],
      });
      assert.equal(run.terminal.type, 'run_succeeded');
      const calls = callsOf(run.history);
      assertUnique(
        calls.map((call) => call.callId),
        'committed calls',
      );
      // The first use of an id is kept as is; only a collision is renamed, with the original kept.
      assert.equal(calls[0]!.callId, 'call_1');
      assert.equal(calls[0]!.providerCallId, undefined);
      assert.deepEqual(
        calls.slice(1).map((call) => call.providerCallId),
        ['call_1', 'call_1'],
      );
      assert.deepEqual(
        outputIdsOf(run.history),
        calls.map((call) => call.callId),
      );
      // Events (and so audit records and approvals) use the same ids as the committed items.
      const requested = run.events.flatMap((event) => (event.type === 'tool_requested' ? [event.callId] : []));
      assert.deepEqual(
        requested,
        calls.map((call) => call.callId),
      );

      assert.equal(run.provider.requests.length, 4);
      const last = toolItemsSent(run.provider.requests[3]!.body, wireApi);
      assert.deepEqual(assertToolItemsWellFormed(last, `request 4 (${wireApi})`), ['echo: one', 'echo: two', 'echo: three']);
      assert.deepEqual(
        last.flatMap((item) => (item.kind === 'call' ? [item.id] : [])),
        calls.map((call) => call.callId),
      );
    });

    test('two calls in one response share an id: each gets its own id and its own output', async () => {
      const run = await runLoop({
        wireApi,
        tools: [echoTool()],
        script: [
          { toolCalls: [echo('a', 'call_1'), echo('b', 'call_1')] },
          { toolCalls: [echo('c', 'call_1'), echo('d', 'call_1')] },
          { text: 'ok' },
        ],
      });
      assert.equal(run.terminal.type, 'run_succeeded');
      const calls = callsOf(run.history);
      assertUnique(
        calls.map((call) => call.callId),
        'committed calls',
      );
      assert.deepEqual(
        outputIdsOf(run.history),
        calls.map((call) => call.callId),
      );
      const sent = toolItemsSent(run.provider.requests[2]!.body, wireApi);
      assert.deepEqual(assertToolItemsWellFormed(sent, `request 3 (${wireApi})`), ['echo: a', 'echo: b', 'echo: c', 'echo: d']);
    });

    test('llama.cpp-style "..." ids in every response', async () => {
      const run = await runLoop({
        wireApi,
        tools: [echoTool()],
        script: [{ toolCalls: [echo('a', '...'), echo('b', '...')] }, { toolCalls: [echo('c', '...')] }, { text: 'ok' }],
      });
      assert.equal(run.terminal.type, 'run_succeeded');
      const calls = callsOf(run.history);
      assertUnique(
        calls.map((call) => call.callId),
        'committed calls',
      );
      assert.deepEqual(
        calls.map((call) => call.providerCallId ?? call.callId),
        ['...', '...', '...'],
      );
      const sent = toolItemsSent(run.provider.requests[2]!.body, wireApi);
      assert.deepEqual(assertToolItemsWellFormed(sent, `request 3 (${wireApi})`), ['echo: a', 'echo: b', 'echo: c']);
    });

    test('crash after a reused id was committed, then resume: every later request is well formed', async () => {
      const script = [
        // Run 1: two rounds, both calls named call_1; the file "dies" after the second call.
        { toolCalls: [echo('one', 'call_1')] },
        { toolCalls: [echo('two', 'call_1')] },
        { text: 'done one' },
        // Run 2 (resumed): call_1 yet again.
        { toolCalls: [echo('three', 'call_1')] },
        { text: 'done two' },
        // Run 3 (resumed again): nothing left to repair.
        { text: 'done three' },
      ];
      await withRunner(wireApi, script, async ({ store, provider, turn }) => {
        let calls = 0;
        const first = await turn(
          crashAfter(store, (record) => record.type === 'response_item' && record.item.type === 'function_call' && ++calls === 2),
          'first',
          null,
        );
        assert.equal(first.terminal.type, 'run_succeeded');
        const second = await turn(store, 'second', first.sessionId);
        assert.equal(second.terminal.type, 'run_succeeded');
        const third = await turn(store, 'third', first.sessionId);
        assert.equal(third.terminal.type, 'run_succeeded');

        assert.equal(provider.requests.length, 6);
        const resumedFirst = assertToolItemsWellFormed(toolItemsSent(provider.requests[3]!.body, wireApi), `run 2, request 1 (${wireApi})`);
        assert.deepEqual(resumedFirst, ['echo: one', INTERRUPTED_CALL_OUTPUT]);
        const resumedLast = toolItemsSent(provider.requests[4]!.body, wireApi);
        assert.deepEqual(assertToolItemsWellFormed(resumedLast, `run 2, request 2 (${wireApi})`), [
          'echo: one',
          INTERRUPTED_CALL_OUTPUT,
          'echo: three',
        ]);
        const again = toolItemsSent(provider.requests[5]!.body, wireApi);
        assert.deepEqual(assertToolItemsWellFormed(again, `run 3 (${wireApi})`), ['echo: one', INTERRUPTED_CALL_OUTPUT, 'echo: three']);
        // Replay gives the same ids every time: run 3 sent exactly what run 2 held.
        assert.deepEqual(sentCallIds(again), sentCallIds(resumedLast));

        // The file keeps the provider's id beside ours, and a replay answers every call once.
        const records = (await store.read(first.sessionId)).records;
        const recorded = records.flatMap((record) =>
          record.type === 'response_item' && record.item.type === 'function_call' ? [record.item] : [],
        );
        assert.deepEqual(
          recorded.map((call) => call.providerCallId ?? call.callId),
          ['call_1', 'call_1', 'call_1'],
        );
        assertUnique(
          recorded.map((call) => call.callId),
          'recorded calls',
        );
        const repairs = records.filter((record) => record.type === 'response_item' && record.repaired === true);
        assert.equal(repairs.length, 1);
        assert.equal(repairs[0]!.type === 'response_item' && repairs[0].turn, 1);
        assertToolItemsWellFormed(toolItemsOfMessages(itemsToModelMessages(replaySession(records).history)), 'replay');
      });
    });

    test('a session file written with colliding ids (crash after the round-2 call_1) resumes into well-formed requests', async () => {
      const script = [{ toolCalls: [echo('three', 'call_1')] }, { text: 'done' }, { text: 'done again' }];
      await withRunner(wireApi, script, async ({ store, provider, turn }) => {
        // What the previous version wrote: the provider's ids as sent, call_1 in both rounds.
        const writer = await store.create({ cwd: '/p', model: 'm', wireApi, glassboxVersion: '0.1.0' });
        const legacy: NewSessionRecord[] = [
          {
            type: 'turn_started',
            turn: 1,
            runId: 'r1',
            prompt: 'first',
            policy: { approvalPolicy: 'on-request', sandbox: 'read-only' },
            model: 'm',
            wireApi,
          },
          { type: 'response_item', turn: 1, item: { type: 'message', role: 'system', content: 'You are a test agent.' } },
          { type: 'response_item', turn: 1, item: userMessage('first') },
          { type: 'response_item', turn: 1, item: { type: 'function_call', callId: 'call_1', name: 'echo', arguments: '{"text":"one"}' } },
          {
            type: 'response_item',
            turn: 1,
            item: { type: 'function_call_output', callId: 'call_1', name: 'echo', output: 'echo: one', isError: false },
          },
          { type: 'response_item', turn: 1, item: { type: 'function_call', callId: 'call_1', name: 'echo', arguments: '{"text":"two"}' } },
        ];
        for (const record of legacy) await writer.append(record);
        await writer.close();

        const second = await turn(store, 'second', writer.sessionId);
        assert.equal(second.terminal.type, 'run_succeeded');
        const third = await turn(store, 'third', writer.sessionId);
        assert.equal(third.terminal.type, 'run_succeeded');
        const first = toolItemsSent(provider.requests[0]!.body, wireApi);
        assert.deepEqual(assertToolItemsWellFormed(first, `resumed request 1 (${wireApi})`), ['echo: one', INTERRUPTED_CALL_OUTPUT]);
        const last = toolItemsSent(provider.requests[1]!.body, wireApi);
        assert.deepEqual(assertToolItemsWellFormed(last, `resumed request 2 (${wireApi})`), [
          'echo: one',
          INTERRUPTED_CALL_OUTPUT,
          'echo: three',
        ]);
        const again = toolItemsSent(provider.requests[2]!.body, wireApi);
        assert.deepEqual(assertToolItemsWellFormed(again, `resumed again (${wireApi})`), [
          'echo: one',
          INTERRUPTED_CALL_OUTPUT,
          'echo: three',
        ]);
        assert.deepEqual(sentCallIds(again), sentCallIds(last));
      });
    });
  });
}

interface RunnerWorld {
  store: MemorySessionStore;
  provider: FakeProvider;
  turn(sessions: SessionStore, prompt: string, resume: string | null): Promise<TurnResult>;
}

/** Turns through the real runner (resume, repair, recorder) against the fake provider. */
async function withRunner(wireApi: WireApi, script: ScriptedTurn[], run: (world: RunnerWorld) => Promise<void>): Promise<void> {
  await withTempDir(async (dir) => {
    const root = join(dir, 'project');
    await mkdir(root);
    const provider = await startFakeProvider({ script });
    try {
      const gateway = createGateway({
        wireApi,
        baseURL: provider.baseURL,
        apiKey: 'k',
        retry: { baseDelayMs: 1, maxDelayMs: 2, random: () => 0.5 },
      });
      const settings = {
        root,
        home: join(dir, 'home'),
        model: 'm',
        wireApi,
        gateway,
        sandbox: 'read-only',
        approvalPolicy: 'on-request',
        network: false,
      } as const;
      await run({
        store: new MemorySessionStore(),
        provider,
        turn: async (sessions, prompt, resume) =>
          runTurn(await openRunner({ ...settings, store: sessions, tools: [echoTool()], compaction: null }), {
            prompt,
            resume,
            runId: `run-${prompt}`,
            signal: new AbortController().signal,
            approvals: NO_APPROVER,
          }),
      });
    } finally {
      await provider.close();
    }
  });
}

function sentCallIds(items: readonly SentToolItem[]): string[] {
  return items.flatMap((item) => (item.kind === 'call' ? [item.id] : []));
}

describe('colliding tool-call ids in the loop (gateway stub)', () => {
  test('an empty call id (within and across rounds) gets an id of our own, sent in the call and its output', async () => {
    const requests: ModelRequest[] = [];
    const script: ModelResponse[] = [
      toolResponse([
        { id: '', name: 'echo', arguments: '{"text":"a"}' },
        { id: '', name: 'echo', arguments: '{"text":"b"}' },
      ]),
      toolResponse([{ id: '', name: 'echo', arguments: '{"text":"c"}' }]),
      { text: 'done', toolCalls: [], usage: null, reasoning: [], finishReason: 'stop', responseId: null, model: null },
    ];
    const gateway: Pick<ModelGateway, 'streamResponse'> = {
      async *streamResponse(request) {
        requests.push(structuredClone(request));
        const response = script.shift();
        assert.ok(response, 'script exhausted');
        yield { type: 'completed', response };
      },
    };
    const history: ResponseItem[] = [];
    const terminal = await runSamplingLoop({
      gateway,
      model: 'm',
      wireApi: 'chat' satisfies WireApi,
      sessionId: 's',
      runId: 'r',
      resumed: false,
      history,
      newItems: [userMessage('go')],
      tools: new ToolRuntime({
        tools: [echoTool()],
        root: process.cwd(),
        state: createToolSessionState(),
        gate: ALLOW_ALL_GATE,
        approvals: NO_APPROVER,
      }),
      signal: new AbortController().signal,
    });
    assert.equal(terminal.type, 'run_succeeded');
    const calls = callsOf(history);
    assertUnique(
      calls.map((call) => call.callId),
      'committed calls',
    );
    assert.deepEqual(
      calls.map((call) => call.providerCallId),
      ['', '', ''],
    );
    assert.deepEqual(assertToolItemsWellFormed(toolItemsOfMessages(requests[2]!.messages), 'request 3'), ['echo: a', 'echo: b', 'echo: c']);
  });
});

function toolResponse(toolCalls: ModelToolCall[]): ModelResponse {
  return { text: '', toolCalls, reasoning: [], usage: null, finishReason: 'tool_calls', responseId: null, model: null };
}

/** Records appended after `dies` returns true are dropped, as if the process had been killed. */
function crashAfter(inner: SessionStore, dies: (record: NewSessionRecord) => boolean): SessionStore {
  const wrap = (writer: SessionWriter): SessionWriter => {
    let dead = false;
    return {
      sessionId: writer.sessionId,
      async append(record) {
        if (dead) return { ts: new Date().toISOString(), ...record } as Awaited<ReturnType<SessionWriter['append']>>;
        const written = await writer.append(record);
        if (dies(record)) dead = true;
        return written;
      },
      sync: async () => (dead ? undefined : writer.sync()),
      close: () => writer.close(),
    };
  };
  return {
    location: inner.location,
    create: async (meta) => wrap(await inner.create(meta)),
    openForAppend: async (sessionId) => wrap(await inner.openForAppend(sessionId)),
    openAndReplay: async (sessionId, onRecord, options) => {
      const { writer, scan } = await inner.openAndReplay(sessionId, onRecord, options);
      return { writer: wrap(writer), scan };
    },
    read: (sessionId) => inner.read(sessionId),
    scan: (sessionId, onRecord, options) => inner.scan(sessionId, onRecord, options),
    readPage: (sessionId, options) => inner.readPage(sessionId, options),
    revision: (sessionId) => inner.revision(sessionId),
    list: (options) => inner.list(options),
    resolveId: (reference) => inner.resolveId(reference),
    delete: (sessionId) => inner.delete(sessionId),
    exportLines: (sessionId, onLine) => inner.exportLines(sessionId, onLine),
    importSession: (lines, source) => inner.importSession(lines, source),
  };
}

test('a reused short alphanumeric id (Mistral: exactly 9 of [a-zA-Z0-9]) is renamed to an id of the same shape', async () => {
  const { CallIdAllocator } = await import('../../src/agent/index.js');
  const allocator = new CallIdAllocator();
  const ids = ['D681PevKs', 'D681PevKs', 'D681PevKs', 'abcdefghi'].map((id) => allocator.claim(id));
  assert.equal(ids[0], 'D681PevKs');
  assert.equal(new Set(ids).size, 4);
  for (const id of ids) assert.match(id, /^[a-zA-Z0-9]{9}$/);
  // Longer or punctuated ids keep the readable `<id>_gb<n>` form.
  assert.deepEqual(
    ['call_1', 'call_1'].map((id) => allocator.claim(id)),
    ['call_1', 'call_1_gb2'],
  );
});
