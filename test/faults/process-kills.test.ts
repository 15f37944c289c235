// Kill `glassbox exec` (the compiled CLI, in a child process) with SIGKILL or SIGINT at seeded
// pseudo-random points of a six-round tool run, then `--resume` it. Whatever the point: every
// record that was in the file is still there, the history replays in order, each call left
// without an output gets exactly one synthetic output right after its batch, nothing is doubled
// or dropped, and the resumed run succeeds having sent exactly that history. SIGINT additionally
// ends with exit 130, a `run_cancelled` event and a `turn_cancelled` record, and leaves no orphan.
//
// GLASSBOX_FAULTS_SEED=<n> replays a seed; GLASSBOX_FAULTS_NIGHTLY=1 runs 200 kill points.

import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { WireApi } from '../../src/model/index.js';
import { JsonlSessionStore } from '../../src/sessions/index.js';
import { startFakeProvider, type CapturedRequest, type FakeProvider, type ScriptStep } from '../../src/testing/index.js';
import { cliEnv } from '../helpers/run-cli.js';
import { assertRepairedOnce } from '../helpers/session-checks.js';
import {
  annotate,
  assertReplays,
  assertSentHistory,
  expectedHistory,
  inProject,
  NIGHTLY,
  orphanCallIds,
  parseJsonLines,
  SeededRandom,
  sessionIds,
  snapshotSession,
  startGlassbox,
  suiteSeed,
  turnInProcess,
  WIRE_APIS_UNDER_TEST,
  type FaultProject,
} from './fault-helpers.js';

const SEED = suiteSeed(20_251_129);
const KILL_POINTS = NIGHTLY ? 200 : 52;
const CONCURRENCY = 4;
/** Every n-th pair of points (one per wire API) resumes in process instead of by `exec --resume`. */
const RESUME_IN_PROCESS_EVERY = 4;

const PROMPT = 'look around, run the slow commands, write the result and report';
const RESUME_PROMPT = 'carry on from where you were stopped';

/** Six rounds: parallel reads, a slow command, a write, a search, another slow command, an answer. */
function sixRounds(): ScriptStep[] {
  const slow = { chunkSize: 4, chunkDelayMs: 6 };
  return [
    {
      ...slow,
      text: 'Round one: looking around the project.',
      toolCalls: [
        { name: 'list_dir', arguments: { path: '.' } },
        { name: 'read_file', arguments: { path: 'notes.txt' } },
      ],
    },
    { ...slow, text: 'Round two: a slow command.', toolCalls: [{ name: 'shell', arguments: { command: 'sleep 0.15; echo slept' } }] },
    { ...slow, toolCalls: [{ name: 'write_file', arguments: { path: 'out/result.txt', content: 'milk\nbread\n' } }] },
    {
      ...slow,
      text: 'Round four: searching.',
      toolCalls: [
        { name: 'grep', arguments: { pattern: 'milk' } },
        { name: 'read_file', arguments: { path: 'out/result.txt' } },
      ],
    },
    { ...slow, delayMs: 40, toolCalls: [{ name: 'shell', arguments: { command: 'sleep 0.1; cat notes.txt' } }] },
    { ...slow, delayMs: 80, text: 'All done: the notes say milk and bread, and out/result.txt holds both.' },
  ];
}

type Signal = 'SIGKILL' | 'SIGINT';

interface KillPoint {
  index: number;
  wireApi: WireApi;
  signal: Signal;
  /** Kill when this share of the calibrated run has passed (time) or this share of its events arrived (event). */
  trigger: 'time' | 'event';
  fraction: number;
  /** Mostly `exec --resume`; a few resume in this process, through the runner the server uses too. */
  resumeWith: 'exec' | 'in-process';
}

interface Calibration {
  /** ms from `run_started` to the terminal event, as the child reported them to us. */
  runMs: number;
  /** Events of an uninterrupted run. */
  events: number;
}

function killPlan(seed: number): KillPoint[] {
  const random = new SeededRandom(seed);
  return Array.from({ length: KILL_POINTS }, (_, index) => ({
    index,
    wireApi: WIRE_APIS_UNDER_TEST[index % WIRE_APIS_UNDER_TEST.length]!,
    signal: random.next() < 0.6 ? 'SIGKILL' : 'SIGINT',
    trigger: random.next() < 0.5 ? 'time' : 'event',
    fraction: random.next(),
    resumeWith: Math.floor(index / 2) % RESUME_IN_PROCESS_EVERY === 1 ? 'in-process' : 'exec',
  }));
}

function describePoint(point: KillPoint): string {
  return `#${point.index} ${point.signal} at ${Math.round(point.fraction * 100)}% of the run by ${point.trigger}, resumed ${point.resumeWith === 'exec' ? 'by exec --resume' : 'in process'} (${point.wireApi})`;
}

function execArgs(provider: FakeProvider, project: FaultProject, wireApi: WireApi): string[] {
  return [
    'exec',
    '--json',
    '--wire-api',
    wireApi,
    '--base-url',
    provider.baseURL,
    '-m',
    'test-model',
    '-C',
    project.root,
    '--sandbox',
    'danger-full-access',
    '--approval-policy',
    'never',
  ];
}

const TERMINAL = new Set(['run_succeeded', 'run_failed', 'run_cancelled']);

interface Interrupted {
  code: number | null;
  signal: NodeJS.Signals | null;
  events: Array<Record<string, unknown>>;
  /** The run had already ended when the signal was sent (the child may have been faster this time). */
  endedBeforeSignal: boolean;
  stderr: string;
}

/** Start the six-round run and deliver `point`'s signal at its moment. */
async function interruptRun(project: FaultProject, point: KillPoint, calibration: Calibration): Promise<Interrupted> {
  const provider = await startFakeProvider({ script: sixRounds() });
  try {
    const env = cliEnv({ OPENAI_API_KEY: 'sk-kill', GLASSBOX_HOME: project.home });
    let buffered = '';
    let eventCount = 0;
    let ended = false;
    let sent = false;
    let endedBeforeSignal = false;
    let timer: NodeJS.Timeout | null = null;
    const targetEvent = Math.max(1, Math.round(point.fraction * (calibration.events - 3)));
    const run = startGlassbox([...execArgs(provider, project, point.wireApi), PROMPT], env, {
      onStdout: (chunk) => {
        buffered += chunk;
        let newline: number;
        while ((newline = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, newline);
          buffered = buffered.slice(newline + 1);
          eventCount += 1;
          const type = (JSON.parse(line) as { type: string }).type;
          if (TERMINAL.has(type)) ended = true;
          if (type === 'run_started' && point.trigger === 'time') {
            // SIGINT is kept inside the run, where its handler is certain to be installed.
            const share = point.signal === 'SIGINT' ? point.fraction * 0.85 : point.fraction;
            timer = setTimeout(signal, Math.round(share * calibration.runMs));
          }
          if (point.trigger === 'event' && eventCount === targetEvent) signal();
        }
      },
    });
    function signal(): void {
      if (sent) return;
      sent = true;
      endedBeforeSignal = ended;
      run.child.kill(point.signal);
    }
    const result = await run.done;
    if (timer) clearTimeout(timer);
    assert.ok(sent || result.code === 0, `the child ended (code ${result.code}) before it could be signalled:\n${result.stderr}`);
    return { code: result.code, signal: result.signal, events: parseJsonLines(result.stdout), endedBeforeSignal, stderr: result.stderr };
  } finally {
    await provider.close();
  }
}

interface Resumed {
  ok: boolean;
  failure: string;
  events: Array<Record<string, unknown>>;
  requests: CapturedRequest[];
}

/**
 * Resume the session for one more turn, through `glassbox exec --resume` or (cheaper, same runner
 * and store) in this process. A fresh provider answers, so steps the killed run never used cannot
 * leak into the resumed turn.
 */
async function resumeRun(project: FaultProject, sessionId: string, point: KillPoint): Promise<Resumed> {
  const provider = await startFakeProvider({ script: [{ text: 'Resumed: picking up after the interruption.' }] });
  try {
    if (point.resumeWith === 'exec') {
      const env = cliEnv({ OPENAI_API_KEY: 'sk-kill', GLASSBOX_HOME: project.home });
      const result = await startGlassbox([...execArgs(provider, project, point.wireApi), '--resume', sessionId, RESUME_PROMPT], env).done;
      return {
        ok: result.code === 0,
        failure: `exit ${result.code}: ${result.stderr}`,
        events: parseJsonLines(result.stdout),
        requests: [...provider.requests],
      };
    }
    const turn = await turnInProcess({
      project,
      wireApi: point.wireApi,
      baseURL: provider.baseURL,
      prompt: RESUME_PROMPT,
      resume: sessionId,
    });
    const events = turn.events.map((event) => ({ ...event }) as Record<string, unknown>);
    return { ok: turn.terminal.type === 'run_succeeded', failure: JSON.stringify(turn.terminal), events, requests: [...provider.requests] };
  } finally {
    await provider.close();
  }
}

function lastTurnEnd(records: Array<Record<string, unknown> & { type: string }>): string | null {
  const ends = records.filter(
    (record) => record.type === 'turn_completed' || record.type === 'turn_failed' || record.type === 'turn_cancelled',
  );
  return ends.at(-1)?.type ?? null;
}

/** Everything a kill point must satisfy, from the interrupted run to the resumed one. */
async function checkKillPoint(project: FaultProject, point: KillPoint, calibration: Calibration): Promise<string> {
  const interrupted = await interruptRun(project, point, calibration);
  const ids = sessionIds(project);
  assert.equal(ids.length, 1, `one session expected, found ${ids.length}; stderr:\n${interrupted.stderr}`);
  const sessionId = ids[0]!;
  const before = snapshotSession(project, sessionId);
  const lastEvent = interrupted.events.at(-1)?.type;
  let outcome: string;

  if (interrupted.code === 0 || lastEvent === 'run_succeeded') {
    // The run beat the signal: it must have ended cleanly and completely.
    assert.equal(lastEvent, 'run_succeeded', interrupted.stderr);
    assert.equal(lastTurnEnd(before.records), 'turn_completed');
    outcome = 'finished first';
  } else if (point.signal === 'SIGINT') {
    assert.ok(!interrupted.endedBeforeSignal);
    assert.equal(interrupted.code, 130, `SIGINT must exit 130 (signal ${interrupted.signal}); stderr:\n${interrupted.stderr}`);
    assert.equal(lastEvent, 'run_cancelled', `the last event was ${lastEvent}`);
    assert.equal(lastTurnEnd(before.records), 'turn_cancelled');
    assert.deepEqual(orphanCallIds(before.items), [], 'a cancelled run answers every call it made');
    assert.equal(before.tornTailBytes, 0);
    outcome = 'cancelled';
  } else {
    assert.equal(interrupted.signal, 'SIGKILL', `code ${interrupted.code}; stderr:\n${interrupted.stderr}`);
    outcome = 'killed';
  }
  const orphans = orphanCallIds(before.items);
  if (orphans.length > 0) outcome += ` with ${orphans.length} orphan${orphans.length > 1 ? 's' : ''}`;

  const expected = expectedHistory(before.items, before.repairs);
  const resumed = await resumeRun(project, sessionId, point);
  assert.ok(resumed.ok, `the resumed run failed: ${resumed.failure}`);
  assert.equal(resumed.events[0]?.resumed, true);
  assert.equal(resumed.events.at(-1)?.type, 'run_succeeded');
  assertSentHistory(resumed.requests[0], expected, RESUME_PROMPT, 'the resumed request');

  const after = snapshotSession(project, sessionId);
  // Only appended to; right after the old records one repair per orphan, in call order, then the
  // new turn; a second resume finds nothing left to repair and leaves the file as it is.
  const store = new JsonlSessionStore(project.sessionsDir);
  const read = async () => snapshotSession(project, sessionId).text;
  const turn = await assertRepairedOnce(store, sessionId, before, after, read);
  assert.equal(turn[0]?.type, 'turn_started');
  const history = await assertReplays(project, sessionId);
  assert.deepEqual(history.slice(0, expected.length), expected, 'the replayed history starts with the pre-kill history');
  return outcome;
}

/** Outcome label → how many kill points had it, for the coverage check. */
const outcomes = new Map<string, number>();

describe(`process kills: SIGKILL/SIGINT of glassbox exec at ${KILL_POINTS} seeded points (seed ${SEED})`, {
  concurrency: CONCURRENCY,
}, () => {
  const calibrations = new Map<WireApi, Calibration>();

  before(async () => {
    // One uninterrupted run per wire API: it must succeed, and it sizes the kill points.
    for (const wireApi of WIRE_APIS_UNDER_TEST) {
      await inProject(`calibration run (${wireApi})`, async (project) => {
        const provider = await startFakeProvider({ script: sixRounds() });
        try {
          let startedAt = 0;
          let endedAt = 0;
          const run = startGlassbox(
            [...execArgs(provider, project, wireApi), PROMPT],
            cliEnv({ OPENAI_API_KEY: 'sk-kill', GLASSBOX_HOME: project.home }),
            {
              onStdout: (chunk) => {
                if (startedAt === 0 && chunk.includes('"run_started"')) startedAt = performance.now();
                if (chunk.includes('"run_succeeded"')) endedAt = performance.now();
              },
            },
          );
          const result = await run.done;
          assert.equal(result.code, 0, result.stderr);
          const events = parseJsonLines(result.stdout);
          assert.equal(events.at(-1)?.type, 'run_succeeded');
          assert.equal(events.filter((event) => event.type === 'tool_finished').length, 7);
          assert.equal(provider.remaining(), 0);
          calibrations.set(wireApi, { runMs: Math.max(1, endedAt - startedAt), events: events.length });
        } finally {
          await provider.close();
        }
      });
    }
  });

  for (const point of killPlan(SEED)) {
    test(describePoint(point), async (t) => {
      const calibration = calibrations.get(point.wireApi);
      assert.ok(calibration, 'calibration did not run');
      try {
        const outcome = await inProject(describePoint(point), (project) => checkKillPoint(project, point, calibration));
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
        t.diagnostic(outcome);
      } catch (error) {
        throw annotate(error, `seed ${SEED} (rerun with GLASSBOX_FAULTS_SEED=${SEED})`);
      }
    });
  }
});

// A suite of its own so it runs after every kill point has finished.
describe('process kills: coverage', () => {
  test('the kill points covered kills, cancels and orphan repairs', (t) => {
    const summary = [...outcomes].map(([outcome, count]) => `${count}× ${outcome}`).join(', ');
    t.diagnostic(summary);
    const count = (pattern: RegExp) => [...outcomes].filter(([outcome]) => pattern.test(outcome)).reduce((sum, [, n]) => sum + n, 0);
    assert.equal(
      [...outcomes.values()].reduce((sum, n) => sum + n, 0),
      KILL_POINTS,
      `not every kill point passed: ${summary}`,
    );
    assert.ok(count(/^killed/) > 0, `no SIGKILL landed inside a run: ${summary}`);
    assert.ok(count(/^cancelled/) > 0, `no SIGINT landed inside a run: ${summary}`);
    assert.ok(count(/orphan/) > 0, `no kill left an orphan call to repair: ${summary}`);
  });
});
