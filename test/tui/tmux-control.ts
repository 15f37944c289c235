// One tmux control-mode client (`tmux -C`) for a tmux server: commands go to its stdin one a line
// and each is answered, in the order sent, by a `%begin … %end` block (`%error` when it failed)
// on its stdout. A test thus drives tmux without starting a process per command: each fork from
// a test process of a few hundred MB blocks it for tens of milliseconds. Between blocks tmux
// writes notifications; what `%output` says a pane printed is handed to `onOutput`.

import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';

interface Pending {
  command: string;
  resolve(lines: string[]): void;
  reject(error: Error): void;
}

/**
 * `word` as one argument for tmux's command parser: double-quoted, with `\`, `"` and `$` (which
 * would expand a variable) escaped and control characters as octal escapes, so the command stays
 * on one line whatever the text holds (a CR, an Escape).
 */
export function tmuxQuote(word: string): string {
  if (word.includes('\0')) throw new Error('tmux arguments cannot hold NUL');
  let quoted = '"';
  for (const char of word) {
    const code = char.charCodeAt(0);
    if (char === '\\' || char === '"' || char === '$') quoted += `\\${char}`;
    else if (code < 0x20 || code === 0x7f) quoted += `\\${code.toString(8).padStart(3, '0')}`;
    else quoted += char;
  }
  return `${quoted}"`;
}

/**
 * What a pane printed, from `%output %<pane> <data>` (or `%extended-output %<pane> <age> … : <data>`),
 * as tmux escapes it: control characters and backslashes as octal escapes (ESC is `\033`).
 */
function outputData(line: string): string {
  if (line.startsWith('%output ')) return line.slice(line.indexOf(' ', '%output '.length) + 1);
  const colon = line.indexOf(' : ');
  return colon === -1 ? '' : line.slice(colon + 3);
}

/** Where tmux puts the socket of `-L <socket>`. */
function socketPath(socket: string): string {
  return join(process.env.TMUX_TMPDIR || '/tmp', `tmux-${process.getuid?.() ?? 0}`, socket);
}

export class TmuxControl {
  private readonly pending: Pending[] = [];
  /** The block being read: the rest of its `%begin` line (time, command number, flags) and its lines. */
  private block: { id: string; lines: string[] } | null = null;
  private partial = '';
  private stderr = '';
  /** Why the client ended, once it has: every later command rejects with it. */
  private ended: Error | null = null;
  /** What a command of the client's own command line (the one that starts the session) reported on failure. */
  private startupError = '';
  private closing: Promise<void> | null = null;
  readonly exited: Promise<void>;

  private constructor(
    private readonly socket: string,
    private readonly child: ChildProcessWithoutNullStreams,
    private readonly onOutput: (data: string) => void,
  ) {
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => this.read(chunk));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      this.stderr += chunk;
    });
    // A write after the client died fails with EPIPE; the exit below already rejects the commands.
    child.stdin.on('error', () => {});
    this.exited = new Promise((resolve) => {
      const end = (reason: string) => {
        if (this.ended === null) {
          const said = [this.startupError, this.stderr.trim()].filter(Boolean).join('; ');
          this.ended = new Error(`tmux control client for ${socket} ${reason}${said ? `: ${said}` : ''}`);
        }
        for (const waiting of this.pending.splice(0)) waiting.reject(this.ended);
        // Whoever waits for output wakes up, and its next command fails with the reason.
        this.onOutput('');
        resolve();
      };
      child.on('error', (error) => end(`failed: ${error.message}`));
      child.on('close', (code, signal) => end(`exited (${signal ?? code})`));
    });
  }

  /**
   * Starts `tmux -L <socket> -f /dev/null -C <args…>`, a client in control mode whose first command
   * (`args`, say new-session) starts the server; resolves once that has worked, rejects with tmux's
   * message (and leaves nothing running) when it has not.
   */
  static async open(socket: string, args: string[], onOutput: (data: string) => void): Promise<TmuxControl> {
    const child = spawn('tmux', ['-L', socket, '-f', '/dev/null', '-C', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    const control = new TmuxControl(socket, child, onOutput);
    try {
      // The server exits when its last client goes: should the test process die without close(),
      // the control client's stdin closes and the server, its panes and their programs go with it.
      await control.command('set-option -s exit-unattached on');
      // That option needs no session, so it may be answered before a failed start ends the client:
      // only a client attached to its session has started one.
      // On a loaded machine the client can answer before it is attached to the session it is
      // creating: ask again (each answer is a round trip to the server) until it is, or it ends.
      let session: string | undefined;
      for (let attempt = 0; attempt < 200 && !session && control.ended === null; attempt += 1) {
        [session] = await control.command('display-message -p "#{client_session}"');
      }
      if (!session) throw new Error(`tmux could not start the session: ${control.startupError || 'the client is not attached'}`);
    } catch (error) {
      await control.close();
      throw error;
    }
    return control;
  }

  /** Runs one command line (arguments already quoted); resolves with its output lines, rejects with tmux's error. */
  command(line: string): Promise<string[]> {
    if (this.ended !== null) return Promise.reject(this.ended);
    return new Promise((resolve, reject) => {
      this.pending.push({ command: line, resolve, reject });
      this.child.stdin.write(`${line}\n`);
    });
  }

  /** Kills the server (its panes get SIGHUP) and waits for the client to end. */
  close(): Promise<void> {
    this.closing ??= this.kill();
    return this.closing;
  }

  private async kill(): Promise<void> {
    let serverKilled = false;
    if (this.ended === null) {
      this.child.stdin.end('kill-server\n');
      // A client that does not end by itself is killed; the server then goes by a separate command.
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
      await this.exited;
      clearTimeout(timer);
      serverKilled = this.child.signalCode !== 'SIGKILL';
    }
    // The client ended before close (or had to be killed): the server may still be running.
    if (!serverKilled) await new Promise<void>((resolve) => execFile('tmux', ['-L', this.socket, 'kill-server'], () => resolve()));
    // tmux leaves the socket file behind, even of a server that never got going.
    await rm(socketPath(this.socket), { force: true });
  }

  private read(chunk: string): void {
    const lines = (this.partial + chunk).split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) this.line(line);
  }

  private line(line: string): void {
    const block = this.block;
    if (block !== null) {
      // Only the line naming this block's own time and command number ends it, so output that
      // happens to read `%end` (a captured screen) stays output.
      const ended = line === `%end ${block.id}` ? 'end' : line === `%error ${block.id}` ? 'error' : null;
      if (ended === null) block.lines.push(line);
      else this.finish(block, ended === 'error');
      return;
    }
    if (line.startsWith('%begin ')) this.block = { id: line.slice('%begin '.length), lines: [] };
    else if (line.startsWith('%output ') || line.startsWith('%extended-output ')) this.onOutput(outputData(line));
    // Other notifications (windows, sessions, layout, %exit) say nothing a test waits on.
  }

  private finish(block: { id: string; lines: string[] }, failed: boolean): void {
    this.block = null;
    // The last field is 1 for a command read from this client's stdin; 0 for the command line's own.
    if (!block.id.endsWith(' 1')) {
      if (failed) this.startupError = block.lines.join('\n');
      return;
    }
    const waiting = this.pending.shift();
    if (waiting === undefined) return;
    if (failed) waiting.reject(new Error(`tmux ${waiting.command}: ${block.lines.join('\n')}`));
    else waiting.resolve(block.lines);
  }
}
