// History-size curve (issue 30): what one round costs as the conversation grows, Glassbox against
// the raw SDK loop on the same scripted provider. One long turn per loop reads a ~48 KB file each
// round (just under read_file's 50 KB cap), so the request body grows by ~50 KB a round up to
// ~10 MB; a round is the time from one request's arrival at the provider to the next one's, which
// holds everything a loop does between two model calls (parse the stream, run the tool, record,
// build and send the next body). Rounds are placed by the body size the provider received, so the
// two loops are compared at the same history size, not the same round number. Compaction is off:
// this measures the loop, not the compactor. Then the peak RSS of whole processes through the
// same turn, Glassbox's `exec` against the raw loop's.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApprovalRegistry } from '../../src/agent/index.js';
import { createGateway } from '../../src/model/index.js';
import { openRunner, runTurn } from '../../src/runner/index.js';
import { type CapturedRequest, type ScriptedTurn, startFakeProvider } from '../../src/testing/index.js';
import { median, withRatio, type BenchRow } from '../bench-table.js';
import { REPO_ROOT, compileForChild, runChild } from '../child-process.js';
import { rawSdkLoop } from '../raw-sdk-loop.js';

const quick = process.env.GLASSBOX_BENCH_QUICK === '1';
const TARGET_BYTES = quick ? 2.5e6 : 10.5e6;
/** History sizes reported, in bytes of request body. */
const POINTS_MB = quick ? [0.1, 1, 2] : [0.1, 1, 5, 10];
/**
 * One file per round up to the largest history (10.5 MB at ~50 KB a round): the same read made
 * five times with the same answer is a loop the run stops (the repetition guard).
 */
const FILES = 240;
const REPEATS = quick ? 1 : 2;
const WARM_UP_BYTES = 0.5e6;
const WARM_ROUNDS = 3;

interface RoundSample {
  /** Request body size, bytes. */
  bytes: number;
  /** Time until the next request arrived, ms. */
  ms: number;
  /** CPU time of the process (loop and provider) in that interval, ms: less at the mercy of a busy machine. */
  cpuMs: number;
}

function makeProject(dir: string): void {
  mkdirSync(join(dir, 'data'), { recursive: true });
  for (let i = 0; i < FILES; i += 1) {
    // Varied text so no layer can get away with compressing or interning it; ASCII like most code.
    const lines = Array.from(
      { length: 560 },
      (_, n) => `// ${i}:${n} ${'abcdefghij'.repeat(7).slice((n * 7 + i) % 10)} value=${(n * 2654435761) % 99991}`,
    );
    writeFileSync(join(dir, 'data', `chunk-${i}.txt`), `${lines.join('\n')}\n`);
  }
}

/**
 * A script that reads one chunk per round until the body passes `target` bytes, then answers. It
 * timestamps every request and drops the captured copies (10 MB bodies, hundreds of them).
 */
function curveScript(samples: RoundSample[], requests: CapturedRequest[], target: number): (request: CapturedRequest) => ScriptedTurn {
  let last: { at: number; cpu: number; bytes: number } | null = null;
  let round = 0;
  return (request) => {
    const now = performance.now();
    const usage = process.cpuUsage();
    const cpu = (usage.user + usage.system) / 1000;
    const bytes = request.rawBody.length;
    // The first rounds of a run carry one-off work (session file, lazy loads) that the
    // first-round rows measure; this curve is about growth.
    if (last !== null && round > WARM_ROUNDS) samples.push({ bytes: last.bytes, ms: now - last.at, cpuMs: cpu - last.cpu });
    last = { at: now, cpu, bytes };
    requests.length = 0;
    round += 1;
    if (bytes >= target) return { text: 'Done.', usage: { input: 1000, output: 5 } };
    return {
      text: '',
      toolCalls: [{ name: 'read_file', arguments: { path: `data/chunk-${round % FILES}.txt` } }],
      usage: { input: 1000, output: 20 },
    };
  };
}

/** Median round time of the samples whose history is nearest `mb` (the 7 nearest). */
function at(samples: RoundSample[], mb: number, measure: 'ms' | 'cpuMs'): number {
  const nearest = [...samples].sort((a, b) => Math.abs(a.bytes - mb * 1e6) - Math.abs(b.bytes - mb * 1e6)).slice(0, 7);
  return median(nearest.map((sample) => sample[measure]));
}

/** Least-squares slope of round time against history, in ms per 100 KB. */
function slope(samples: RoundSample[], measure: 'ms' | 'cpuMs'): number {
  const n = samples.length;
  const xs = samples.map((sample) => sample.bytes / 1e5);
  const ys = samples.map((sample) => sample[measure]);
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i += 1) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

export async function run(): Promise<BenchRow[]> {
  const work = mkdtempSync(join(tmpdir(), 'glassbox-bench-curve-'));
  const project = join(work, 'project');
  makeProject(project);
  const glassbox: RoundSample[] = [];
  const raw: RoundSample[] = [];
  let rssRows: BenchRow[] = [];
  try {
    // Repeat 0 is a short warm-up of both loops (JIT, lazy loads, the grammar), not measured.
    for (let repeat = 0; repeat <= REPEATS; repeat += 1) {
      const target = repeat === 0 ? WARM_UP_BYTES : TARGET_BYTES;
      const into = (samples: RoundSample[]): RoundSample[] => (repeat === 0 ? [] : samples);
      // Interleaved, each on a fresh provider, so drift on a shared machine lands on both.
      {
        let script: ((request: CapturedRequest) => ScriptedTurn) | null = null;
        const stepper = await startFakeProvider({ whenExhausted: (request) => (script as (r: CapturedRequest) => ScriptedTurn)(request) });
        script = curveScript(into(glassbox), stepper.requests, target);
        try {
          const runner = await openRunner({
            root: project,
            home: join(work, `home-${repeat}`),
            model: 'bench',
            wireApi: 'chat',
            gateway: createGateway({ wireApi: 'chat', baseURL: stepper.baseURL, apiKey: 'bench' }),
            sandbox: 'read-only',
            approvalPolicy: 'on-request',
            network: false,
            compaction: null,
          });
          const result = await runTurn(runner, {
            prompt: 'read every chunk',
            runId: `curve-${repeat}`,
            signal: new AbortController().signal,
            approvals: new ApprovalRegistry(),
          });
          if (result.terminal.type !== 'run_succeeded') {
            throw new Error(`history curve: glassbox run ended ${JSON.stringify(result.terminal).slice(0, 300)}`);
          }
        } finally {
          await stepper.close();
        }
      }
      {
        let script: ((request: CapturedRequest) => ScriptedTurn) | null = null;
        const provider = await startFakeProvider({ whenExhausted: (request) => (script as (r: CapturedRequest) => ScriptedTurn)(request) });
        script = curveScript(into(raw), provider.requests, target);
        try {
          await rawSdkLoop(provider.baseURL, project, 'read every chunk');
        } finally {
          await provider.close();
        }
      }
    }
    rssRows = await peakRss(project);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const rows: BenchRow[] = [];
  const baseline = 'raw openai SDK loop';
  for (const [measure, what] of [
    ['ms', 'one round'],
    ['cpuMs', 'CPU of one round'],
  ] as const) {
    for (const mb of POINTS_MB) {
      rows.push(
        withRatio(
          {
            group: 'history',
            name: `${what} at ${mb} MB of history (read_file, ~50 KB a round)`,
            value: at(glassbox, mb, measure),
            unit: 'ms',
            baseline: { name: baseline, value: at(raw, mb, measure) },
          },
          1.2,
        ),
      );
    }
    rows.push(
      withRatio(
        {
          group: 'history',
          name: `slope: ${what} per 100 KB of history (least squares)`,
          value: slope(glassbox, measure),
          unit: 'ms',
          baseline: { name: baseline, value: slope(raw, measure) },
        },
        1.0,
      ),
    );
  }
  rows.push(...rssRows);
  return rows;
}

/**
 * Peak RSS of whole processes through the same growing turn: `glassbox exec` (full access, so the
 * loop and not the sandbox is measured) against the raw SDK loop's process, each up to the
 * largest history. What outlives its round shows here as memory beyond the raw loop's.
 */
async function peakRss(project: string): Promise<BenchRow[]> {
  const work = mkdtempSync(join(tmpdir(), 'glassbox-bench-rss-'));
  const rawScript = await compileForChild(join(REPO_ROOT, 'bench', 'raw-sdk-loop.ts'));
  const env = { OPENAI_API_KEY: 'bench', GLASSBOX_HOME: join(work, 'home') };
  const ours: number[] = [];
  const theirs: number[] = [];
  try {
    for (let repeat = 0; repeat < REPEATS; repeat += 1) {
      for (const [samples, args] of [
        [ours, [join(REPO_ROOT, 'bin', 'glassbox.js'), 'exec', '--sandbox', 'danger-full-access', '-m', 'bench', '-C', project]],
        [theirs, [rawScript]],
      ] as const) {
        let script: ((request: CapturedRequest) => ScriptedTurn) | null = null;
        const provider = await startFakeProvider({ whenExhausted: (request) => (script as (r: CapturedRequest) => ScriptedTurn)(request) });
        script = curveScript([], provider.requests, TARGET_BYTES);
        try {
          const command =
            samples === ours ? [...args, '--base-url', provider.baseURL, 'read every chunk'] : [...args, provider.baseURL, project];
          const result = await runChild(process.execPath, command, { env, measureUsage: true });
          if (result.code !== 0 || result.peakRssKb === null)
            throw new Error(`history RSS: ${command[0]} exited ${result.code}: ${result.stderr.slice(0, 500)}`);
          samples.push(result.peakRssKb / 1024);
        } finally {
          await provider.close();
        }
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const value = median(ours);
  return [
    withRatio(
      {
        group: 'history',
        name: `peak RSS of a process through ${(TARGET_BYTES / 1e6).toFixed(1)} MB of history (exec, full access)`,
        value,
        unit: 'MiB',
        baseline: { name: 'raw SDK loop process', value: median(theirs) },
      },
      1.1,
    ),
  ];
}
