// Storage faults: a torn last line, a full disk under a running turn, two processes on one
// session, and a session far larger than memory should hold. The file must stay readable (never a
// half line in the middle), nothing committed may be lost, and the session must resume.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, createWriteStream, readFileSync, statSync, truncateSync, unlinkSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { userMessage, type ResponseItem } from '../../src/agent/index.js';
import {
  HistoryReplay,
  JsonlSessionStore,
  newSessionId,
  parseRecordLine,
  REPLAY_SKIPPABLE_TYPES,
  type NewSessionRecord,
} from '../../src/sessions/index.js';
import { startFakeProvider, type FakeProvider, type ScriptStep } from '../../src/testing/index.js';
import { cliEnv } from '../helpers/run-cli.js';
import {
  assertAppendOnly,
  assertReplays,
  assertResumes,
  assertSentHistory,
  inProject,
  maxRssBytes,
  NIGHTLY,
  parseJsonLines,
  plainStderr,
  sessionPath,
  snapshotSession,
  startGlassbox,
  turnInProcess,
  type FaultProject,
} from './fault-helpers.js';

const FIRST_TURN: ScriptStep[] = [
  { text: 'Reading the notes.', toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
  { text: 'The notes say to remember the milk.' },
];

async function firstTurn(project: FaultProject, provider: FakeProvider): Promise<string> {
  const first = await turnInProcess({ project, wireApi: 'chat', baseURL: provider.baseURL, prompt: 'what do the notes say?' });
  assert.equal(first.terminal.type, 'run_succeeded', JSON.stringify(first.terminal));
  return first.sessionId;
}

function execArgs(project: FaultProject, provider: FakeProvider): string[] {
  return ['exec', '--json', '--base-url', provider.baseURL, '-m', 'test-model', '-C', project.root];
}

function env(project: FaultProject): NodeJS.ProcessEnv {
  return cliEnv({ OPENAI_API_KEY: 'sk-storage', GLASSBOX_HOME: project.home });
}

/** Resume in process on `provider` and return the first request the resumed turn made. */
function resumeInProcess(project: FaultProject, provider: FakeProvider, sessionId: string) {
  return async (prompt: string) => {
    const from = provider.requests.length;
    provider.push({ text: 'Resumed fine.' });
    const resumed = await turnInProcess({ project, wireApi: 'chat', baseURL: provider.baseURL, prompt, resume: sessionId });
    assert.equal(resumed.terminal.type, 'run_succeeded', JSON.stringify(resumed.terminal));
    return provider.requests[from];
  };
}

describe('storage faults: a torn last line', () => {
  test('a line cut by a crash is ignored by readers, cut off before the next append, and loses nothing committed', async () => {
    await inProject('torn last line', async (project) => {
      const provider = await startFakeProvider({ script: FIRST_TURN });
      try {
        const sessionId = await firstTurn(project, provider);
        const path = sessionPath(project, sessionId);
        const whole = readFileSync(path, 'utf8');
        // Cut the last record (turn_completed) in half: a crash in the middle of its write.
        const lastStart = whole.lastIndexOf('\n', whole.length - 2) + 1;
        truncateSync(path, Buffer.byteLength(whole.slice(0, lastStart + Math.floor((whole.length - lastStart) / 2))));
        const torn = snapshotSession(project, sessionId);
        assert.ok(torn.tornTailBytes > 0);

        const show = await startGlassbox(['sessions', 'show', sessionId], env(project)).done;
        assert.equal(show.code, 0, show.stderr);
        assert.match(show.stderr, /unfinished last line \(\d+ bytes\) ignored/);
        const store = new JsonlSessionStore(project.sessionsDir);
        const contents = await store.read(sessionId);
        assert.deepEqual(contents.problems, []);
        assert.ok(contents.tornTail !== null);

        await assertResumes(project, sessionId, resumeInProcess(project, provider, sessionId), 'torn turn_completed');
        const after = snapshotSession(project, sessionId);
        assert.ok(
          after.text.slice(torn.complete.length).startsWith('{"type":"turn_started"'),
          'the next record starts where the last whole line ended',
        );
        assert.equal(after.tornTailBytes, 0);
      } finally {
        await provider.close();
      }
    });
  });

  test('a committed item whose line was cut is dropped whole, and exec --resume goes on from the item before it', async () => {
    await inProject('torn response item', async (project) => {
      const provider = await startFakeProvider({ script: FIRST_TURN });
      try {
        const sessionId = await firstTurn(project, provider);
        const path = sessionPath(project, sessionId);
        const whole = readFileSync(path, 'utf8');
        // The crash hit while the final answer was being written: it and everything after are gone.
        const answerStart = whole.indexOf('{"type":"response_item"', whole.indexOf('final_response') - 400);
        const answerLine = whole.slice(answerStart, whole.indexOf('\n', answerStart));
        assert.match(answerLine, /final_response/);
        truncateSync(path, Buffer.byteLength(whole.slice(0, answerStart + 25)));
        const torn = snapshotSession(project, sessionId);
        assert.equal(torn.items.at(-1)?.type, 'function_call_output', 'the last whole item is the tool output');

        await assertResumes(
          project,
          sessionId,
          async (prompt) => {
            const from = provider.requests.length;
            provider.push({ text: 'Resumed through exec.' });
            const resumed = await startGlassbox([...execArgs(project, provider), '--resume', sessionId, prompt], env(project)).done;
            assert.equal(resumed.code, 0, resumed.stderr);
            return provider.requests[from];
          },
          'torn final answer',
        );
        assert.ok(snapshotSession(project, sessionId).text.slice(torn.complete.length).startsWith('{"type":"turn_started"'));
      } finally {
        await provider.close();
      }
    });
  });
});

/** Mount a tmpfs of `size` on `dir`; false when this process may not (not root, no mount). */
function mountTmpfs(dir: string, size: string): boolean {
  if (process.env.GLASSBOX_FAULTS_NO_MOUNT === '1' || process.platform !== 'linux') return false;
  const result = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir], { encoding: 'utf8' });
  return result.status === 0;
}

function unmount(dir: string): void {
  const result = spawnSync('umount', [dir], { encoding: 'utf8' });
  assert.equal(result.status, 0, `umount ${dir} failed: ${result.stderr}`);
}

/** Fill the file system under `dir` with page-sized writes until it refuses, then free `pages`. */
function fillDisk(dir: string, keepFreePages: number): string {
  const filler = join(dir, 'filler.bin');
  const page = Buffer.alloc(4096, 0x2e);
  try {
    for (;;) appendFileSync(filler, page);
  } catch (error) {
    assert.equal((error as NodeJS.ErrnoException).code, 'ENOSPC', `filling ${dir} failed with ${(error as Error).message}`);
  }
  truncateSync(filler, Math.max(0, statSync(filler).size - keepFreePages * page.length));
  return filler;
}

describe('storage faults: the disk fills up under a running turn', () => {
  test('a failed append fails the run with SESSION_WRITE_FAILED, leaves no half line in the middle, and the session resumes', async (t) => {
    const bigFile = 'a line of a large tool output that will not fit on the disk\n'.repeat(400);
    await inProject(
      'disk full',
      async (project) => {
        await mkdir(project.home, { recursive: true });
        const mounted = mountTmpfs(project.home, '1m');
        t.diagnostic(
          mounted
            ? 'ENOSPC from a 1 MiB tmpfs mounted on the Glassbox home'
            : 'no mount permitted: EFBIG from RLIMIT_FSIZE on the child instead',
        );
        const provider = await startFakeProvider({ script: FIRST_TURN });
        let failed = true;
        try {
          const sessionId = await firstTurn(project, provider);
          const beforeFault = snapshotSession(project, sessionId);
          // Room for the lock file and one more page of records; the tool output needs far more.
          const filler = mounted ? fillDisk(project.home, 2) : null;
          const limitBlocks = Math.ceil((beforeFault.text.length + 4096) / 512);
          provider.push(
            { text: 'Reading the big file.', toolCalls: [{ name: 'read_file', arguments: { path: 'big.txt' } }] },
            { text: 'This round is never reached.' },
          );
          const run = await startGlassbox([...execArgs(project, provider), '--resume', sessionId, 'read big.txt'], env(project), {
            wrapper: mounted ? undefined : ['sh', '-c', `ulimit -f ${limitBlocks} && exec "$@"`, 'sh'],
          }).done;
          assert.equal(run.code, 1, `the run should fail cleanly with exit 1:\n${run.stderr}`);
          const events = parseJsonLines(run.stdout);
          const terminal = events.at(-1);
          assert.equal(terminal?.type, 'run_failed', run.stdout.slice(-2000));
          const error = terminal?.error as { code: string; message: string };
          assert.equal(error.code, 'SESSION_WRITE_FAILED', error.message);
          assert.match(error.message, mounted ? /ENOSPC/ : /EFBIG/);
          assert.match(run.stderr, /session/);
          t.diagnostic(`exec said: ${run.stderr.trim().split('\n').at(-1)}`);
          assert.ok(
            events.some((event) => event.type === 'tool_finished'),
            'the failure came while committing the tool output',
          );

          // Readable as it is: whole records up to the failure, at most a torn tail after them.
          const afterFault = snapshotSession(project, sessionId);
          assertAppendOnly(beforeFault, afterFault);
          t.diagnostic(`torn tail after the failed write: ${afterFault.tornTailBytes} bytes`);
          await assertReplays(project, sessionId);
          assert.ok(
            !afterFault.items.some((item) => item.type === 'function_call_output' && item.output.includes('will not fit')),
            'the output that did not fit is not committed',
          );

          if (filler) unlinkSync(filler);
          await assertResumes(project, sessionId, resumeInProcess(project, provider, sessionId), 'disk full');
          const after = snapshotSession(project, sessionId);
          assert.ok(after.text.slice(afterFault.complete.length).startsWith('{"type":'), 'the torn tail was cut off before appending');
          failed = false;
        } finally {
          await provider.close();
          if (mounted) {
            // Keep the evidence: a tmpfs forgets everything on unmount.
            if (failed) cpSync(project.home, join(project.base, 'home-at-failure'), { recursive: true });
            unmount(project.home);
          }
        }
      },
      { 'notes.txt': 'remember the milk\n', 'big.txt': bigFile },
    );
  });
});

describe('storage faults: two writers on one session', () => {
  test('a second process on a session in use fails fast with SESSION_LOCKED and writes nothing', async () => {
    await inProject('concurrent writers', async (project) => {
      let releaseFirst: () => void = () => {};
      const firstMayAnswer = new Promise<void>((resolve) => (releaseFirst = resolve));
      const provider = await startFakeProvider({ script: FIRST_TURN });
      try {
        const sessionId = await firstTurn(project, provider);
        const before = snapshotSession(project, sessionId);
        // The first writer's model call waits until the second writer has come and gone.
        provider.push(async () => {
          await firstMayAnswer;
          return { text: 'The first writer finished.' };
        });
        let firstStarted: () => void = () => {};
        const started = new Promise<void>((resolve) => (firstStarted = resolve));
        const first = startGlassbox([...execArgs(project, provider), '--resume', sessionId, 'first writer'], env(project), {
          onStdout: (chunk) => {
            if (chunk.includes('"model_requested"')) firstStarted();
          },
        });
        const firstDone = first.done.finally(() => firstStarted());
        await started;

        const second = await startGlassbox([...execArgs(project, provider), '--resume', sessionId, 'second writer'], env(project)).done;
        releaseFirst();
        assert.equal(second.code, 1, second.stderr);
        assert.match(second.stderr, new RegExp(`session ${sessionId} is in use by pid ${first.child.pid}`));
        assert.equal(second.stdout, '', 'the second writer started no run');

        const firstResult = await firstDone;
        assert.equal(firstResult.code, 0, firstResult.stderr);
        const after = snapshotSession(project, sessionId);
        assertAppendOnly(before, after);
        assert.ok(!after.text.includes('second writer'), 'nothing of the second writer is in the file');
        const turnTwo = after.records.slice(before.records.length);
        const runIds = new Set(turnTwo.filter((record) => 'runId' in record).map((record) => record.runId));
        assert.equal(runIds.size, 1, 'every new record belongs to the one run');
        assert.deepEqual(
          turnTwo.map((record) => record.turn),
          turnTwo.map(() => 2),
        );
        await assertResumes(project, sessionId, resumeInProcess(project, provider, sessionId), 'concurrent writers');
      } finally {
        releaseFirst();
        await provider.close();
      }
    });
  });
});

// ---------------------------------------------------------------------------------------------
// A session far larger than it should take to read

const LARGE_SESSION_BYTES = NIGHTLY ? 1024 ** 3 : 100 * 1024 ** 2;
const TURNS_PER_COMPACTION = 4;
const TS = '2025-06-01T09:00:00.000Z';

function usage(input: number, output: number) {
  return { inputTokens: input, cachedInputTokens: null, outputTokens: output, reasoningTokens: 0, totalTokens: input + output, raw: null };
}

/**
 * The records of one long-running turn: a large tool output (what makes real sessions big),
 * audit and model-call records, and every few turns a summary compaction, as a long session
 * has. Replay then holds only the recent history, however long the file.
 */
function turnRecords(turn: number, outputChars: number): NewSessionRecord[] {
  const callId = `call_${turn}`;
  const runId = `run-${turn}`;
  const records: NewSessionRecord[] = [
    {
      type: 'turn_started',
      turn,
      runId,
      prompt: `turn ${turn}: read log ${turn}`,
      policy: { approvalPolicy: 'on-request', sandbox: 'read-only' },
      model: 'test-model',
      wireApi: 'chat',
    },
  ];
  if (turn === 1)
    records.push({ type: 'response_item', turn, item: { type: 'message', role: 'system', content: 'You are a test agent.' } });
  records.push(
    { type: 'response_item', turn, item: userMessage(`turn ${turn}: read log ${turn}`) },
    { type: 'model_call', turn, round: 1, stage: 'turn', usage: usage(900, 30), durationMs: 120, finishReason: 'tool_calls', error: null },
    { type: 'response_item', turn, item: { type: 'function_call', callId, name: 'read_file', arguments: `{"path":"logs/${turn}.log"}` } },
    {
      type: 'audit',
      turn,
      event: {
        type: 'tool_permission_decided',
        callId,
        name: 'read_file',
        decision: 'allow',
        reason: 'reads inside the project root',
        rule: 'read-inside-root',
      },
    },
    { type: 'audit', turn, event: { type: 'tool_started', callId, name: 'read_file' } },
    { type: 'audit', turn, event: { type: 'tool_finished', callId, name: 'read_file', isError: false, durationMs: 3 } },
    {
      type: 'response_item',
      turn,
      item: {
        type: 'function_call_output',
        callId,
        name: 'read_file',
        output: `log ${turn}: ${'0123456789abcdef'.repeat(Math.ceil(outputChars / 16))}`,
        isError: false,
      },
    },
    { type: 'model_call', turn, round: 2, stage: 'turn', usage: usage(5000, 20), durationMs: 90, finishReason: 'stop', error: null },
    {
      type: 'response_item',
      turn,
      item: { type: 'message', role: 'assistant', content: `Log ${turn} looks fine.`, runtimeRole: 'final_response' },
    },
    { type: 'turn_completed', turn, runId, usage: { total: usage(5900, 50), byStage: { turn: usage(5900, 50) }, calls: 2 }, rounds: 2 },
  );
  if (turn % TURNS_PER_COMPACTION === 0) {
    records.push({
      type: 'compaction',
      turn,
      kind: 'summary',
      compactionId: `compaction-${turn}`,
      trigger: 'auto',
      phase: 'pre_turn',
      tokensBefore: 30_000,
      tokensAfter: 400,
      itemsRemoved: 20,
      itemsKept: 3,
      reason: 'the context passed the threshold',
      estimated: false,
      summary: `Up to turn ${turn} every log looked fine.`,
      userBudgetTokens: 200,
    });
  }
  return records;
}

function lineOf(record: NewSessionRecord): string {
  const { type, ...fields } = record;
  return `${JSON.stringify({ type, ts: TS, ...fields })}\n`;
}

function assertReadable(line: string): void {
  const parsed = parseRecordLine(line.trim());
  assert.equal(parsed.kind, 'record', `the generator wrote a record this version cannot read: ${line.slice(0, 300)}`);
}

/** Write a valid session of about `bytes` bytes without holding it in memory. */
async function writeLargeSession(project: FaultProject, bytes: number): Promise<{ sessionId: string; size: number; turns: number }> {
  const sessionId = newSessionId();
  await mkdir(project.sessionsDir, { recursive: true });
  const path = sessionPath(project, sessionId);
  const out = createWriteStream(path, { highWaterMark: 1024 * 1024 });
  const write = (text: string) => (out.write(text) ? Promise.resolve() : new Promise<void>((resolve) => out.once('drain', resolve)));
  const meta = {
    type: 'session_meta',
    ts: TS,
    formatVersion: 1,
    sessionId,
    createdAt: TS,
    cwd: project.root,
    model: 'test-model',
    wireApi: 'chat',
    parent: null,
    glassboxVersion: '0.1.0',
  };
  const metaLine = `${JSON.stringify(meta)}\n`;
  assert.equal(parseRecordLine(metaLine.trim()).kind, 'record');
  // Sample turns are validated record by record; the rest only differ in numbers.
  for (const sample of [1, TURNS_PER_COMPACTION]) turnRecords(sample, 100).map(lineOf).forEach(assertReadable);
  await write(metaLine);
  let size = metaLine.length;
  let turn = 0;
  while (size < bytes) {
    turn += 1;
    const chunk = turnRecords(turn, 16_000).map(lineOf).join('');
    size += chunk.length;
    await write(chunk);
  }
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
  return { sessionId, size: statSync(path).size, turns: turn };
}

interface Measured {
  list: number;
  show: number;
  resume: number;
}

/** Peak RSS of `sessions`, `sessions show` and `exec --resume` on the session, each in its own child. */
async function measureCommands(project: FaultProject, sessionId: string, expectedTurns: number): Promise<Measured> {
  const list = await startGlassbox(['sessions', '--json'], env(project), { measureRss: true }).done;
  assert.equal(list.code, 0, plainStderr(list));
  const summaries = JSON.parse(list.stdout) as Array<{ sessionId: string; turns: number }>;
  assert.deepEqual(
    summaries.map((summary) => [summary.sessionId, summary.turns]),
    [[sessionId, expectedTurns]],
  );

  const show = await startGlassbox(['sessions', 'show', sessionId], env(project), { measureRss: true, keepStdout: false }).done;
  assert.equal(show.code, 0, plainStderr(show));
  assert.equal(plainStderr(show), '', 'show reported problems');

  // What replay must give, worked out in this process by streaming the file too.
  const replay = new HistoryReplay();
  await new JsonlSessionStore(project.sessionsDir).scan(sessionId, (record) => replay.add(record), { skipTypes: REPLAY_SKIPPABLE_TYPES });
  const history: ResponseItem[] = replay.finish().history;
  const provider = await startFakeProvider({ script: [{ text: 'Still here after all those turns.' }] });
  try {
    const prompt = 'one more turn on a long session';
    const resume = await startGlassbox([...execArgs(project, provider), '--resume', sessionId, prompt], env(project), { measureRss: true })
      .done;
    assert.equal(resume.code, 0, plainStderr(resume));
    assertSentHistory(provider.requests[0], history, prompt, 'resume of the large session');
    return { list: maxRssBytes(list), show: maxRssBytes(show), resume: maxRssBytes(resume) };
  } finally {
    await provider.close();
  }
}

const MiB = 1024 * 1024;

describe(`storage faults: a ${NIGHTLY ? '1 GiB' : '100 MiB'} session is streamed, not loaded whole`, () => {
  test('listing, showing and resuming it take far less memory than the file holds', async (t) => {
    await inProject('large session', async (project) => {
      const small = await writeLargeSession(project, 256 * 1024);
      const baseline = await measureCommands(project, small.sessionId, small.turns);
      await rm(project.sessionsDir, { recursive: true, force: true });

      const large = await writeLargeSession(project, LARGE_SESSION_BYTES);
      const measured = await measureCommands(project, large.sessionId, large.turns);
      const growth = {
        list: measured.list - baseline.list,
        show: measured.show - baseline.show,
        resume: measured.resume - baseline.resume,
      };
      t.diagnostic(
        `file ${(large.size / MiB).toFixed(0)} MiB, ${large.turns} turns; peak RSS (MiB) list ${(measured.list / MiB).toFixed(0)}, show ${(measured.show / MiB).toFixed(0)}, resume ${(measured.resume / MiB).toFixed(0)}; over a ${(small.size / 1024).toFixed(0)} KiB session: list +${(growth.list / MiB).toFixed(0)}, show +${(growth.show / MiB).toFixed(0)}, resume +${(growth.resume / MiB).toFixed(0)}`,
      );
      // Loading the file whole costs at least its size again (as a Buffer, and again as a
      // string); streaming costs a working set that does not grow with the file.
      const bound = Math.min(large.size / 2, 64 * MiB);
      for (const [command, bytes] of Object.entries(growth)) {
        assert.ok(
          bytes < bound,
          `${command} grew ${(bytes / MiB).toFixed(0)} MiB over the small session (bound ${(bound / MiB).toFixed(0)} MiB) on a ${(large.size / MiB).toFixed(0)} MiB file`,
        );
      }
    });
  });
});
