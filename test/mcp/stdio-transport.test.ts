// Stopping a stdio MCP server, step by step: stdin closed, a grace to exit on its own, SIGTERM,
// the grace again, then SIGKILL to the whole group. The other MCP tests give their stubborn
// servers a short `stopGraceSec` so they need not sit out the default; this file proves the steps
// and their waits exist.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { DEFAULT_STOP_GRACE_MS } from '../../src/mcp/index.js';
import { GroupStdioTransport } from '../../src/mcp/stdio-transport.js';
import { withTempDir } from '../helpers/temp-dir.js';
import { BROKEN_SERVER, isAlive, readPids } from './mcp-harness.js';

/**
 * A broken-server fixture that has answered a request (so its signal and EOF handlers are in
 * place, whatever the machine's load), and a promise of its transport's close event.
 */
async function startServer(dir: string, env: Record<string, string>, graceMs: number) {
  const transport = new GroupStdioTransport({ command: process.execPath, args: [BROKEN_SERVER], cwd: dir, env, graceMs });
  const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
  const answered = new Promise<void>((resolve) => (transport.onmessage = () => resolve()));
  await transport.start();
  await transport.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
  await answered;
  return { transport, closed };
}

describe('closing a stdio MCP server', { concurrency: true }, () => {
  test('a server that exits by itself after stdin closes is given the default grace to do so: no signal', async () => {
    await withTempDir(async (dir) => {
      // It exits 100 ms after EOF: well inside the default grace, long after an immediate SIGTERM.
      const { transport, closed } = await startServer(dir, { BROKEN_MODE: 'slow-exit' }, DEFAULT_STOP_GRACE_MS);
      await transport.close();
      await closed;
      assert.equal(transport.describeFailure(), 'it exited with code 0');
    });
  });

  test('a server that ignores EOF and SIGTERM gets SIGTERM after the grace and SIGKILL after another; its child dies with it', async () => {
    await withTempDir(async (dir) => {
      const pidFile = join(dir, 'pids');
      const signalFile = join(dir, 'signals');
      const graceMs = 150;
      const env = { BROKEN_MODE: 'stubborn', BROKEN_CHILD: '1', BROKEN_PID_FILE: pidFile, BROKEN_SIGNAL_FILE: signalFile };
      const { transport, closed } = await startServer(dir, env, graceMs);
      const started = Date.now();
      await transport.close();
      const waited = Date.now() - started;
      await closed;
      assert.equal(await readFile(signalFile, 'utf8'), 'SIGTERM\n', 'SIGTERM came first, once');
      assert.equal(transport.describeFailure(), 'it was killed by SIGKILL');
      // A lower bound only: each step waited its grace before the next.
      assert.ok(waited >= 2 * graceMs, `closed after ${waited} ms`);
      const pids = await readPids(pidFile);
      assert.equal(pids.length, 2);
      for (const pid of pids) assert.equal(isAlive(pid), false, `process ${pid} outlived the close`);
    });
  });
});
