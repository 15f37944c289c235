// What a user waits for around tool calls, as whole processes against the raw SDK loop doing the
// same work on the same fake provider, in the same run:
// - a 20-round shell loop (`glassbox exec`, default sandbox and danger-full-access): wall time,
//   peak RSS, the first shell round and the median later round;
// - the first round of each other tool (read_file, grep, glob, apply_patch), whose first call may
//   load something (a grammar, ripgrep's location, the editing code) that later calls reuse.
// A round's latency is the time between the provider receiving one request and the next. Runs are
// interleaved (glassbox, raw, glassbox, raw…) so a loaded machine skews both alike.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeProvider, type FakeProvider } from '../../src/testing/index.js';
import { median, withRatio, type BenchRow } from '../bench-table.js';
import { BENCH_CALLS, makeProject, toolCallScript, type ScriptedCall } from '../bench-workload.js';
import { REPO_ROOT, compileForChild, runChild, type ChildResult } from '../child-process.js';

const quick = process.env.GLASSBOX_BENCH_QUICK === '1';
const REPEATS = quick ? 3 : 5;
const ROUNDS = 20;
/** First-round runs: two tool rounds and a final answer (the second round is the "later" one). */
const SHORT_ROUNDS = 3;
const MAX_PEAK_RSS_MIB = 110;
/** A real model's time to answer, for the first-round rows that measure what overlaps it. */
const MODEL_LATENCY_MS = 400;
const BIN = join(REPO_ROOT, 'bin', 'glassbox.js');

interface RunSample {
  ms: number;
  peakRssMiB: number | null;
  /** Intervals between consecutive requests: index 0 is the first tool round. */
  rounds: number[];
}

async function sample(
  provider: FakeProvider,
  run: () => Promise<ChildResult>,
  expectedRequests: number,
  latencyMs = 0,
): Promise<RunSample> {
  const before = provider.requests.length;
  const result = await run();
  if (result.code !== 0) throw new Error(`bench child exited ${result.code}: ${result.stderr.slice(0, 2000)}`);
  const requests = provider.requests.slice(before);
  if (requests.length !== expectedRequests)
    throw new Error(`bench child made ${requests.length} requests, expected ${expectedRequests}: ${result.stderr.slice(0, 2000)}`);
  // Every call must have worked: a tool that fails fast (a grammar that did not load…) is no result.
  const outputs = ((requests.at(-1)!.body as { messages?: Array<{ role: string; content: unknown }> }).messages ?? []).filter(
    (m) => m.role === 'tool',
  );
  const failed = outputs.find((m) => typeof m.content !== 'string' || /^(Error \[|error:)/.test(m.content));
  if (outputs.length !== expectedRequests - 1 || failed)
    throw new Error(`bench child's tool calls failed: ${JSON.stringify(failed ?? outputs.length).slice(0, 500)}`);
  // With a scripted model latency, what the harness adds is the interval less that wait.
  const rounds = requests.slice(1).map((request, i) => request.receivedAt - requests[i]!.receivedAt - latencyMs);
  return { ms: result.ms, peakRssMiB: result.peakRssKb === null ? null : result.peakRssKb / 1024, rounds };
}

function summary(samples: RunSample[]): { ms: number; rss: number | null; first: number; later: number } {
  const rss = samples.every((s) => s.peakRssMiB !== null) ? median(samples.map((s) => s.peakRssMiB!)) : null;
  return {
    ms: median(samples.map((s) => s.ms)),
    rss,
    first: median(samples.map((s) => s.rounds[0]!)),
    later: median(samples.map((s) => median(s.rounds.slice(1)))),
  };
}

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const work = mkdtempSync(join(tmpdir(), 'glassbox-bench-tools-'));
  const home = join(work, 'home');
  const rawScript = await compileForChild(join(REPO_ROOT, 'bench', 'raw-sdk-loop.ts'));
  const env = { OPENAI_API_KEY: 'bench', GLASSBOX_HOME: home };
  try {
    // A fresh project per run: apply_patch adds files, and no run may see another's leftovers.
    let projects = 0;
    const freshProject = (): string => {
      const dir = join(work, `project-${(projects += 1)}`);
      makeProject(dir);
      return dir;
    };
    const measure = async (
      callFor: (done: number) => ScriptedCall,
      rounds: number,
      sandboxes: string[],
      latencyMs = 0,
    ): Promise<{ glassbox: RunSample[][]; raw: RunSample[] }> => {
      const script = toolCallScript(rounds, callFor);
      const provider = await startFakeProvider({
        whenExhausted: latencyMs === 0 ? script : (request) => ({ ...script(request), delayMs: latencyMs }),
      });
      try {
        const glassbox: RunSample[][] = sandboxes.map(() => []);
        const raw: RunSample[] = [];
        for (let i = 0; i < REPEATS; i += 1) {
          for (const [index, sandbox] of sandboxes.entries()) {
            const project = freshProject();
            const args = [BIN, 'exec', '--base-url', provider.baseURL, '-m', 'bench', '-C', project, '--sandbox', sandbox, 'bench'];
            glassbox[index]!.push(
              await sample(provider, () => runChild(process.execPath, args, { env, measureUsage: true }), rounds, latencyMs),
            );
          }
          const project = freshProject();
          raw.push(
            await sample(
              provider,
              () => runChild(process.execPath, [rawScript, provider.baseURL, project], { env, measureUsage: true }),
              rounds,
              latencyMs,
            ),
          );
        }
        return { glassbox, raw };
      } finally {
        await provider.close();
      }
    };

    // The 20-round shell loop, in the default sandbox (bubblewrap when it works here) and without one.
    const sandboxes = ['read-only', 'danger-full-access'];
    const shell = await measure(BENCH_CALLS.shell!, ROUNDS, sandboxes);
    const raw = summary(shell.raw);
    for (const [index, sandbox] of sandboxes.entries()) {
      const ours = summary(shell.glassbox[index]!);
      const label = sandbox === 'read-only' ? 'default sandbox' : sandbox;
      rows.push(
        withRatio(
          {
            group: 'shell loop',
            name: `whole process, ${ROUNDS} shell rounds (${label})`,
            value: ours.ms,
            unit: 'ms',
            baseline: { name: 'raw SDK loop process', value: raw.ms },
          },
          1.5,
        ),
      );
      rows.push(
        withRatio(
          {
            group: 'shell loop',
            name: `first shell round (${label})`,
            value: ours.first,
            unit: 'ms',
            baseline: { name: 'raw loop first round', value: raw.first },
          },
          3,
        ),
      );
      rows.push(
        withRatio({
          group: 'shell loop',
          name: `later shell rounds, median (${label})`,
          value: ours.later,
          unit: 'ms',
          baseline: { name: 'raw loop later rounds', value: raw.later },
        }),
      );
      if (ours.rss !== null && raw.rss !== null) {
        const row = withRatio({
          group: 'shell loop',
          name: `peak RSS (${label})`,
          value: Math.round(ours.rss),
          unit: 'MiB',
          baseline: { name: 'raw SDK loop process', value: Math.round(raw.rss) },
        });
        rows.push({ ...row, target: `≤ ${MAX_PEAK_RSS_MIB} MiB`, met: ours.rss <= MAX_PEAK_RSS_MIB });
      }
    }

    // The first shell round as it is with a real model, whose answer takes a while: what the
    // harness can do while the first request is in flight (load the bash grammar, compile the
    // secret matcher) is then off the round. The model's wait is subtracted from every interval.
    const slow = await measure(BENCH_CALLS.shell!, SHORT_ROUNDS, sandboxes, MODEL_LATENCY_MS);
    const slowRaw = summary(slow.raw);
    for (const [index, sandbox] of sandboxes.entries()) {
      const ours = summary(slow.glassbox[index]!);
      rows.push(
        withRatio(
          {
            group: 'shell loop',
            name: `first shell round, model answering in ${MODEL_LATENCY_MS} ms (${sandbox === 'read-only' ? 'default sandbox' : sandbox})`,
            value: ours.first,
            unit: 'ms',
            baseline: { name: 'raw loop first round, same model', value: slowRaw.first },
            note: 'the model latency subtracted',
          },
          2,
        ),
      );
    }

    // The first round of each other tool (workspace-write, so apply_patch runs without asking).
    for (const name of ['read_file', 'grep', 'glob', 'apply_patch']) {
      const result = await measure(BENCH_CALLS[name]!, SHORT_ROUNDS, ['workspace-write']);
      const ours = summary(result.glassbox[0]!);
      const base = summary(result.raw);
      rows.push(
        withRatio(
          {
            group: 'first tool round',
            name: `first ${name} round`,
            value: ours.first,
            unit: 'ms',
            baseline: { name: 'raw loop first round', value: base.first },
            note: `second round ${ours.later.toFixed(0)} ms, raw ${base.later.toFixed(0)} ms`,
          },
          3,
        ),
      );
      // With a real model's latency, the first request's warm-ups (grammar, classifier, sandbox
      // probe) run while it answers instead of landing in the first round: what a user waits for.
      const slowTool = await measure(BENCH_CALLS[name]!, SHORT_ROUNDS, ['workspace-write'], MODEL_LATENCY_MS);
      rows.push(
        withRatio(
          {
            group: 'first tool round',
            name: `first ${name} round, model answering in ${MODEL_LATENCY_MS} ms`,
            value: summary(slowTool.glassbox[0]!).first,
            unit: 'ms',
            baseline: { name: 'raw loop first round, same model', value: summary(slowTool.raw).first },
            note: 'the model latency subtracted',
          },
          2,
        ),
      );
    }
    return rows;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
