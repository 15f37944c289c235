// The tmux control-mode client the terminal tests drive tmux through: replies matched to their
// commands, tmux's errors as rejections, any text quoted exactly, the pane's output reported, the
// window left at its own size, and no server (or socket file) left once it is closed or its client dies.

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { makeTempDir } from '../helpers/temp-dir.js';
import { requireTmux } from './pty-fixtures.js';
import { TmuxControl, tmuxQuote } from './tmux-control.js';

const skip = requireTmux();
let counter = 0;

function socketName(): string {
  counter += 1;
  return `glassbox-control-test-${process.pid}-${counter}`;
}

function socketFile(socket: string): string {
  return join(process.env.TMUX_TMPDIR || '/tmp', `tmux-${process.getuid?.() ?? 0}`, socket);
}

/** Whether `pid` still runs: a zombie has ended (tmux's server is a daemon, reaped by init in its own time). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    return false;
  }
}

/** Polls a condition no event announces (another process's end). */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('tmux control client', { skip, concurrency: true }, () => {
  test('text of any kind round-trips exactly; each reply goes to its command; an error rejects with tmux’s message', async () => {
    const dir = await makeTempDir();
    const control = await TmuxControl.open(socketName(), ['new-session', '-s', 't', '-x', '80', '-y', '24', 'cat'], () => {});
    try {
      const text = `it's "quoted" $HOME \\ back; #not a comment ~ {x} %end 1 2 1\n%error\r\t\x1b[1m\x7f › é 🙂`;
      const file = join(dir, 'buffer.txt');
      // Sent together: the replies come back in order, the failing one in its place.
      const [set, bad, saved] = await Promise.allSettled([
        control.command(`set-buffer -b t ${tmuxQuote(text)}`),
        control.command('no-such-command'),
        control.command(`save-buffer -b t ${tmuxQuote(file)}`),
      ]);
      assert.deepEqual(set, { status: 'fulfilled', value: [] });
      assert.equal(bad.status, 'rejected');
      assert.match(String(bad.reason), /unknown command: no-such-command/);
      assert.deepEqual(saved, { status: 'fulfilled', value: [] });
      assert.equal(await readFile(file, 'utf8'), text);
      // The control client sets no size: the window keeps the one it was made with.
      assert.deepEqual(await control.command('display-message -p "#{window_width}x#{window_height}"'), ['80x24']);
    } finally {
      await control.close();
    }
  });

  test('what the pane prints is reported as tmux escapes it', async () => {
    let printed = '';
    let onPrinted = () => {};
    const program = `read line; printf '<%s>\\033[1m' "$line"; exec sleep 600`;
    const control = await TmuxControl.open(socketName(), ['new-session', '-s', 't', program], (data) => {
      printed += data;
      onPrinted();
    });
    try {
      const seen = new Promise<void>((resolve) => {
        onPrinted = () => {
          if (printed.includes('<hello>\\033[1m')) resolve();
        };
      });
      await control.command('send-keys -t t -l hello');
      await control.command('send-keys -t t Enter');
      await seen;
    } finally {
      await control.close();
    }
  });

  test('a session that cannot start rejects with tmux’s message and leaves no socket', async () => {
    const socket = socketName();
    await assert.rejects(
      TmuxControl.open(socket, ['new-session', '-x', 'wide'], () => {}),
      /width invalid/,
    );
    assert.equal(existsSync(socketFile(socket)), false);
  });

  test('close() ends the server and removes its socket; a client that dies takes the server with it', async () => {
    const closed = socketName();
    const first = await TmuxControl.open(closed, ['new-session', '-s', 't', 'sleep 600'], () => {});
    const [firstServer] = await first.command('display-message -p "#{pid}"');
    await first.close();
    await until(() => !running(Number(firstServer)), 'the closed server to end');
    assert.equal(existsSync(socketFile(closed)), false);
    await assert.rejects(first.command('list-sessions'), /exited/);

    // A test process that dies without close(): its client ends, and the server goes too.
    const orphaned = socketName();
    const second = await TmuxControl.open(orphaned, ['new-session', '-s', 't', 'sleep 600'], () => {});
    try {
      const [pids] = await second.command('display-message -p "#{pid} #{client_pid}"');
      const [server, client] = pids!.split(' ').map(Number);
      process.kill(client!, 'SIGKILL');
      await second.exited;
      await until(() => !running(server!), 'the server to end with its only client');
    } finally {
      await second.close();
    }
  });
});
