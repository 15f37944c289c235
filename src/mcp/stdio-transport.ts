// The stdio transport for MCP servers, in place of the SDK's: the server runs in its own process
// group, so closing it also ends what it started (`npx` → npm → node), Ctrl-C at the terminal
// reaches Glassbox alone (a cancelled run still closes its servers in order), and a Glassbox that
// exits without closing kills the group on the way out. The environment is the allowlisted one
// commands get (no API keys) plus the server's own `env`. stderr is kept (the tail) for messages.
// Lines are collected in linear time and capped (MAX_MCP_RESPONSE_BYTES): the SDK's own buffer
// re-copies everything received with every chunk, so a 6 MB tools/list took seconds of CPU.

import { spawn, type ChildProcess } from 'node:child_process';
import { deserializeMessage, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { buildChildEnvironment, isProcessGroupAlive } from '../sandbox/index.js';
import { MAX_MCP_RESPONSE_BYTES } from './mcp-config.js';

export interface StdioServerSpec {
  command: string;
  args: string[];
  cwd: string;
  /** Added to the allowlisted environment. */
  env: Record<string, string>;
  /** How long to wait after closing stdin, then after SIGTERM, before the next step (`stopGraceSec`). */
  graceMs: number;
}

const STDERR_TAIL_CHARS = 2_000;
const NEWLINE = 0x0a;

/** Newline-delimited lines from chunks, each byte copied once; a line over `maxBytes` throws. */
class LineReader {
  private parts: Buffer[] = [];
  private size = 0;

  constructor(private readonly maxBytes: number) {}

  /** The lines `chunk` completes, without their line ends. */
  push(chunk: Buffer): string[] {
    const lines: string[] = [];
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      this.add(chunk.subarray(start, end));
      const line = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.size);
      lines.push(line.toString('utf8').replace(/\r$/, ''));
      this.parts = [];
      this.size = 0;
      start = end + 1;
    }
    if (start < chunk.length) this.add(chunk.subarray(start));
    return lines;
  }

  private add(piece: Buffer): void {
    this.size += piece.length;
    if (this.size > this.maxBytes) {
      this.clear();
      throw new Error(`it sent a message larger than ${Math.round(this.maxBytes / (1024 * 1024))} MiB`);
    }
    if (piece.length > 0) this.parts.push(piece);
  }

  clear(): void {
    this.parts = [];
    this.size = 0;
  }
}

/** Groups still running, killed if Glassbox exits without closing them (second Ctrl-C, a crash). */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const pgid of liveGroups) killGroup(pgid, 'SIGKILL');
  });
}

function killGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // Already gone.
  }
}

async function waitForGroupExit(pgid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!isProcessGroupAlive(pgid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return !isProcessGroupAlive(pgid);
}

export class GroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  private child: ChildProcess | null = null;
  private readonly buffer = new LineReader(MAX_MCP_RESPONSE_BYTES);
  private stderr = '';
  private exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  /** The first line the server wrote that was not a JSON-RPC message, for error messages. */
  private badLine: string | null = null;
  /** Why reading stopped (an oversized message), for error messages. */
  private overflow: string | null = null;

  constructor(private readonly spec: StdioServerSpec) {}

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /** What the server said and how it ended, for a message when it fails. */
  describeFailure(): string {
    const parts: string[] = [];
    if (this.exit) parts.push(this.exit.signal ? `it was killed by ${this.exit.signal}` : `it exited with code ${this.exit.code}`);
    if (this.overflow) parts.push(this.overflow);
    if (this.badLine) parts.push(`it wrote output that is not JSON-RPC (${this.badLine.slice(0, 200)})`);
    const tail = this.stderr.trim();
    if (tail) parts.push(`stderr: ${tail.slice(-500)}`);
    return parts.join('; ');
  }

  start(): Promise<void> {
    if (this.child) throw new Error('GroupStdioTransport already started');
    installExitHook();
    return new Promise((resolve, reject) => {
      const child = spawn(this.spec.command, this.spec.args, {
        cwd: this.spec.cwd,
        env: buildChildEnvironment(process.env, this.spec.env),
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,
      });
      this.child = child;
      child.once('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once('spawn', () => {
        if (child.pid !== undefined) liveGroups.add(child.pid);
        resolve();
      });
      child.once('exit', (code, signal) => {
        this.exit = { code, signal };
      });
      child.once('close', () => {
        // The leader is gone; whatever it started in the group is ended by close().
        this.onclose?.();
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => this.receive(chunk));
      child.stderr?.setEncoding('utf8');
      child.stderr?.on('data', (text: string) => {
        this.stderr = (this.stderr + text).slice(-STDERR_TAIL_CHARS);
      });
    });
  }

  private receive(chunk: Buffer): void {
    if (this.overflow) return;
    let lines: string[];
    try {
      lines = this.buffer.push(chunk);
    } catch (error) {
      // No way to find the next message's start for sure: the server is stopped, and its calls
      // fail saying why.
      this.overflow = (error as Error).message;
      this.onerror?.(error as Error);
      void this.close();
      return;
    }
    for (const line of lines) {
      let message: JSONRPCMessage;
      try {
        message = deserializeMessage(line);
      } catch (error) {
        // A server that logs to stdout is broken, but later lines may be fine.
        this.badLine ??= (error as Error).message;
        this.onerror?.(error as Error);
        continue;
      }
      this.onmessage?.(message);
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin || stdin.destroyed || this.exit) {
        reject(new Error('Not connected: the MCP server has exited'));
        return;
      }
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /** stdin closed (servers exit on EOF), then SIGTERM, then SIGKILL, to the whole group. */
  async close(): Promise<void> {
    const child = this.child;
    if (!child || child.pid === undefined) return;
    const pgid = child.pid;
    const grace = this.spec.graceMs;
    try {
      child.stdin?.end();
    } catch {
      // The pipe is already broken.
    }
    if (!(await waitForGroupExit(pgid, grace))) {
      killGroup(pgid, 'SIGTERM');
      if (!(await waitForGroupExit(pgid, grace))) killGroup(pgid, 'SIGKILL');
    }
    liveGroups.delete(pgid);
    this.buffer.clear();
  }
}
