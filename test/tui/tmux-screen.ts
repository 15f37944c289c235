// Drives the real `bin/glassbox.js` in a pseudo-terminal through tmux: start it in a session of a
// given size, type with send-keys, read the screen with capture-pane. Each screen has its own tmux
// server (-L), started by and spoken to through one control-mode client (tmux-control.ts), so a
// screen costs one process however many commands it sends; close() kills the server. The server
// exits when that client goes, so a test process that dies without close() leaves nothing behind.
// A control client sets no size (it never sends `refresh-client -C`), so the window keeps the
// size given here until resize(). Every wait re-reads the screen when tmux reports the pane's
// output (with a slow poll as a fallback) until the expected text appears, or a timeout says what
// was on screen, so no test depends on a fixed sleep.

import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { REPO_ROOT } from '../helpers/run-cli.js';
import { join } from 'node:path';
import { TmuxControl, tmuxQuote } from './tmux-control.js';

const ENTRY = join(REPO_ROOT, 'bin', 'glassbox.js');
/** How long a wait goes without output from the pane before it reads the screen anyway. */
const FALLBACK_POLL_MS = 1_000;
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

/**
 * Follows the pane's output: counts the notifications (a wait reads the screen again once the count
 * moves) and notes when the program first turns on bracketed paste.
 */
class PaneOutput {
  count = 0;
  /** Bytes the program wrote to the terminal so far (tmux escapes control bytes as `\ooo`). */
  bytes = 0;
  /** The program sent ESC[?2004h; glassbox does so right after making its terminal raw. */
  readsKeys = false;
  /** The end of the last output, so a sequence split between two notifications is still seen. */
  private tail = '';
  private readonly wakers = new Set<() => void>();

  /** `data` as tmux's control mode escapes it: ESC is written `\033`. */
  notify(data: string): void {
    this.count += 1;
    this.bytes += Buffer.byteLength(data.replace(/\\[0-7]{3}/g, '.'));
    const seen = this.tail + data;
    if (seen.includes('\\033[?2004h')) this.readsKeys = true;
    this.tail = seen.slice(-16);
    for (const wake of [...this.wakers]) wake();
  }

  /** Resolves once output has come since `seen` (at once if it already has), or after `ms`. */
  after(seen: number, ms: number): Promise<void> {
    if (this.count !== seen) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.wakers.add(wake);
    });
  }
}

export class TmuxScreen {
  private constructor(
    private readonly control: TmuxControl,
    private readonly output: PaneOutput,
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
    const size = ['-x', String(options.width ?? 80), '-y', String(options.height ?? 24)];
    // The server has this one session with one pane, so every %output it reports is that pane's.
    const output = new PaneOutput();
    const control = await TmuxControl.open(socket, ['new-session', '-s', 'gb', ...size, '-c', options.cwd, command], (data) =>
      output.notify(data),
    );
    return new TmuxScreen(control, output, 'gb');
  }

  /** Bytes the program has written to the terminal so far. */
  get bytesWritten(): number {
    return this.output.bytes;
  }

  private tmux(...args: string[]): Promise<string[]> {
    return this.control.command(args.map(tmuxQuote).join(' '));
  }

  /** The visible screen; with `escapes`, including colour and attribute sequences. */
  async capture(options: { escapes?: boolean; history?: boolean; raw?: boolean } = {}): Promise<string> {
    // -J joins lines the terminal wrapped, so text is found whatever the width; `raw` keeps rows.
    const args = ['capture-pane', '-p', '-t', this.target, ...(options.raw ? [] : ['-J'])];
    if (options.escapes) args.push('-e');
    if (options.history) args.push('-S', '-1000');
    // As `tmux capture-pane -p` prints it: every row ends in a newline.
    return (await this.tmux(...args)).map((line) => `${line}\n`).join('');
  }

  /** Waits until `expected` is on screen (scrollback included); rejects with the screen after `timeoutMs`. */
  waitFor(expected: string | RegExp, timeoutMs = 20_000): Promise<string> {
    const matches = (screen: string) => (typeof expected === 'string' ? screen.includes(expected) : expected.test(screen));
    return this.watch(() => this.capture({ history: true }), matches, String(expected), timeoutMs);
  }

  /** Waits until `predicate` holds for the visible screen. */
  waitUntil(predicate: (screen: string) => boolean, what: string, timeoutMs = 20_000): Promise<string> {
    return this.watch(() => this.capture(), predicate, what, timeoutMs);
  }

  private async watch(
    read: () => Promise<string>,
    predicate: (screen: string) => boolean,
    what: string,
    timeoutMs: number,
  ): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      // Counted before reading: output that lands during the capture starts the next round at once.
      const seen = this.output.count;
      const screen = await read();
      if (predicate(screen)) return screen;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the screen was:\n${screen}`);
      await this.output.after(seen, Math.max(0, Math.min(FALLBACK_POLL_MS, deadline + 1 - Date.now())));
    }
  }

  /**
   * Waits, before the first key, until the program reads keys. Glassbox draws its first frame
   * before ink makes the terminal raw: keys sent in between are read in cooked mode (echoed, Enter
   * turned into a newline). It turns on bracketed paste right after, so that mode is the sign.
   */
  private async readsKeys(): Promise<void> {
    if (this.output.readsKeys) return;
    await this.watch(
      () => this.capture(),
      () => this.output.readsKeys,
      'the program to read keys (bracketed paste on)',
      20_000,
    );
  }

  /** Literal text (no key names), as one write: the program sees it like typing or a paste. */
  async type(text: string): Promise<void> {
    await this.readsKeys();
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
      await this.readsKeys();
      await this.tmux('load-buffer', '-b', 'paste', file);
      await this.tmux('paste-buffer', '-p', '-d', '-b', 'paste', '-t', this.target);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** Key names: Enter, Escape, C-c, Up… */
  async keys(...names: string[]): Promise<void> {
    await this.readsKeys();
    await this.tmux('send-keys', '-t', this.target, ...names);
  }

  /**
   * Waits until the session is idle: its status line offers "Enter send" (no turn or compaction
   * still ending, no approval open). An answer shows before its turn has ended; a key sent at that
   * moment meets a busy session (a prompt is queued, a command refused, Ctrl-C cancels).
   */
  async waitIdle(): Promise<void> {
    // The frame bin/glassbox.js paints before the CLI loads has the same hint; the session's own
    // frame is the one that has replaced it (keys typed into the early frame are tested on their
    // own: first-paint-pty.test.ts).
    await this.waitUntil(
      (screen) => screen.includes('Enter send') && !screen.includes('starting glassbox…'),
      'the session to be idle ("Enter send" in its own frame)',
    );
  }

  /** Once the session is idle, types a line, waits until the editor shows it, then presses Enter (one write would read as a paste). */
  async submit(text: string, shown: string = text.slice(0, 40)): Promise<void> {
    await this.waitIdle();
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
    await this.control.close();
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
