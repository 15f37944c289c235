// The end of an `exec` run says what a script asks of it, as other agents' final results do: the
// session to resume, the cost at catalog prices, the time taken; the text summary groups digits.
// Through the built CLI, against the fake provider reporting a chosen usage.

import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startFakeProvider, type ScriptedTurn } from '../../src/testing/index.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { cliEnv, jsonLines, runCli, type CliResult } from '../helpers/run-cli.js';

// 30,143,211 tokens: 20M fresh input, 10M cached, 143,211 out.
const BIG_CALL: ScriptedTurn = { text: 'Done.', usage: { input: 30_000_000, cached: 10_000_000, output: 143_211 } };
// gpt-5-mini's list price (USD per million: input 0.25, cached input 0.025, output 2).
const BIG_CALL_COST = (20_000_000 * 0.25 + 10_000_000 * 0.025 + 143_211 * 2) / 1_000_000;

async function execAgainst(script: ScriptedTurn[], args: string[]): Promise<CliResult> {
  const base = await makeTempDir();
  const root = join(base, 'project');
  await mkdir(root, { recursive: true });
  await writeFile(join(root, 'README.md'), '# Sample\n');
  const provider = await startFakeProvider({ script });
  try {
    return await runCli(
      ['exec', '--base-url', provider.baseURL, '-C', root, ...args, 'hi'],
      cliEnv({ OPENAI_API_KEY: 'sk-test', GLASSBOX_HOME: join(base, 'home') }),
    );
  } finally {
    await provider.close();
  }
}

describe('the end of an exec run', { concurrency: true }, () => {
  test('the last --json event carries sessionId, totalCostUsd at catalog prices and durationMs', async () => {
    const result = await execAgainst([BIG_CALL], ['--json', '-m', 'gpt-5-mini']);
    assert.equal(result.code, 0, result.stderr);
    const events = jsonLines(result.stdout);
    const last = events.at(-1)!;
    assert.equal(last.type, 'run_succeeded');
    assert.equal(last.sessionId, events[0]!.sessionId);
    assert.match(String(last.sessionId), /^[0-9a-f-]{36}$/);
    assert.ok(Math.abs(Number(last.totalCostUsd) - BIG_CALL_COST) < 1e-9, `${last.totalCostUsd} vs ${BIG_CALL_COST}`);
    assert.ok(Number.isInteger(last.durationMs) && Number(last.durationMs) > 0, String(last.durationMs));
    // Only the terminal event carries them.
    assert.ok(events.slice(1, -1).every((e) => !('totalCostUsd' in e)));
  });

  test('a model without a known price gives a null cost, and a failed run carries the totals too', async () => {
    const [unknown, failed] = await Promise.all([
      execAgainst([{ text: 'ok' }], ['--json', '-m', 'my-local-model']),
      execAgainst([{ fault: { kind: 'status', status: 400, message: 'bad request' } }], ['--json', '-m', 'gpt-5-mini']),
    ]);
    assert.equal(unknown.code, 0, unknown.stderr);
    const last = jsonLines(unknown.stdout).at(-1)!;
    assert.equal(last.type, 'run_succeeded');
    assert.equal(last.totalCostUsd, null);
    assert.equal(typeof last.durationMs, 'number');
    const failedLast = jsonLines(failed.stdout).at(-1)!;
    assert.equal(failedLast.type, 'run_failed', failed.stdout);
    assert.equal(failedLast.sessionId, jsonLines(failed.stdout)[0]!.sessionId);
    assert.equal(typeof failedLast.durationMs, 'number');
  });

  test('the text summary groups the token count by thousands and shows the cost', async () => {
    const result = await execAgainst([BIG_CALL], ['-m', 'gpt-5-mini']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /done in 1 round\(s\) · 30,143,211 tokens · \$5\.54 · \d+\.\d s\n/);
  });
});
