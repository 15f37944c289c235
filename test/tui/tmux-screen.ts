// Drives the real `bin/glassbox.js` in a pseudo-terminal through tmux: start it in a detached
// session of a given size, type with send-keys, read the screen with capture-pane. Every wait
// polls the screen until the expected text appears (or a timeout says what was on screen), so
// no test depends on a fixed sleep. Each screen has its own tmux server (-L), killed at the end.

import { execFile, execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../helpers/run-cli.js';
import { join } from 'node:path';

const run = promisify(execFile);
const ENTRY = join(REPO_ROOT, 'bin', 'glassbox.js');
let counter = 0;

export function tmuxAvailable(): boolean {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

export interface ScreenOptions {
  args: string[];
  env: Record<string, string | undefined>;
  cwd: string;
  width?: number;
  height?: number;
}

export class TmuxScreen {
  private constructor(
    private readonly socket: string,
    private readonly target: string,
  ) {}

  static async start(options: ScreenOptions): Promise<TmuxScreen> {
    counter += 1;
    const socket = `glassbox-test-${process.pid}-${counter}`;
    const env = Object.entries(options.env)
      .filter((entry): entry is [string, string] => entry[1] !== undefined)
      .map(([key, value]) => shellQuote(`${key}=${value}`));
    // The exit status is printed and the pane kept, so a test can read both after the program ends.
    const command = `env -i ${env.join(' ')} ${shellQuote(process.execPath)} ${shellQuote(ENTRY)} ${options.args.map(shellQuote).join(' ')}; echo "[exited $?]"; exec sleep 3600`;
    await run('tmux', [
      '-L',
      socket,
      '-f',
      '/dev/null',
      'new-session',
      '-d',
      '-s',
      'gb',
      '-x',
      String(options.width ?? 80),
      '-y',
      String(options.height ?? 24),
      '-c',
      options.cwd,
      command,
    ]);
    return new TmuxScreen(socket, 'gb');
  }

  private tmux(...args: string[]): Promise<{ stdout: string }> {
    return run('tmux', ['-L', this.socket, ...args]);
  }

  /** The visible screen; with `escapes`, including colour and attribute sequences. */
  async capture(options: { escapes?: boolean; history?: boolean; raw?: boolean } = {}): Promise<string> {
    // -J joins lines the terminal wrapped, so text is found whatever the width; `raw` keeps rows.
    const args = ['capture-pane', '-p', '-t', this.target, ...(options.raw ? [] : ['-J'])];
    if (options.escapes) args.push('-e');
    if (options.history) args.push('-S', '-1000');
    return (await this.tmux(...args)).stdout;
  }

  /** Polls until `expected` is on screen (scrollback included); rejects with the screen after `timeoutMs`. */
  async waitFor(expected: string | RegExp, timeoutMs = 20_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    let screen = '';
    for (;;) {
      screen = await this.capture({ history: true });
      if (typeof expected === 'string' ? screen.includes(expected) : expected.test(screen)) return screen;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${String(expected)}; the screen was:\n${screen}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Polls until `predicate` holds for the visible screen. */
  async waitUntil(predicate: (screen: string) => boolean, what: string, timeoutMs = 20_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = await this.capture();
      if (predicate(screen)) return screen;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the screen was:\n${screen}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Literal text (no key names), as one write: the program sees it like typing or a paste. */
  async type(text: string): Promise<void> {
    await this.tmux('send-keys', '-t', this.target, '-l', text);
  }

  /**
   * Pastes `text` as a terminal does: newlines sent as CR, and wrapped in bracketed-paste markers
   * when the program turned that mode on (tmux's `paste-buffer -p` checks). Goes through a file,
   * so the text can be far larger than a command line.
   */
  async paste(text: string): Promise<void> {
    const dir = await mkdtemp(join(tmpdir(), 'glassbox-paste-'));
    try {
      const file = join(dir, 'buffer.txt');
      await writeFile(file, text);
      await this.tmux('load-buffer', '-b', 'paste', file);
      await this.tmux('paste-buffer', '-p', '-d', '-b', 'paste', '-t', this.target);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** Key names: Enter, Escape, C-c, Up… */
  async keys(...names: string[]): Promise<void> {
    await this.tmux('send-keys', '-t', this.target, ...names);
  }

  /** Types a line, waits until the editor shows it, then presses Enter (one write would read as a paste). */
  async submit(text: string, shown: string = text.slice(0, 40)): Promise<void> {
    await this.type(text);
    await this.waitUntil((screen) => screen.includes(shown), `the editor to show ${JSON.stringify(shown)}`);
    await this.keys('Enter');
  }

  async resize(width: number, height: number): Promise<void> {
    await this.tmux('resize-window', '-t', this.target, '-x', String(width), '-y', String(height));
  }

  /** Waits for the program to end and returns its exit code. */
  async exitCode(timeoutMs = 20_000): Promise<number> {
    const screen = await this.waitFor(/\[exited \d+\]/, timeoutMs);
    return Number(/\[exited (\d+)\]/.exec(screen)![1]);
  }

  async close(): Promise<void> {
    await this.tmux('kill-server').catch(() => {});
  }
}

/** Polls a condition of the test's own state (say, requests the fake provider saw). */
export async function waitUntil(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
