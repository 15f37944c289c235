// Loop overhead: a 20-round tool loop through Glassbox (sessions, permissions, events, real
// read_file) against the minimal raw-SDK loop, on the same fake provider and script, in the same
// run. Measured in-process (per-round cost without start-up) and as whole processes (with peak RSS).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApprovalRegistry } from '../../src/agent/index.js';
import { createGateway } from '../../src/model/index.js';
import { openRunner, runTurn } from '../../src/runner/index.js';
import { startFakeProvider } from '../../src/testing/index.js';
import { median, withRatio, type BenchRow } from '../bench-table.js';
import { makeProject, toolRoundsScript } from '../bench-workload.js';
import { REPO_ROOT, compileForChild, runChild } from '../child-process.js';
import { rawSdkLoop } from '../raw-sdk-loop.js';

const ROUNDS = 20;
const quick = process.env.GLASSBOX_BENCH_QUICK === '1';
const REPEATS = quick ? 3 : 7;

export async function run(): Promise<BenchRow[]> {
  const work = mkdtempSync(join(tmpdir(), 'glassbox-bench-loop-'));
  const project = join(work, 'project');
  const home = join(work, 'home');
  makeProject(project);
  const provider = await startFakeProvider({ whenExhausted: toolRoundsScript(ROUNDS) });
  try {
    const gateway = createGateway({ wireApi: 'chat', baseURL: provider.baseURL, apiKey: 'bench' });
    const runner = await openRunner({
      root: project,
      home,
      model: 'bench',
      wireApi: 'chat',
      gateway,
      sandbox: 'read-only',
      approvalPolicy: 'on-request',
      network: false,
    });
    const glassboxOnce = async (): Promise<number> => {
      const started = performance.now();
      const result = await runTurn(runner, {
        prompt: 'read the files',
        runId: `bench-${Math.random()}`,
        signal: new AbortController().signal,
        approvals: new ApprovalRegistry(),
      });
      if (result.terminal.type !== 'run_succeeded' || result.terminal.rounds !== ROUNDS) {
        throw new Error(`glassbox bench run did not do ${ROUNDS} rounds: ${JSON.stringify(result.terminal).slice(0, 300)}`);
      }
      return performance.now() - started;
    };
    const rawOnce = async (): Promise<number> => {
      const started = performance.now();
      const rounds = await rawSdkLoop(provider.baseURL, project, 'read the files');
      if (rounds !== ROUNDS) throw new Error(`raw loop did ${rounds} rounds`);
      return performance.now() - started;
    };
    await glassboxOnce();
    await rawOnce(); // warm both paths (JIT, tokenizer-free)
    const glassboxTimes: number[] = [];
    const rawTimes: number[] = [];
    for (let i = 0; i < REPEATS; i += 1) {
      glassboxTimes.push(await glassboxOnce());
      rawTimes.push(await rawOnce());
    }
    const glassboxPerRound = median(glassboxTimes) / ROUNDS;
    const rawPerRound = median(rawTimes) / ROUNDS;
    const rows: BenchRow[] = [
      withRatio(
        {
          group: 'loop',
          name: `per round, in-process (${ROUNDS}-round tool loop)`,
          value: glassboxPerRound,
          unit: 'ms',
          baseline: { name: 'raw openai SDK loop', value: rawPerRound },
        },
        1.5,
      ),
      { group: 'loop', name: 'overhead per round, in-process', value: glassboxPerRound - rawPerRound, unit: 'ms' },
    ];

    const env = { OPENAI_API_KEY: 'bench', GLASSBOX_HOME: home };
    const glassboxChild = await runChild(
      process.execPath,
      [join(REPO_ROOT, 'bin', 'glassbox.js'), 'exec', '--base-url', provider.baseURL, '-m', 'bench', '-C', project, 'read the files'],
      { env, measureUsage: true },
    );
    if (glassboxChild.code !== 0) throw new Error(`glassbox exec failed: ${glassboxChild.stderr}`);
    const rawScript = await compileForChild(join(REPO_ROOT, 'bench', 'raw-sdk-loop.ts'));
    const rawChild = await runChild(process.execPath, [rawScript, provider.baseURL, project], { env, measureUsage: true });
    if (rawChild.code !== 0) throw new Error(`raw loop failed: ${rawChild.stderr}`);
    rows.push(
      withRatio({
        group: 'loop',
        name: `whole process, ${ROUNDS} rounds (glassbox exec)`,
        value: glassboxChild.ms,
        unit: 'ms',
        baseline: { name: 'raw SDK loop process', value: rawChild.ms },
      }),
    );
    if (glassboxChild.peakRssKb && rawChild.peakRssKb) {
      rows.push(
        withRatio({
          group: 'loop',
          name: 'peak RSS (glassbox exec)',
          value: Math.round(glassboxChild.peakRssKb / 1024),
          unit: 'MiB',
          baseline: { name: 'raw SDK loop process', value: Math.round(rawChild.peakRssKb / 1024) },
        }),
      );
    }
    return rows;
  } finally {
    await provider.close();
    rmSync(work, { recursive: true, force: true });
  }
}
