// An editor's turn against a one-shot `exec`: `session/prompt` answered by a warm `glassbox acp`
// (the process an editor keeps running, driven over stdio by the SDK's client side) against an
// `exec` process running the same one-answer script from spawn to exit. Runs are interleaved, so
// a machine that gets busier skews both alike. The ratio is what a long-lived agent process saves
// per turn; it is not a target.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { PROTOCOL_VERSION, client, methods, ndJsonStream } from '@agentclientprotocol/sdk';
import { startFakeProvider } from '../../src/testing/index.js';
import { median, withRatio, type BenchRow } from '../bench-table.js';
import { REPO_ROOT, runChild } from '../child-process.js';

const quick = process.env.GLASSBOX_BENCH_QUICK === '1';
const RUNS = quick ? 5 : 15;
const BIN = join(REPO_ROOT, 'bin', 'glassbox.js');

export async function run(): Promise<BenchRow[]> {
  const provider = await startFakeProvider({ whenExhausted: { text: 'ok', usage: { input: 10, output: 1 } } });
  const home = mkdtempSync(join(tmpdir(), 'glassbox-bench-home-'));
  const env = { ...process.env, OPENAI_API_KEY: 'bench', GLASSBOX_HOME: home };
  const child = spawn(process.execPath, [BIN, 'acp', '--base-url', provider.baseURL, '-m', 'bench'], {
    env,
    cwd: REPO_ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  try {
    const connection = client({ name: 'bench' })
      .onNotification(methods.client.session.update, () => {})
      .connect(
        ndJsonStream(
          Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
          Readable.toWeb(child.stdout) as unknown as ReadableStream<Uint8Array>,
        ),
      );
    await connection.agent.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION });
    const { sessionId } = await connection.agent.request(methods.agent.session.new, { cwd: REPO_ROOT, mcpServers: [] });
    const promptOnce = async (): Promise<number> => {
      const started = performance.now();
      const answer = await connection.agent.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: 'say ok' }],
      });
      if (answer.stopReason !== 'end_turn') throw new Error(`acp turn ended ${answer.stopReason}`);
      return performance.now() - started;
    };
    // The first turn loads the runner's code and gathers the environment block: not a warm turn.
    await promptOnce();
    const acp: number[] = [];
    const exec: number[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      acp.push(await promptOnce());
      const result = await runChild(
        process.execPath,
        [BIN, 'exec', '--base-url', provider.baseURL, '-m', 'bench', '-C', REPO_ROOT, 'say ok'],
        {
          env: { OPENAI_API_KEY: 'bench', GLASSBOX_HOME: home },
        },
      );
      if (result.code !== 0) throw new Error(`exec exited ${result.code}: ${result.stderr}`);
      exec.push(result.ms);
    }
    return [
      withRatio({
        group: 'acp',
        name: 'one-answer turn: session/prompt to a warm glassbox acp',
        value: median(acp),
        unit: 'ms',
        baseline: { name: 'glassbox exec process, spawn to exit', value: median(exec) },
      }),
    ];
  } finally {
    child.stdin.end();
    await exited;
    await provider.close();
    rmSync(home, { recursive: true, force: true });
  }
}
