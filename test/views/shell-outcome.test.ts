// The faces read a shell call's outcome from the header the shell tool writes; read here from the
// real tool's results (real bash), so a change of the header breaks this test, not the display.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ToolContext } from '../../src/agent/index.js';
import { createToolSessionState } from '../../src/tools/index.js';
import { createShellTool } from '../../src/tools/shell/index.js';
import { shellEnding, shellFailed, shellOutcome, shellOutputTail } from '../../src/views/index.js';
import { withTempDir } from '../helpers/temp-dir.js';

async function run(root: string, command: string, timeoutMs?: number): Promise<string> {
  const shell = createShellTool({ env: { PATH: process.env.PATH, HOME: root }, homeDir: root, killGraceMs: 200 });
  const context: ToolContext = {
    root,
    execution: { mode: 'danger-full-access', sandboxed: false, network: true, secretsApproved: false },
    callId: 'call-1',
    signal: new AbortController().signal,
    state: createToolSessionState(),
  };
  const args = shell.schema.parse({ command, ...(timeoutMs === undefined ? {} : { timeout_ms: timeoutMs }) });
  return (await shell.execute(args, context)).output;
}

test('exit 0, a non-zero exit with the last lines of output, a timeout, and no output', async () => {
  await withTempDir(async (root) => {
    const ok = shellOutcome('shell', await run(root, 'echo fine'))!;
    assert.equal(shellFailed(ok), false);
    assert.equal(shellEnding(ok), 'exit 0');

    const failed = shellOutcome('shell', await run(root, 'for i in 1 2 3 4 5; do echo line $i; done; echo oops >&2; exit 2'))!;
    assert.equal(shellFailed(failed), true);
    assert.equal(shellEnding(failed), 'exit 2');
    assert.deepEqual(shellOutputTail(failed), ['line 4', 'line 5', 'oops']);

    const slow = shellOutcome('shell', await run(root, 'sleep 30', 200))!;
    assert.equal(shellFailed(slow), true);
    assert.equal(shellEnding(slow), 'timed out');
    assert.equal(slow.signal, 'SIGTERM');

    const silent = shellOutcome('shell', await run(root, 'exit 3'))!;
    assert.equal(shellEnding(silent), 'exit 3');
    assert.deepEqual(shellOutputTail(silent), []);
  });
});

test('only the shell tool, and only a result with the header (not an error before the command ran)', () => {
  assert.equal(shellOutcome('read_file', 'exit_code: 1, duration: 0.1s\nx'), null);
  assert.equal(shellOutcome('shell', 'Error [EMPTY_COMMAND]: command must not be empty'), null);
  assert.equal(shellOutcome('mcp__box__shell', 'exit_code: 1, duration: 0.1s\nx'), null);
});
