// The editor is painted before the session is loaded (issue 25 item 10): in a real terminal, with
// the session's start held at its database connection (a loopback port that answers only when the
// test lets it), the editor and its hint are on screen, keys typed into it show, and the session,
// once loaded, has them in its own editor, Enter included. A start that fails instead leaves
// only its error: the painted frame is erased and the terminal is given back.

import assert from 'node:assert/strict';
import { type Server, type Socket, connect, createServer } from 'node:net';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startFakeProvider } from '../../src/testing/index.js';
import { startPgCluster } from '../helpers/pg-cluster.js';
import { ptyEnv, ptyProject, requireTmux } from './pty-fixtures.js';
import { TmuxScreen, waitUntil } from './tmux-screen.js';

const skip = requireTmux();

/** A TCP port whose connections wait until `release` (joined to `target`) or `drop` (closed). */
async function heldPort(
  target: string | null,
): Promise<{ port: number; held: () => number; release(): void; drop(): void; close(): Promise<void> }> {
  const waiting: Socket[] = [];
  const open = new Set<Socket>();
  let released = false;
  let arrived = 0;
  const join = (socket: Socket): void => {
    if (target === null) return void socket.destroy();
    const upstream = connect(target);
    open.add(upstream);
    socket.pipe(upstream).pipe(socket);
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  };
  const server: Server = createServer((socket) => {
    arrived += 1;
    open.add(socket);
    if (released) join(socket);
    else waiting.push(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const release = (): void => {
    released = true;
    for (const socket of waiting.splice(0)) join(socket);
  };
  return {
    port: address.port,
    held: () => arrived,
    release,
    drop() {
      target = null;
      release();
    },
    async close() {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('the first paint (tmux)', { skip, concurrency: true }, () => {
  test('the editor takes keys while the session is still starting; the session gets them', async (t) => {
    const cluster = await startPgCluster(t);
    if (cluster === null) return;
    // `postgres://glassbox@/<name>?host=<socket dir>`: the same database, reached over TCP here.
    const database = /@\/([^?]+)\?/.exec(await cluster.newDatabase())?.[1];
    const port = await heldPort(join(cluster.socketDir, '.s.PGSQL.5432'));
    t.after(() => port.close());
    const { root, home } = await ptyProject();
    const provider = await startFakeProvider({ script: [{ text: 'Answered the early prompt.' }] });
    t.after(() => provider.close());
    const screen = await TmuxScreen.start({
      args: ['--base-url', provider.baseURL, '--database-url', `postgres://glassbox@127.0.0.1:${port.port}/${database}`],
      env: ptyEnv({ GLASSBOX_HOME: home }),
      cwd: root,
    });
    try {
      await screen.waitUntil((s) => s.includes('starting glassbox…') && s.includes('Enter send'), 'the painted editor');
      // The CLI is loaded and waiting on its session store: nothing of the session is drawn yet.
      await waitUntil(() => port.held() > 0, 'the connection to the session database');
      await screen.type('hello from the start');
      const echoed = await screen.waitUntil((s) => s.includes('› hello from the start'), 'the typed text in the painted editor');
      assert.match(echoed, /starting glassbox…/);
      assert.doesNotMatch(echoed, /new session/);
      await screen.keys('Enter');
      port.release();
      await screen.waitFor('Answered the early prompt.');
      assert.equal(provider.requests.length, 1);
      assert.match(JSON.stringify(provider.requests[0]?.body), /hello from the start/);
      await screen.waitIdle();
      const shown = await screen.capture({ history: true });
      assert.equal(shown.split('hello from the start').length - 1, 1, shown);
      assert.doesNotMatch(shown, /starting glassbox…/);
      await screen.submit('/quit');
      assert.equal(await screen.exitCode(), 0);
    } finally {
      await screen.close();
    }
  });

  test('a start that fails erases the painted editor and leaves only its error', async (t) => {
    const port = await heldPort(null);
    t.after(() => port.close());
    const { root, home } = await ptyProject();
    const screen = await TmuxScreen.start({
      args: ['--database-url', `postgres://glassbox@127.0.0.1:${port.port}/nothing`],
      env: ptyEnv({ GLASSBOX_HOME: home }),
      cwd: root,
    });
    try {
      await screen.waitUntil((s) => s.includes('starting glassbox…') && s.includes('Enter send'), 'the painted editor');
      await waitUntil(() => port.held() > 0, 'the connection to the session database');
      await screen.type('lost words');
      await screen.waitFor('› lost words');
      port.drop();
      const failed = await screen.waitFor(/cannot open the session database/);
      assert.equal(await screen.exitCode(), 2);
      const after = await screen.capture();
      assert.doesNotMatch(after, /[╭╰│]|Enter send|starting glassbox/, `${failed}\n---\n${after}`);
    } finally {
      await screen.close();
    }
  });
});
