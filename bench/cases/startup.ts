// Cold start: `--version` and `--help` against bare `node -e 0`; start → first model request and
// the first request's size, against a raw SDK script doing the same single request. Runs of the
// commands compared are interleaved.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeProvider } from '../../src/testing/index.js';
import { median, withRatio, type BenchRow } from '../bench-table.js';
import { REPO_ROOT, compileForChild, runChild } from '../child-process.js';
import { timeToOutput } from '../first-paint.js';

const quick = process.env.GLASSBOX_BENCH_QUICK === '1';
const RUNS = quick ? 5 : 15;
const BIN = join(REPO_ROOT, 'bin', 'glassbox.js');

async function timeInterleaved(commands: string[][]): Promise<number[]> {
  const times: number[][] = commands.map(() => []);
  for (let i = 0; i < RUNS; i += 1) {
    for (const [index, args] of commands.entries()) {
      const result = await runChild(process.execPath, args);
      if (result.code !== 0) throw new Error(`${args.join(' ')} exited ${result.code}: ${result.stderr}`);
      times[index]!.push(result.ms);
    }
  }
  return times.map((samples) => median(samples));
}

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  // Interleaved, so a machine that gets busier half-way skews every command alike.
  const [nodeBare = 0, version = 0, help = 0] = await timeInterleaved([
    ['-e', '0'],
    [BIN, '--version'],
    [BIN, '--help'],
  ]);
  rows.push(
    withRatio(
      { group: 'startup', name: 'glassbox --version', value: version, unit: 'ms', baseline: { name: 'node -e 0', value: nodeBare } },
      1.2,
    ),
  );
  rows.push(
    withRatio({ group: 'startup', name: 'glassbox --help', value: help, unit: 'ms', baseline: { name: 'node -e 0', value: nodeBare } }),
  );

  // Start → first request: the time from spawning the process to the provider receiving a request.
  const provider = await startFakeProvider({ whenExhausted: { text: 'ok', usage: { input: 10, output: 1 } } });
  const home = mkdtempSync(join(tmpdir(), 'glassbox-bench-home-'));
  try {
    const firstRequest = async (args: string[], env: NodeJS.ProcessEnv): Promise<number> => {
      const before = provider.requests.length;
      const spawnedAt = Date.now();
      const result = await runChild(process.execPath, args, { env });
      if (result.code !== 0) throw new Error(`${args.join(' ')} exited ${result.code}: ${result.stderr}`);
      const request = provider.requests[before];
      if (request === undefined) throw new Error(`${args.join(' ')} sent no model request`);
      return request.receivedAt - spawnedAt;
    };
    const env = { OPENAI_API_KEY: 'bench', GLASSBOX_HOME: home };
    // Time to first paint of the interactive session (the editor and its hint, which bin/glassbox.js
    // paints before the CLI loads), and to the session's own frame (its status line names the
    // model and the session: the CLI, the gateway and ink are loaded), interleaved with `node -e`
    // writing a word through the same pseudo-terminal.
    const shell = (words: string[]) => words.map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(' ');
    const paintSamples: number[] = [];
    const readySamples: number[] = [];
    const nodeSamples: number[] = [];
    const chat = shell([process.execPath, BIN, '--base-url', provider.baseURL, '-m', 'bench']);
    for (let i = 0; i < RUNS; i += 1) {
      paintSamples.push(await timeToOutput(chat, 'Enter send', { ...env, TERM: 'xterm-256color' }, REPO_ROOT));
      readySamples.push(await timeToOutput(chat, 'new session', { ...env, TERM: 'xterm-256color' }, REPO_ROOT));
      nodeSamples.push(await timeToOutput(shell([process.execPath, '-e', 'process.stdout.write("painted")']), 'painted', env, REPO_ROOT));
    }
    const nodePaint = { name: 'node -e writing a word, in a pty', value: median(nodeSamples) };
    rows.push(
      withRatio(
        {
          group: 'startup',
          name: 'time to first paint (glassbox, in a pty: editor and hint)',
          value: median(paintSamples),
          unit: 'ms',
          baseline: nodePaint,
        },
        1.5,
      ),
    );
    rows.push(
      withRatio({
        group: 'startup',
        name: "time to the session's own frame (glassbox, in a pty: model and session named)",
        value: median(readySamples),
        unit: 'ms',
        baseline: nodePaint,
      }),
    );

    const rawScript = await compileForChild(join(REPO_ROOT, 'bench', 'raw-sdk-loop.ts'));
    const glassboxSamples: number[] = [];
    const rawSamples: number[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      glassboxSamples.push(
        await firstRequest([BIN, 'exec', '--base-url', provider.baseURL, '-m', 'bench', '-C', REPO_ROOT, 'say ok'], env),
      );
      rawSamples.push(await firstRequest([rawScript, provider.baseURL, REPO_ROOT], env));
    }
    const glassbox = median(glassboxSamples);
    const raw = median(rawSamples);
    rows.push(
      withRatio(
        {
          group: 'startup',
          name: 'start → first request (glassbox exec)',
          value: glassbox,
          unit: 'ms',
          baseline: { name: 'raw SDK loop process', value: raw },
        },
        1.3,
      ),
    );

    // CPU of a whole one-answer `exec` process (every thread: V8's background compilers included),
    // against the raw SDK script's; interleaved. Re-compiling undici's WebAssembly HTTP parser with
    // the optimising compiler once cost ~150 ms of it (docs/benchmarks.md, "Start-up").
    const cpuOf = async (args: string[]): Promise<number> => {
      const child = await runChild(process.execPath, args, { env, measureUsage: true });
      if (child.code !== 0 || child.cpuMs === null) throw new Error(`${args.join(' ')} exited ${child.code}: ${child.stderr}`);
      return child.cpuMs;
    };
    const glassboxCpu: number[] = [];
    const rawCpu: number[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      glassboxCpu.push(await cpuOf([BIN, 'exec', '--base-url', provider.baseURL, '-m', 'bench', '-C', REPO_ROOT, 'say ok']));
      rawCpu.push(await cpuOf([rawScript, provider.baseURL, REPO_ROOT]));
    }
    rows.push(
      withRatio({
        group: 'startup',
        name: 'CPU of a one-answer exec process',
        value: median(glassboxCpu),
        unit: 'ms',
        baseline: { name: 'raw SDK loop process', value: median(rawCpu) },
      }),
    );

    const before = provider.requests.length;
    const result = await runChild(
      process.execPath,
      [BIN, 'exec', '--base-url', provider.baseURL, '-m', 'bench', '-C', REPO_ROOT, 'say ok'],
      { env },
    );
    if (result.code !== 0) throw new Error(result.stderr);
    const first = provider.requests[before];
    if (first === undefined) throw new Error('glassbox exec sent no model request');
    const body = first.body as { messages: Array<{ role: string; content: string }>; tools: unknown[] };
    const instructions = body.messages.find((m) => m.role === 'system')?.content ?? '';
    const toolsBytes = Buffer.byteLength(JSON.stringify(body.tools ?? []));
    // The environment block (cwd, git status, listing) and AGENTS.md depend on the project; the
    // target is about what Glassbox itself adds, so they are reported separately.
    const staticPart = instructions.split('<environment>')[0]!;
    const environmentBytes = Buffer.byteLength(instructions) - Buffer.byteLength(staticPart);
    const instructionBytes = Buffer.byteLength(staticPart);
    rows.push({ group: 'first request', name: 'whole body', value: Buffer.byteLength(first.rawBody), unit: 'bytes' });
    rows.push({
      group: 'first request',
      name: 'instructions + tools',
      value: instructionBytes + toolsBytes,
      unit: 'bytes',
      note: `instructions ${instructionBytes}, tools ${toolsBytes}; plus ${environmentBytes} bytes of environment block for this repo`,
      target: '≤ 8192',
      met: instructionBytes + toolsBytes <= 8192,
    });
  } finally {
    await provider.close();
    rmSync(home, { recursive: true, force: true });
  }
  return rows;
}
