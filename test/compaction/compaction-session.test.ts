import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Command } from 'commander';
import { COMPACTION_SUMMARY_PREFIX, NO_APPROVER, type RunEvent } from '../../src/agent/index.js';
import { registerCompactCommand } from '../../src/cli/compact-command.js';
import { CompactionConfigError } from '../../src/compaction/index.js';
import { createGateway, type WireApi } from '../../src/model/index.js';
import { compactSession, openRunner, runTurn, type Runner, type RunnerSettings } from '../../src/runner/index.js';
import { JsonlSessionStore, replaySession, type SessionRecord } from '../../src/sessions/index.js';
import { startFakeProvider, type CapturedRequest, type FakeProvider, type ScriptStep, type ScriptedTurn } from '../../src/testing/index.js';
import { WIRE_APIS_UNDER_TEST } from '../helpers/loop-harness.js';
import { withTempDir } from '../helpers/temp-dir.js';
import {
  FAST_RETRY,
  bigOutputTool,
  isSummaryRequest,
  scriptedWithSummaries,
  sentMessages,
  summaryRequests,
  turnRequests,
} from './compaction-harness.js';

const readBig = (label: string) => ({ name: 'read_big', arguments: { label } });

interface World {
  root: string;
  home: string;
  provider: FakeProvider;
  open(settings?: Partial<RunnerSettings>): Promise<Runner>;
  turn(runner: Runner, prompt: string, resume: string | null): Promise<{ events: RunEvent[]; sessionId: string; terminal: string }>;
  records(sessionId: string): Promise<SessionRecord[]>;
}

async function withWorld(wireApi: WireApi, script: ScriptStep, run: (world: World) => Promise<void>): Promise<void> {
  await withTempDir(async (dir) => {
    const root = join(dir, 'project');
    const home = join(dir, 'home');
    await mkdir(root);
    await mkdir(home);
    await writeFile(join(root, 'README.md'), '# project\n');
    const provider = await startFakeProvider({ whenExhausted: script });
    try {
      const gateway = createGateway({ wireApi, baseURL: provider.baseURL, apiKey: 'k', retry: FAST_RETRY });
      const world: World = {
        root,
        home,
        provider,
        open: (settings = {}) =>
          openRunner({
            root,
            home,
            model: 'acme-model',
            wireApi,
            gateway,
            sandbox: 'read-only',
            approvalPolicy: 'on-request',
            network: false,
            tools: [bigOutputTool(8_000)],
            compactAt: '8000',
            compactionTuning: { retryBaseDelayMs: 1, summaryAttempts: 1 },
            ...settings,
          }),
        async turn(runner, prompt, resume) {
          const events: RunEvent[] = [];
          const result = await runTurn(runner, {
            prompt,
            resume,
            runId: `run-${prompt}`,
            signal: new AbortController().signal,
            approvals: NO_APPROVER,
            onEvent: (event) => events.push(event),
          });
          return { events, sessionId: result.sessionId, terminal: result.terminal.type };
        },
        records: async (sessionId) => (await new JsonlSessionStore(join(home, 'sessions')).read(sessionId)).records,
      };
      await run(world);
    } finally {
      await provider.close();
    }
  });
}

/** Answers turn requests from a queue that tests fill per turn, and summary requests with `summary`. */
function queue(
  summary: (request: CapturedRequest) => ScriptedTurn = () => ({ text: '## Goal\nThe summary.', usage: { input: 400, output: 30 } }),
) {
  const turns: ScriptedTurn[] = [];
  const step = scriptedWithSummaries(turns, summary);
  return { turns, step };
}

for (const wireApi of WIRE_APIS_UNDER_TEST) {
  describe(`compaction across sessions (${wireApi})`, () => {
    test('Persistence and Replay: resume after a mid-turn compaction sends the compacted history, exactly what the live run held', async () => {
      const script = queue();
      await withWorld(wireApi, script.step, async (world) => {
        await writeFile(join(world.home, 'config.json'), JSON.stringify({ compaction: { instructions: 'Always list ticket numbers.' } }));
        const runner = await world.open();
        script.turns.push(
          { toolCalls: [readBig('a')], usage: { input: 1000, output: 10 } },
          { toolCalls: [readBig('b')], usage: { input: 9000, output: 10 } },
          { text: 'Done one.', usage: { input: 700, output: 3 } },
        );
        const first = await world.turn(runner, 'first prompt', null);
        assert.equal(first.terminal, 'run_succeeded');
        // An unknown model: a warning with the assumed window, shown in the run and kept in the file.
        const warning = first.events.find((event) => event.type === 'warning');
        assert.equal(warning && warning.type === 'warning' && warning.code, 'UNKNOWN_MODEL_WINDOW');
        const [summaryRequest] = summaryRequests(world.provider);
        assert.ok(summaryRequest);
        assert.match(summaryRequest.rawBody, /Additional instructions for this summary[^"]*\\n- Always list ticket numbers\./);

        const records = await world.records(first.sessionId);
        const items = records.filter((record) => record.type === 'response_item');
        // Append-only: every call and output is still in the file, and only one record was added.
        assert.equal(items.filter((record) => record.type === 'response_item' && record.item.type === 'function_call_output').length, 2);
        const compactions = records.filter((record) => record.type === 'compaction');
        assert.equal(compactions.length, 1);
        const [record] = compactions;
        assert.ok(record);
        assert.equal(record.type === 'compaction' && record.kind, 'summary');
        assert.equal(record.type === 'compaction' && record.phase, 'mid_turn');
        assert.equal(record.turn, 1);
        assert.ok(records.some((entry) => entry.type === 'model_call' && entry.stage === 'compaction'));
        assert.ok(records.some((entry) => entry.type === 'warning' && entry.code === 'UNKNOWN_MODEL_WINDOW'));
        const end = records.find((entry) => entry.type === 'turn_completed');
        assert.equal(end && end.type === 'turn_completed' && end.usage.byStage.compaction?.inputTokens, 400);
        const compactedEvent = first.events.find((event) => event.type === 'history_compacted');
        assert.ok(compactedEvent && compactedEvent.type === 'history_compacted');
        assert.equal(record.type === 'compaction' && record.compactionId, compactedEvent.compactionId);

        const lastOfTurnOne = turnRequests(world.provider).at(-1)!;
        script.turns.push({ text: 'Done two.', usage: { input: 800, output: 3 } });
        const second = await world.turn(runner, 'second prompt', 'last');
        assert.equal(second.terminal, 'run_succeeded');
        assert.equal(second.sessionId, first.sessionId);
        const resumedRequest = turnRequests(world.provider).at(-1)!;
        const sent = sentMessages(resumedRequest);
        assert.deepEqual(
          sent.map((message) => message.kind),
          ['system', 'user', 'assistant', 'user'],
        );
        assert.ok(sent[1]!.text.startsWith(COMPACTION_SUMMARY_PREFIX));
        assert.equal(
          sent.some((message) => message.kind === 'function_call_output'),
          false,
          'the discarded transcript does not come back',
        );
        // Regression: what the resumed turn sends is what the live run held, plus the new items.
        assert.deepEqual(sent, [
          ...sentMessages(lastOfTurnOne),
          { kind: 'assistant', text: 'Done one.' },
          { kind: 'user', text: 'second prompt' },
        ]);
        assert.equal(replaySession(await world.records(first.sessionId)).history.length, 6);
      });
    });

    test('Check points: a resumed session already over the threshold compacts before sending', async () => {
      const script = queue();
      await withWorld(wireApi, script.step, async (world) => {
        const plain = await world.open({ compaction: null });
        script.turns.push(...['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((label) => ({ toolCalls: [readBig(label)] })), {
          text: 'Big turn done.',
        });
        const first = await world.turn(plain, 'first prompt', null);
        assert.equal(first.terminal, 'run_succeeded');
        assert.equal(summaryRequests(world.provider).length, 0);

        // The cheap pass would do here (every output is in one old turn); this is about the summary.
        const compacting = await world.open({
          compactionTuning: { retryBaseDelayMs: 1, summaryAttempts: 1, pruneMinimumTokens: 1_000_000 },
        });
        const before = world.provider.requests.length;
        script.turns.push({ text: 'Small now.' });
        const second = await world.turn(compacting, 'second prompt', 'last');
        assert.equal(second.terminal, 'run_succeeded');
        const newRequests = world.provider.requests.slice(before);
        assert.deepEqual(newRequests.map(isSummaryRequest), [true, false], 'the summary comes before the first request of the turn');
        const sent = sentMessages(newRequests[1]!);
        assert.deepEqual(
          sent.map((message) => message.kind),
          ['system', 'user'],
        );
        const compacted = second.events.find((event) => event.type === 'history_compacted');
        assert.ok(compacted && compacted.type === 'history_compacted');
        assert.equal(compacted.phase, 'pre_turn');
        assert.equal(compacted.estimated, true);
      });
    });
  });
}

describe('manual compaction', () => {
  test('compactSession compacts a stored session (trigger manual), and the next turn starts from the summary', async () => {
    const script = queue();
    await withWorld('chat', script.step, async (world) => {
      const runner = await world.open({ compaction: null });
      script.turns.push({ toolCalls: [readBig('a')] }, { text: 'Done.' });
      const first = await world.turn(runner, 'first prompt', null);
      const event = await compactSession({ runner, sessionId: first.sessionId, instructions: 'Mention the README.' });
      assert.equal(event.type, 'history_compacted');
      assert.equal(event.trigger, 'manual');
      assert.equal(event.phase, 'manual');
      assert.equal(event.summary, '## Goal\nThe summary.');
      assert.match(summaryRequests(world.provider)[0]!.rawBody, /- Mention the README\./);
      const records = await world.records(first.sessionId);
      const compaction = records.filter((record) => record.type === 'compaction');
      assert.equal(compaction.length, 1);
      assert.equal(compaction[0]!.turn, 1);
      assert.ok(records.some((record) => record.type === 'model_call' && record.stage === 'compaction' && record.round === 0));
      assert.deepEqual(
        replaySession(records).history.map((item) => item.type),
        ['message', 'compaction_summary', 'message'],
      );

      script.turns.push({ text: 'Continuing.' });
      await world.turn(runner, 'next', 'last');
      const sent = sentMessages(turnRequests(world.provider).at(-1)!);
      assert.deepEqual(
        sent.map((message) => message.kind),
        ['system', 'user'],
      );
    });
  });

  test('`glassbox compact <session> --instructions` goes through the same function', async () => {
    const script = queue();
    await withWorld('responses', script.step, async (world) => {
      const runner = await world.open({ compaction: null });
      script.turns.push({ toolCalls: [readBig('a')] }, { text: 'Done.' });
      const first = await world.turn(runner, 'first prompt', null);
      let stdout = '';
      let stderr = '';
      const program = new Command('glassbox').exitOverride();
      registerCompactCommand(program, { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
      const previousExitCode = process.exitCode;
      try {
        await program.parseAsync(
          [
            'compact',
            'last',
            '--home',
            world.home,
            '-C',
            world.root,
            '--base-url',
            world.provider.baseURL,
            '--wire-api',
            'responses',
            '-m',
            'gpt-4o',
            '--instructions',
            'Keep ABC-1.',
            '--json',
          ],
          { from: 'user' },
        );
        assert.equal(process.exitCode, 0);
      } finally {
        process.exitCode = previousExitCode;
      }
      const event = JSON.parse(stdout) as Record<string, unknown>;
      assert.equal(event.type, 'history_compacted');
      assert.equal(event.trigger, 'manual');
      assert.equal(stderr, '');
      assert.match(summaryRequests(world.provider)[0]!.rawBody, /- Keep ABC-1\./);
      assert.equal((await world.records(first.sessionId)).filter((record) => record.type === 'compaction').length, 1);
    });
  });

  test('`glassbox compact` prints the summary with its control sequences shown, never obeyed', async () => {
    const hostile = '## Goal\nThe summary \x1b]52;c;ZXZpbA==\x07\x1b]0;title\x07\x1b[2J\x9b2J done.';
    const script = queue(() => ({ text: hostile, usage: { input: 400, output: 30 } }));
    await withWorld('chat', script.step, async (world) => {
      const runner = await world.open({ compaction: null });
      const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
      for (const json of [false, true]) {
        // A turn with something to compact, each time (the second resumes the first's session).
        script.turns.push({ toolCalls: [readBig(`a${json}`)] }, { text: 'Done.' });
        await world.turn(runner, `prompt ${json}`, json ? 'last' : null);
        let stdout = '';
        let stderr = '';
        const program = new Command('glassbox').exitOverride();
        registerCompactCommand(program, { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
        const previousExitCode = process.exitCode;
        try {
          const args = ['compact', 'last', '--home', world.home, '-C', world.root, '--base-url', world.provider.baseURL, '-m', 'gpt-4o'];
          await program.parseAsync(json ? [...args, '--json'] : args, { from: 'user' });
          assert.equal(process.exitCode, 0);
        } finally {
          process.exitCode = previousExitCode;
        }
        assert.ok(!CONTROL.test(stdout), JSON.stringify(stdout));
        assert.ok(!CONTROL.test(stderr), JSON.stringify(stderr));
        if (json) assert.equal((JSON.parse(stdout) as { summary: string }).summary, hostile, 'the JSON is the same value');
        else assert.ok(stdout.includes('The summary \\e]52;c;ZXZpbA==\\u0007'), stdout);
      }
    });
  });
});

describe('breaker across turns', () => {
  test('a tripped breaker stays tripped when the session is resumed, until a manual compaction re-arms it', async () => {
    let failing = true;
    const script = queue(() =>
      failing ? { fault: { kind: 'status', status: 400, message: 'no summaries' } } : { text: '## Goal\nFinally.' },
    );
    await withWorld('chat', script.step, async (world) => {
      const runner = await world.open({ compactAt: '1000' });
      script.turns.push(...Array.from({ length: 5 }, (_, n) => ({ toolCalls: [readBig(`r${n}`)], usage: { input: 5000, output: 5 } })), {
        text: 'Done.',
        usage: { input: 5000, output: 5 },
      });
      const first = await world.turn(runner, 'first', null);
      assert.equal(first.terminal, 'run_succeeded');
      // Three failed episodes, each the live form and then the transcript form.
      assert.equal(summaryRequests(world.provider).length, 6);
      assert.equal(replaySession(await world.records(first.sessionId)).autoCompactionDisabled, true);

      script.turns.push(
        { toolCalls: [readBig('again')], usage: { input: 5000, output: 5 } },
        { text: 'Done again.', usage: { input: 5000, output: 5 } },
      );
      const second = await world.turn(runner, 'second', 'last');
      assert.equal(second.terminal, 'run_succeeded');
      assert.equal(summaryRequests(world.provider).length, 6, 'no more attempts in the next turn');
      assert.ok(second.events.some((event) => event.type === 'warning' && event.code === 'COMPACTION_DISABLED'));

      failing = false;
      await compactSession({ runner, sessionId: first.sessionId });
      assert.equal(replaySession(await world.records(first.sessionId)).autoCompactionDisabled, false);
    });
  });
});

test('junk --compact-at is a usage error before any model call, and no session is started', async () => {
  await withTempDir(async (dir) => {
    const provider = await startFakeProvider({ whenExhausted: { text: 'never asked' } });
    try {
      const runner = await openRunner({
        root: dir,
        home: dir,
        model: 'gpt-4o',
        wireApi: 'chat',
        gateway: createGateway({ wireApi: 'chat', baseURL: provider.baseURL, apiKey: 'k' }),
        sandbox: 'read-only',
        approvalPolicy: 'on-request',
        network: false,
        tools: [],
        compactAt: 'soonish',
      });
      const isUsageError = (error: unknown) =>
        error instanceof CompactionConfigError && error.exitCode === 2 && /--compact-at "soonish"/.test(error.message);
      await assert.rejects(
        runTurn(runner, { prompt: 'hi', runId: 'r', signal: new AbortController().signal, approvals: NO_APPROVER }),
        isUsageError,
      );
      await assert.rejects(compactSession({ runner, sessionId: 'last' }), isUsageError);
      assert.equal(provider.requests.length, 0);
      assert.deepEqual((await runner.store.list()).sessions, []);
    } finally {
      await provider.close();
    }
  });
});
