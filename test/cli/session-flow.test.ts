import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startFakeProvider, type CapturedRequest, type ScriptedTurn } from '../../src/testing/index.js';
import { JsonlSessionStore, forkSession } from '../../src/sessions/index.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { execTurn } from '../helpers/exec-turn.js';
import { cliEnv, jsonLines, runCli, startCli } from '../helpers/run-cli.js';
import { mkdir, writeFile } from 'node:fs/promises';

async function project(): Promise<{ root: string; home: string }> {
  const base = await makeTempDir();
  const root = join(base, 'project');
  await mkdir(root, { recursive: true });
  await writeFile(join(root, 'notes.txt'), 'remember the milk\n');
  return { root, home: join(base, 'home') };
}

/** The conversation a request sent. On the anthropic wire without its cache breakpoints, which move to the newest turn each round by design. */
function messagesOf(request: CapturedRequest): Array<Record<string, unknown>> {
  const body = request.body as { messages?: Array<Record<string, unknown>>; input?: Array<Record<string, unknown>> };
  if (request.wireApi === 'anthropic') {
    return (body.messages ?? []).map((message) => ({
      ...message,
      content: (message.content as Array<Record<string, unknown>>).map(({ cache_control: _marker, ...block }) => block),
    }));
  }
  return (request.wireApi === 'chat' ? body.messages : body.input) ?? [];
}

/** A read and its answer, then a resumed turn, then a fork of the first turn. */
const RESUME_AND_FORK: ScriptedTurn[] = [
  { toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
  { text: 'It says to remember the milk.' },
  { text: 'You asked about notes.' },
  { text: 'Forked answer.' },
];

/**
 * The resumed request (request 2) starts with exactly what the last request of turn 1 sent, plus
 * the final answer and the new prompt: the system prompt is not rebuilt. Returns that prefix.
 */
function assertResumedFromTurnOne(requests: readonly CapturedRequest[]): Array<Record<string, unknown>> {
  const turnOneLast = messagesOf(requests[1]!);
  const resumed = messagesOf(requests[2]!);
  assert.deepEqual(resumed.slice(0, turnOneLast.length), turnOneLast);
  assert.equal(resumed.length, turnOneLast.length + 2);
  assert.match(JSON.stringify(resumed.at(-1)), /what did I ask\?/);
  return turnOneLast;
}

/** The one session listed, after two turns. */
function assertOneSessionListed(sessions: ReadonlyArray<{ sessionId: string; turns: number; title: string }>, sessionId: string): void {
  assert.equal(sessions.length, 1);
  assert.equal(sessions[0]!.sessionId, sessionId);
  assert.equal(sessions[0]!.turns, 2);
  assert.equal(sessions[0]!.title, 'what do the notes say?');
}

/** The session file: its meta first, both turns, and no token deltas. */
async function assertSessionFile(home: string, sessionId: string): Promise<void> {
  const file = await readFile(join(home, 'sessions', `${sessionId}.jsonl`), 'utf8');
  const types = file
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { type: string }).type);
  assert.equal(types[0], 'session_meta');
  assert.equal(types.filter((t) => t === 'turn_started').length, 2);
  assert.ok(!file.includes('assistant_delta'), 'no token deltas are stored');
}

/** The fork's first request (request 3) holds turn 1 of the parent and the new prompt, not turn 2. */
function assertForkIsTurnOnePrefix(requests: readonly CapturedRequest[], turnOneLast: ReadonlyArray<Record<string, unknown>>): void {
  const forkRequest = messagesOf(requests[3]!);
  assert.deepEqual(forkRequest.slice(0, turnOneLast.length), turnOneLast);
  assert.equal(forkRequest.length, turnOneLast.length + 2, 'turn 2 of the parent is not in the fork');
}

// Every test has its own temp dirs and provider and changes nothing process-wide: they run side by side.
describe('sessions', { concurrency: true }, () => {
  describe('sessions through the CLI', () => {
    // The commands a user types, as processes: exec --json, --resume last, sessions, sessions show, fork.
    const wireApi = 'chat';
    test('resume sends the prior history byte for byte, then appends to the same file; fork is a prefix', async () => {
      const { root, home } = await project();
      const provider = await startFakeProvider({
        script: RESUME_AND_FORK,
      });
      const env = cliEnv({ OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k-ant', GLASSBOX_HOME: home });
      const common = ['--wire-api', wireApi, '--base-url', provider.baseURL, '-C', root];
      try {
        const first = await runCli(['exec', '--json', ...common, 'what do the notes say?'], env);
        assert.equal(first.code, 0, first.stderr);
        const started = jsonLines(first.stdout)[0]!;
        assert.equal(started.resumed, false);
        const sessionId = String(started.sessionId);

        const second = await runCli(['exec', '--json', ...common, '--resume', 'last', 'what did I ask?'], env);
        assert.equal(second.code, 0, second.stderr);
        const resumedStart = jsonLines(second.stdout)[0]!;
        assert.equal(resumedStart.sessionId, sessionId);
        assert.equal(resumedStart.resumed, true);

        const turnOneLast = assertResumedFromTurnOne(provider.requests);

        // Two readers of the same sessions, at once.
        const [list, show] = await Promise.all([
          runCli(['sessions', '--json'], env),
          runCli(['sessions', 'show', sessionId.slice(0, 13)], env),
        ]);
        assert.equal(list.code, 0, list.stderr);
        assertOneSessionListed(JSON.parse(list.stdout) as Array<{ sessionId: string; turns: number; title: string }>, sessionId);

        assert.equal(show.code, 0, show.stderr);
        assert.match(show.stdout, /turn_started/);
        assert.match(show.stdout, /turn_completed/);

        await assertSessionFile(home, sessionId);

        const fork = await runCli(['fork', sessionId, '--at-turn', '1'], env);
        assert.equal(fork.code, 0, fork.stderr);
        const forkId = fork.stdout.trim();
        assert.notEqual(forkId, sessionId);
        // What the fork then sends is the session's doing, not the process's: this turn runs here
        // (`exec --resume <id>` as a process: the kill -9 test below).
        const forked = await execTurn({
          root,
          home,
          baseURL: provider.baseURL,
          wireApi,
          apiKey: 'k',
          prompt: 'branch here',
          resume: forkId,
        });
        assert.equal(forked.terminal.type, 'run_succeeded', JSON.stringify(forked.terminal));
        assertForkIsTurnOnePrefix(provider.requests, turnOneLast);
      } finally {
        await provider.close();
      }
    });
  });

  // The same flow for every wire API, turn by turn in this process: what is sent on resume and fork
  // depends on the dialect; the commands around it (above) do not.
  for (const wireApi of ['chat', 'responses', 'anthropic'] as const) {
    describe(`sessions across exec turns (${wireApi})`, () => {
      test('resume sends the prior history byte for byte, then appends to the same file; fork is a prefix', async () => {
        const { root, home } = await project();
        const provider = await startFakeProvider({
          script: RESUME_AND_FORK,
        });
        const exec = (prompt: string, resume: string | null) =>
          execTurn({ root, home, baseURL: provider.baseURL, wireApi, prompt, resume });
        try {
          const first = await exec('what do the notes say?', null);
          assert.equal(first.terminal.type, 'run_succeeded', JSON.stringify(first.terminal));
          const started = first.events[0]!;
          assert.equal(started.type, 'run_started');
          assert.equal(started.resumed, false);
          const sessionId = first.sessionId;

          const second = await exec('what did I ask?', 'last');
          assert.equal(second.terminal.type, 'run_succeeded', JSON.stringify(second.terminal));
          const resumedStart = second.events[0]!;
          assert.equal(resumedStart.sessionId, sessionId);
          assert.equal(resumedStart.resumed, true);

          const turnOneLast = assertResumedFromTurnOne(provider.requests);

          const store = new JsonlSessionStore(join(home, 'sessions'));
          assertOneSessionListed((await store.list()).sessions, sessionId);
          await assertSessionFile(home, sessionId);

          const forkId = await forkSession(store, sessionId, { atTurn: 1 });
          assert.notEqual(forkId, sessionId);
          const forked = await exec('branch here', forkId);
          assert.equal(forked.terminal.type, 'run_succeeded', JSON.stringify(forked.terminal));
          assertForkIsTurnOnePrefix(provider.requests, turnOneLast);
        } finally {
          await provider.close();
        }
      });
    });
  }

  describe('sessions: bad references and crashes', { concurrency: true }, () => {
    test('resuming an unknown id is an error, never a silent new session', async () => {
      const { root, home } = await project();
      const result = await runCli(
        ['exec', '--resume', '01234567-89ab-7def-8123-456789abcdef', '-C', root, 'hi'],
        cliEnv({ GLASSBOX_HOME: home }),
      );
      assert.equal(result.code, 2);
      assert.match(result.stderr, /no session/);
      assert.deepEqual((await new JsonlSessionStore(join(home, 'sessions')).list()).sessions, []);
    });

    test('kill -9 during a tool call, then resume: nothing committed is lost and the orphan is repaired', async () => {
      const { root, home } = await project();
      const provider = await startFakeProvider({
        script: [
          { text: 'Running it.', toolCalls: [{ name: 'shell', arguments: { command: 'sleep 3' } }] },
          { text: 'The command was interrupted; moving on.' },
        ],
      });
      const env = cliEnv({ OPENAI_API_KEY: 'k', GLASSBOX_HOME: home });
      try {
        const { child, done } = startCli(
          ['exec', '--json', '--base-url', provider.baseURL, '-C', root, '--sandbox', 'danger-full-access', 'run it'],
          env,
        );
        let killed = false;
        child.stdout!.on('data', (chunk: Buffer) => {
          if (!killed && chunk.toString().includes('"tool_started"')) {
            killed = true;
            child.kill('SIGKILL');
          }
        });
        const crashed = await done;
        assert.equal(crashed.signal, 'SIGKILL');
        const sessionId = String(jsonLines(crashed.stdout)[0]!.sessionId);

        const resumed = await runCli(
          ['exec', '--json', '--base-url', provider.baseURL, '-C', root, '--resume', sessionId, 'continue'],
          env,
        );
        assert.equal(resumed.code, 0, resumed.stderr);
        const sent = JSON.stringify(provider.requests[1]!.body);
        assert.match(sent, /Running it\./, 'the committed working message survived');
        assert.match(sent, /sleep 3/, 'the committed call survived');
        assert.match(sent, /interrupted/i, 'the orphan call got a synthetic output');
        const file = await readFile(join(home, 'sessions', `${sessionId}.jsonl`), 'utf8');
        assert.equal(file.split('\n').filter((line) => line.includes('"repaired":true')).length, 1);
      } finally {
        await provider.close();
      }
    });
  });
});
