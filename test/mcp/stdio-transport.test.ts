// Stopping a stdio MCP server, step by step: stdin closed, a grace to exit on its own, SIGTERM,
// the grace again, then SIGKILL to the whole group. The other MCP tests give their stubborn
// servers a short `stopGraceSec` so they need not sit out the default; this file proves the steps
// and that each waits its grace (a server that needs 100 ms is let finish, never killed).

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

/** Closes the server the way a turn's end does; what it received and how it ended. */
async function stop(dir: string, mode: string, graceMs: number): Promise<{ ended: string; signals: string; pids: number[] }> {
  const pidFile = join(dir, 'pids');
  const signalFile = join(dir, 'signals');
  // The stubborn one also starts a child, which must end with the group.
  const env = {
    BROKEN_MODE: mode,
    BROKEN_CHILD: mode === 'stubborn' ? '1' : '0',
    BROKEN_PID_FILE: pidFile,
    BROKEN_SIGNAL_FILE: signalFile,
  };
  const { transport, closed } = await startServer(dir, env, graceMs);
  await transport.close();
  await closed;
  const signals = await readFile(signalFile, 'utf8').catch(() => '');
  return { ended: transport.describeFailure(), signals, pids: await readPids(pidFile) };
}

describe('closing a stdio MCP server', { concurrency: true }, () => {
  test('a server that exits by itself 100 ms after stdin closes is given the default grace to do so: no signal', async () => {
    await withTempDir(async (dir) => {
      const { ended, signals, pids } = await stop(dir, 'slow-exit', DEFAULT_STOP_GRACE_MS);
      assert.equal(ended, 'it exited with code 0');
      assert.equal(signals, '');
      assert.equal(pids.length, 1);
      assert.equal(isAlive(pids[0]!), false);
    });
  });

  test('a server that ignores EOF gets SIGTERM, and the grace again to exit after it', async () => {
    await withTempDir(async (dir) => {
      const { ended, signals } = await stop(dir, 'slow-term', DEFAULT_STOP_GRACE_MS);
      assert.equal(signals, 'SIGTERM\n');
      assert.equal(ended, 'it exited with code 0');
    });
  });

  // The timeout only turns a missing SIGKILL (the server would never close) into a failure.
  test('a server that ignores EOF and SIGTERM is killed with SIGKILL, and its child with it', { timeout: 60_000 }, async () => {
    await withTempDir(async (dir) => {
      const { ended, signals, pids } = await stop(dir, 'stubborn', 50);
      assert.equal(signals, 'SIGTERM\n', 'SIGTERM came first, once');
      assert.equal(ended, 'it was killed by SIGKILL');
      assert.equal(pids.length, 2);
      for (const pid of pids) assert.equal(isAlive(pid), false, `process ${pid} outlived the close`);
    });
  });
});
