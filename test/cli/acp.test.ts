// `glassbox acp` as an editor runs it: the built CLI as a child process, driven over its stdio by
// the official SDK's client side (@agentclientprotocol/sdk), against the scripted fake provider.

import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  PROTOCOL_VERSION,
  client,
  methods,
  ndJsonStream,
  type ClientConnection,
  type InitializeResponse,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
  type SessionUpdate,
} from '@agentclientprotocol/sdk';
import { startFakeProvider, type FakeProvider, type ScriptStep } from '../../src/testing/index.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { cliEnv, jsonLines, runCli } from '../helpers/run-cli.js';

const ENTRY = fileURLToPath(new URL('../../bin/glassbox.js', import.meta.url));

type Answer = (request: RequestPermissionRequest) => RequestPermissionResponse | Promise<RequestPermissionResponse>;

interface Agent {
  child: ChildProcess;
  connection: ClientConnection;
  updates: SessionNotification[];
  permissions: RequestPermissionRequest[];
  /** Answers the next permission requests, in order. */
  answers: Answer[];
  stderr: () => string;
  /** Everything the agent wrote to stdout, as sent. */
  stdout: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves on the first update that `match` accepts (including ones already received). */
  waitFor: (match: (update: SessionUpdate) => boolean) => Promise<SessionUpdate>;
}

async function project(): Promise<{ root: string; home: string }> {
  const base = await makeTempDir();
  const root = join(base, 'project');
  await mkdir(root, { recursive: true });
  await writeFile(join(root, 'README.md'), '# Sample\n');
  return { root, home: join(base, 'home') };
}

function startAgent(provider: FakeProvider, home: string, extra: string[] = []): Agent {
  const child = spawn(
    process.execPath,
    [ENTRY, 'acp', '--wire-api', 'chat', '--base-url', provider.baseURL, '-m', 'test-model', ...extra],
    { env: cliEnv({ OPENAI_API_KEY: 'sk-test', GLASSBOX_HOME: home }), stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  const updates: SessionNotification[] = [];
  const permissions: RequestPermissionRequest[] = [];
  const answers: Answer[] = [];
  const waiters: Array<{ match: (update: SessionUpdate) => boolean; resolve: (update: SessionUpdate) => void }> = [];
  const app = client({ name: 'acp-test' })
    .onNotification(methods.client.session.update, ({ params }) => {
      updates.push(params);
      for (const waiter of [...waiters]) {
        if (waiter.match(params.update)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(params.update);
        }
      }
    })
    .onRequest(methods.client.session.requestPermission, async ({ params }) => {
      permissions.push(params);
      const answer = answers.shift();
      assert.ok(answer, `unexpected permission request: ${JSON.stringify(params)}`);
      return answer(params);
    });
  const stream = ndJsonStream(
    Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout!) as unknown as ReadableStream<Uint8Array>,
  );
  const connection = app.connect(stream);
  const waitFor = (match: (update: SessionUpdate) => boolean): Promise<SessionUpdate> => {
    const seen = updates.find((n) => match(n.update));
    if (seen) return Promise.resolve(seen.update);
    return new Promise((resolve) => waiters.push({ match, resolve }));
  };
  return { child, connection, updates, permissions, answers, stderr: () => stderr, stdout: () => stdout, exited, waitFor };
}

async function initialize(agent: Agent, session: { compaction?: Record<string, unknown> } = {}): Promise<InitializeResponse> {
  return agent.connection.agent.request(methods.agent.initialize, {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, session },
  });
}

function prompt(agent: Agent, sessionId: string, text: string) {
  return agent.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] });
}

const select =
  (optionId: string): Answer =>
  () => ({ outcome: { outcome: 'selected', optionId } });

function sessionRecords(home: string, sessionId: string): Array<Record<string, unknown>> {
  const dir = join(home, 'sessions');
  const walk = (path: string): string[] =>
    readdirSync(path, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? walk(join(path, entry.name)) : entry.name.includes(sessionId) ? [join(path, entry.name)] : [],
    );
  const [file] = walk(dir).filter((path) => path.endsWith('.jsonl'));
  assert.ok(file, `no session file for ${sessionId}`);
  return jsonLines(readFileSync(file, 'utf8'));
}

function ofSession(agent: Agent, sessionId: string, from = 0): SessionUpdate[] {
  return agent.updates
    .slice(from)
    .filter((n) => n.sessionId === sessionId)
    .map((n) => n.update);
}

function text(updates: SessionUpdate[], kind: 'agent_message_chunk' | 'agent_thought_chunk' | 'user_message_chunk'): string {
  return updates
    .filter((u) => u.sessionUpdate === kind)
    .map((u) => (u.sessionUpdate === kind && u.content.type === 'text' ? u.content.text : ''))
    .join('');
}

describe('glassbox acp', { concurrency: true }, () => {
  test('initialize → new → prompt: streamed text and thought, a write allowed once with its diff, one rejected, usage; cancel mid-turn; garbage answer → denial; load replays in a new process; exec --resume continues it', async (t) => {
    const { root, home } = await project();
    let releaseStall: () => void = () => {};
    const script: ScriptStep[] = [
      {
        reasoning: { text: 'The user wants notes.' },
        text: 'Writing the notes now.',
        toolCalls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'first line\n' } }],
        usage: { input: 1200, output: 40 },
      },
      { toolCalls: [{ name: 'write_file', arguments: { path: 'other.txt', content: 'never\n' } }], usage: { input: 1300, output: 20 } },
      { text: 'Done: notes.txt written.', usage: { input: 1400, output: 10 } },
      // Turn 2: the stream stalls after its first events, until the client cancels.
      () => {
        releaseStall();
        return { text: 'Thinking slowly about this', chunkSize: 4, fault: { kind: 'stall', afterEvents: 3 } };
      },
      // Turn 3: the client answers garbage.
      { toolCalls: [{ name: 'write_file', arguments: { path: 'third.txt', content: 'no\n' } }] },
      { text: 'Understood, not written.' },
    ];
    const provider = await startFakeProvider({ script });
    t.after(() => provider.close());
    // A catalog model, so usage updates carry a cost.
    const agent = startAgent(provider, home, ['-m', 'gpt-4.1-mini']);
    t.after(() => agent.child.kill('SIGKILL'));

    const init = await initialize(agent);
    assert.equal(init.protocolVersion, PROTOCOL_VERSION);
    assert.equal(init.agentCapabilities?.loadSession, true);
    assert.deepEqual(init.agentCapabilities?.mcpCapabilities, { http: false, sse: false });

    // The client's MCP servers are refused, clearly.
    await assert.rejects(
      agent.connection.agent.request(methods.agent.session.new, {
        cwd: root,
        mcpServers: [{ name: 'theirs', command: 'true', args: [], env: [] }],
      }),
      /does not take MCP servers from the client/,
    );
    // A cwd that is no project is refused.
    await assert.rejects(
      agent.connection.agent.request(methods.agent.session.new, { cwd: join(root, 'missing'), mcpServers: [] }),
      /does not exist/,
    );

    const created = await agent.connection.agent.request(methods.agent.session.new, { cwd: root, mcpServers: [] });
    const sessionId = created.sessionId;
    assert.equal(created.modes?.currentModeId, 'read-only');
    assert.deepEqual(
      created.modes?.availableModes.map((m) => m.id),
      ['read-only', 'workspace-write', 'full-access'],
    );

    // Turn 1: allow_once for the first write, reject_once for the second.
    agent.answers.push(select('allow_once'), select('reject_once'));
    const first = await prompt(agent, sessionId, 'write some notes');
    assert.equal(first.stopReason, 'end_turn', agent.stderr());
    const turn1 = ofSession(agent, sessionId);
    assert.equal(text(turn1, 'agent_thought_chunk'), 'The user wants notes.');
    assert.equal(text(turn1, 'agent_message_chunk'), 'Writing the notes now.Done: notes.txt written.');
    assert.ok(turn1.filter((u) => u.sessionUpdate === 'agent_message_chunk').length > 1, 'the text is streamed in chunks');

    assert.equal(agent.permissions.length, 2);
    const asked = agent.permissions[0]!;
    assert.equal(asked.sessionId, sessionId);
    assert.deepEqual(
      asked.options.map((o) => o.kind),
      ['allow_once', 'allow_always', 'reject_once', 'reject_always'],
    );
    assert.equal(asked.toolCall.kind, 'edit');
    assert.deepEqual(asked.toolCall.locations, [{ path: join(root, 'notes.txt') }]);
    // The question carries the change preview (the runner's dry run).
    assert.match(JSON.stringify(asked.toolCall.content), /\+first line/);

    const calls = turn1.filter((u) => u.sessionUpdate === 'tool_call');
    assert.equal(calls.length, 2);
    const [written, refused] = calls as Array<Extract<SessionUpdate, { sessionUpdate: 'tool_call' }>>;
    assert.equal(written!.kind, 'edit');
    assert.equal(written!.status, 'pending');
    assert.equal(written!.title, 'Write notes.txt');
    const writtenUpdates = turn1.filter(
      (u): u is Extract<SessionUpdate, { sessionUpdate: 'tool_call_update' }> =>
        u.sessionUpdate === 'tool_call_update' && u.toolCallId === written!.toolCallId,
    );
    assert.deepEqual(
      writtenUpdates.map((u) => u.status),
      ['in_progress', 'completed'],
    );
    const diff = writtenUpdates[1]!.content?.find((c) => c.type === 'diff');
    assert.deepEqual(diff, { type: 'diff', path: join(root, 'notes.txt'), oldText: null, newText: 'first line\n' });
    assert.equal(readFileSync(join(root, 'notes.txt'), 'utf8'), 'first line\n');

    const refusedEnd = turn1.filter((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === refused!.toolCallId).at(-1);
    assert.equal(refusedEnd?.sessionUpdate === 'tool_call_update' && refusedEnd.status, 'failed');
    assert.equal(existsSync(join(root, 'other.txt')), false);

    const usage = turn1.filter((u) => u.sessionUpdate === 'usage_update').at(-1);
    assert.ok(usage && usage.sessionUpdate === 'usage_update');
    assert.equal(usage.used, 1410);
    assert.equal(usage.size, 1_047_576);
    // (3,900 input × $0.40 + 70 output × $1.60) / 1M, at the catalog's prices.
    assert.deepEqual(usage.cost, { amount: 0.001672, currency: 'USD' });

    // Mode switch: answered with current_mode_update.
    await agent.connection.agent.request(methods.agent.session.setMode, { sessionId, modeId: 'workspace-write' });
    await agent.waitFor((u) => u.sessionUpdate === 'current_mode_update' && u.currentModeId === 'workspace-write');
    await agent.connection.agent.request(methods.agent.session.setMode, { sessionId, modeId: 'read-only' });
    await assert.rejects(agent.connection.agent.request(methods.agent.session.setMode, { sessionId, modeId: 'yolo' }), /unknown mode/);

    // Turn 2: cancelled while the model streams.
    const stalled = new Promise<void>((resolve) => (releaseStall = resolve));
    const before = agent.updates.length;
    const second = prompt(agent, sessionId, 'think about it');
    await stalled;
    await agent.waitFor((u) => u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' && u.content.text.startsWith('Thin'));
    await agent.connection.agent.notify(methods.agent.session.cancel, { sessionId });
    assert.equal((await second).stopReason, 'cancelled');
    assert.ok(ofSession(agent, sessionId, before).some((u) => u.sessionUpdate === 'agent_message_chunk'));

    // Turn 3: an answer that is none of the options is a denial, and the turn ends cleanly.
    agent.answers.push(() => ({ outcome: { outcome: 'selected', optionId: 'yes-please' } }));
    const third = await prompt(agent, sessionId, 'write a third file');
    assert.equal(third.stopReason, 'end_turn');
    assert.equal(existsSync(join(root, 'third.txt')), false);
    assert.match(agent.stderr(), /not offered/);

    // The session is an ordinary Glassbox session, ended turn by turn.
    const records = sessionRecords(home, sessionId);
    assert.deepEqual(
      records.filter((r) => String(r.type).startsWith('turn_')).map((r) => r.type),
      ['turn_started', 'turn_completed', 'turn_started', 'turn_cancelled', 'turn_started', 'turn_completed'],
    );

    // Closing stdin ends the agent cleanly.
    agent.child.stdin!.end();
    assert.deepEqual(await agent.exited, { code: 0, signal: null });

    // A new process loads the session: its history comes back as updates.
    const again = startAgent(provider, home, ['-m', 'gpt-4.1-mini']);
    t.after(() => again.child.kill('SIGKILL'));
    await initialize(again);
    const loaded = await again.connection.agent.request(methods.agent.session.load, { sessionId, cwd: root, mcpServers: [] });
    // Loaded again: the same usage, not counted twice.
    const replayLength = again.updates.length;
    await again.connection.agent.request(methods.agent.session.load, { sessionId, cwd: root, mcpServers: [] });
    const usageOf = (updates: SessionUpdate[]) => updates.filter((u) => u.sessionUpdate === 'usage_update').at(-1);
    const firstUsage = usageOf(ofSession(again, sessionId).slice(0, replayLength));
    assert.ok(firstUsage && firstUsage.sessionUpdate === 'usage_update' && (firstUsage.cost?.amount ?? 0) >= 0.001672);
    assert.deepEqual(usageOf(ofSession(again, sessionId, replayLength)), firstUsage);
    assert.equal(loaded.modes?.currentModeId, 'read-only');
    const replay = ofSession(again, sessionId).slice(0, replayLength);
    assert.equal(text(replay, 'user_message_chunk'), 'write some notesthink about itwrite a third file');
    assert.match(text(replay, 'agent_message_chunk'), /Done: notes\.txt written\./);
    assert.equal(text(replay, 'agent_thought_chunk'), 'The user wants notes.');
    const replayedCalls = replay.filter((u) => u.sessionUpdate === 'tool_call');
    assert.equal(replayedCalls.length, 3);
    assert.ok(replay.some((u) => u.sessionUpdate === 'usage_update'));
    again.child.stdin!.end();
    assert.deepEqual(await again.exited, { code: 0, signal: null });

    // And `exec --resume` continues it.
    const resumeProvider = await startFakeProvider({ script: [{ text: 'Resumed.' }] });
    t.after(() => resumeProvider.close());
    const resumed = await runCli(
      [
        'exec',
        '--json',
        '--wire-api',
        'chat',
        '--base-url',
        resumeProvider.baseURL,
        '-m',
        'test-model',
        '-C',
        root,
        '--resume',
        sessionId,
        'and now?',
      ],
      cliEnv({ OPENAI_API_KEY: 'sk-test', GLASSBOX_HOME: home }),
    );
    assert.equal(resumed.code, 0, resumed.stderr);
    const started = jsonLines(resumed.stdout)[0]!;
    assert.equal(started.sessionId, sessionId);
    assert.equal(started.resumed, true);
    assert.match(JSON.stringify(resumeProvider.requests[0]!.body), /Done: notes\.txt written\./);
  });

  test('a client that disconnects while a permission request is open: denied, the turn is cancelled and recorded, the process exits 0', async (t) => {
    const { root, home } = await project();
    const provider = await startFakeProvider({
      script: [{ toolCalls: [{ name: 'write_file', arguments: { path: 'x.txt', content: 'x\n' } }] }, { text: 'unreachable' }],
    });
    t.after(() => provider.close());
    const agent = startAgent(provider, home);
    t.after(() => agent.child.kill('SIGKILL'));
    await initialize(agent);
    const { sessionId } = await agent.connection.agent.request(methods.agent.session.new, { cwd: root, mcpServers: [] });
    let asked: () => void = () => {};
    const askedPromise = new Promise<void>((resolve) => (asked = resolve));
    // Never answers: the client goes away instead.
    agent.answers.push(() => {
      asked();
      return new Promise<RequestPermissionResponse>(() => {});
    });
    const turn = prompt(agent, sessionId, 'write x').catch((error: unknown) => error);
    await askedPromise;
    agent.child.stdin!.end();
    assert.deepEqual(await agent.exited, { code: 0, signal: null }, agent.stderr());
    await turn;
    assert.equal(existsSync(join(root, 'x.txt')), false);
    const types = sessionRecords(home, sessionId).map((r) => r.type);
    assert.equal(types.at(-1), 'turn_cancelled');
    assert.equal(provider.requests.length, 1);
  });
  test('malformed JSON-RPC gets an error and the agent keeps serving; allow_always and reject_always hold for the session; an answer that is no outcome is a denial; truncated and refused answers map to max_tokens and refusal', async (t) => {
    const { root, home } = await project();
    const provider = await startFakeProvider({
      script: [
        { toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'a\n' } }] },
        { toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'a again\n' } }] },
        { toolCalls: [{ name: 'shell', arguments: { command: 'touch c.txt', escalate: true, justification: 'test' } }] },
        { toolCalls: [{ name: 'shell', arguments: { command: 'touch d.txt', escalate: true, justification: 'test' } }] },
        { toolCalls: [{ name: 'write_file', arguments: { path: 'e.txt', content: 'e\n' } }] },
        { text: 'Done.' },
        { text: 'This answer is cut', finishReason: 'length' },
        { refusal: 'I will not do that.' },
        // The summary `/compact` asks for.
        { text: 'Summary: a.txt was written; commands were refused.' },
      ],
    });
    t.after(() => provider.close());
    const agent = startAgent(provider, home, ['--sandbox', 'workspace-write']);
    t.after(() => agent.child.kill('SIGKILL'));
    agent.child.stdin!.write('this is not JSON\n');
    await initialize(agent, { compaction: {} });
    assert.match(agent.stdout(), /"id":null,"error":\{"code":-32700/);
    const created = await agent.connection.agent.request(methods.agent.session.new, { cwd: root, mcpServers: [] });
    assert.equal(created.modes?.currentModeId, 'workspace-write');
    const { sessionId } = created;
    await agent.connection.agent.request(methods.agent.session.setMode, { sessionId, modeId: 'read-only' });

    agent.answers.push(
      select('allow_always'),
      select('reject_always'),
      // Not an outcome at all.
      () => ({ nonsense: true }) as unknown as RequestPermissionResponse,
    );
    const turn = await prompt(agent, sessionId, 'write files');
    assert.equal(turn.stopReason, 'end_turn', agent.stderr());
    // a.txt asked (allow_always) and its second write not (the gate's grant: the same tool on the
    // same file); the first command asked (reject_always), the second denied without asking;
    // e.txt asked, answered with no outcome, and denied.
    assert.deepEqual(
      agent.permissions.map((p) => p.toolCall.title),
      ['Write a.txt', 'Run `touch c.txt`', 'Write e.txt'],
    );
    assert.equal(readFileSync(join(root, 'a.txt'), 'utf8'), 'a again\n');
    assert.equal(existsSync(join(root, 'c.txt')), false);
    assert.equal(existsSync(join(root, 'd.txt')), false);
    assert.equal(existsSync(join(root, 'e.txt')), false);
    const denied = sessionRecords(home, sessionId).filter(
      (r) => r.type === 'audit' && (r.event as { type: string }).type === 'approval_resolved',
    );
    assert.deepEqual(
      denied.map((r) => (r.event as { decision: string }).decision),
      ['approve_session', 'deny', 'deny', 'deny'],
    );
    const shellCalls = ofSession(agent, sessionId).filter((u) => u.sessionUpdate === 'tool_call' && u.kind === 'execute');
    assert.equal(shellCalls.length, 2);

    assert.equal((await prompt(agent, sessionId, 'say a lot')).stopReason, 'max_tokens');
    assert.equal((await prompt(agent, sessionId, 'say something bad')).stopReason, 'refusal');
    // The slash commands offered after session/new (no prompt commands in this project), and /compact run: a manual compaction.
    const offered = await agent.waitFor((u) => u.sessionUpdate === 'available_commands_update');
    assert.deepEqual(offered.sessionUpdate === 'available_commands_update' && offered.availableCommands.map((c) => c.name), [
      'compact',
      'plan',
    ]);
    const beforeCompact = agent.updates.length;
    assert.equal((await prompt(agent, sessionId, '/compact keep the file names')).stopReason, 'end_turn');
    const compacted = ofSession(agent, sessionId, beforeCompact);
    assert.ok(compacted.some((u) => u.sessionUpdate === 'compaction_update' && u.status === 'completed'));
    assert.match(text(compacted, 'agent_message_chunk'), /^Compacted the conversation: about [\d,]+ → [\d,]+ tokens\.$/);
    assert.match(JSON.stringify(provider.requests.at(-1)!.body), /keep the file names/);
    assert.equal(sessionRecords(home, sessionId).filter((r) => r.type === 'compaction').length, 1);

    // session/list: this project's sessions, as `glassbox sessions` lists them.
    const listed = await agent.connection.agent.request(methods.agent.session.list, { cwd: root });
    assert.deepEqual(
      listed.sessions.map((info) => [info.sessionId, info.cwd, info.title]),
      [[sessionId, root, 'write files']],
    );
    assert.deepEqual((await agent.connection.agent.request(methods.agent.session.list, { cwd: join(root, 'nowhere') })).sessions, []);
    agent.child.stdin!.end();
    assert.deepEqual(await agent.exited, { code: 0, signal: null });
    // Nothing but JSON-RPC messages went to stdout.
    const lines = agent
      .stdout()
      .split('\n')
      .filter((line) => line !== '');
    assert.ok(lines.length > 10);
    for (const line of lines) assert.equal((JSON.parse(line) as { jsonrpc?: unknown }).jsonrpc, '2.0', line);

    // Loaded in a process started in workspace-write, the session goes on in the mode its last
    // turn ran in.
    const again = startAgent(provider, home, ['--sandbox', 'workspace-write']);
    t.after(() => again.child.kill('SIGKILL'));
    await initialize(again);
    const loaded = await again.connection.agent.request(methods.agent.session.load, { sessionId, cwd: root, mcpServers: [] });
    assert.equal(loaded.modes?.currentModeId, 'read-only');
    again.child.stdin!.end();
    assert.deepEqual(await again.exited, { code: 0, signal: null });
  });
  test('--max-rounds stops a turn as max_turn_requests; SIGTERM from the editor ends a serving agent cleanly (exit 0)', async (t) => {
    const { root, home } = await project();
    const provider = await startFakeProvider({
      script: [{ toolCalls: [{ name: 'read_file', arguments: { path: 'README.md' } }] }, { text: 'never asked for' }],
    });
    t.after(() => provider.close());
    const agent = startAgent(provider, home, ['--max-rounds', '1']);
    t.after(() => agent.child.kill('SIGKILL'));
    await initialize(agent);
    const { sessionId } = await agent.connection.agent.request(methods.agent.session.new, { cwd: root, mcpServers: [] });
    assert.equal((await prompt(agent, sessionId, 'read the readme')).stopReason, 'max_turn_requests');
    const read = ofSession(agent, sessionId).find((u) => u.sessionUpdate === 'tool_call');
    assert.ok(read && read.sessionUpdate === 'tool_call');
    assert.equal(read.kind, 'read');
    assert.deepEqual(read.locations, [{ path: join(root, 'README.md') }]);
    agent.child.kill('SIGTERM');
    assert.deepEqual(await agent.exited, { code: 0, signal: null }, agent.stderr());
  });
});
