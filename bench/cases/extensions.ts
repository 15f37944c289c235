// What MCP and tracing cost when they are not configured (issue 16: "start-up and per-round cost
// unchanged"), and what an unreachable collector costs when tracing is on:
// - which MCP / OpenTelemetry modules `glassbox exec` loads with neither configured (a loader hook
//   lists every module; tracing switched on in the same run proves the hook sees them);
// - the per-turn check that decides "neither configured" (two small config reads), in-process,
//   against the per-round time of the loop it sits in;
// - a whole 20-round `exec` with OTEL_EXPORTER_OTLP_ENDPOINT pointing at a closed port, against
//   the same run with tracing off (interleaved).

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareRunExtensions } from '../../src/runner/run-extensions.js';
import { startFakeProvider } from '../../src/testing/index.js';
import { median, withRatio, type BenchRow } from '../bench-table.js';
import { makeProject, toolRoundsScript } from '../bench-workload.js';
import { REPO_ROOT, runChild } from '../child-process.js';

const ROUNDS = 20;
const quick = process.env.GLASSBOX_BENCH_QUICK === '1';
const REPEATS = quick ? 3 : 7;
const BIN = join(REPO_ROOT, 'bin', 'glassbox.js');
const MODULE_TRACE = join(REPO_ROOT, 'bench', 'module-trace.mjs');
// Port 9 (discard) on loopback: nothing listens, so every export is refused.
const UNREACHABLE_COLLECTOR = 'http://127.0.0.1:9';
const EXTENSION_PACKAGES = /node_modules\/@(opentelemetry|modelcontextprotocol)\//;

export async function run(): Promise<BenchRow[]> {
  const work = mkdtempSync(join(tmpdir(), 'glassbox-bench-extensions-'));
  const project = join(work, 'project');
  const home = join(work, 'home');
  makeProject(project);
  const provider = await startFakeProvider({ whenExhausted: toolRoundsScript(ROUNDS) });
  const rows: BenchRow[] = [];
  try {
    const exec = async (env: NodeJS.ProcessEnv): Promise<number> => {
      const result = await runChild(
        process.execPath,
        [BIN, 'exec', '--base-url', provider.baseURL, '-m', 'bench', '-C', project, 'read the files'],
        { env: { OPENAI_API_KEY: 'bench', GLASSBOX_HOME: home, ...env } },
      );
      if (result.code !== 0) throw new Error(`glassbox exec failed (${result.code}): ${result.stderr}`);
      return result.ms;
    };

    const modulesLoaded = async (env: NodeJS.ProcessEnv): Promise<string[]> => {
      const file = join(work, `modules-${Math.random().toString(36).slice(2)}`);
      writeFileSync(file, '');
      await exec({ ...env, NODE_OPTIONS: `--import ${MODULE_TRACE}`, GLASSBOX_BENCH_MODULES_FILE: file });
      return readFileSync(file, 'utf8').split('\n').filter(Boolean);
    };
    const off = await modulesLoaded({});
    const traced = await modulesLoaded({ OTEL_EXPORTER_OTLP_ENDPOINT: UNREACHABLE_COLLECTOR });
    const offCount = off.filter((url) => EXTENSION_PACKAGES.test(url)).length;
    const tracedCount = traced.filter((url) => EXTENSION_PACKAGES.test(url)).length;
    rows.push({
      group: 'extensions',
      name: 'MCP / OpenTelemetry modules loaded by exec, neither configured',
      value: offCount,
      unit: 'modules',
      note: `${off.length} modules in all; ${tracedCount} such modules with tracing on, which shows the count can see them`,
      target: '0',
      // A hook that saw nothing would report 0 either way; the traced run keeps the row honest.
      met: offCount === 0 && tracedCount > 0,
    });

    // The per-turn decision with nothing configured, against one round of the loop it sits in.
    const settings = { root: project, home, mcp: true, telemetry: null, version: 'bench' };
    for (let i = 0; i < 50; i += 1) await prepareRunExtensions(settings);
    const checks = 500;
    const started = performance.now();
    for (let i = 0; i < checks; i += 1) {
      const extensions = await prepareRunExtensions(settings);
      await extensions.start(new AbortController().signal);
      await extensions.close();
    }
    const perTurn = (performance.now() - started) / checks;
    rows.push({
      group: 'extensions',
      name: 'per turn: deciding that neither MCP nor tracing is configured (in-process)',
      value: perTurn,
      unit: 'ms',
      note: 'paid once per turn, not per round',
    });

    const offTimes: number[] = [];
    const unreachableTimes: number[] = [];
    await exec({});
    for (let i = 0; i < REPEATS; i += 1) {
      offTimes.push(await exec({}));
      unreachableTimes.push(await exec({ OTEL_EXPORTER_OTLP_ENDPOINT: UNREACHABLE_COLLECTOR }));
    }
    rows.push(
      withRatio(
        {
          group: 'extensions',
          name: `whole exec, ${ROUNDS} rounds, tracing to an unreachable collector`,
          value: median(unreachableTimes),
          unit: 'ms',
          baseline: { name: 'tracing off', value: median(offTimes) },
          note: 'the OpenTelemetry SDK is loaded and the export is refused',
        },
        1.3,
      ),
    );
    return rows;
  } finally {
    await provider.close();
    rmSync(work, { recursive: true, force: true });
  }
}
