// Runs one command as the leader of its own process group, so that a timeout, a cancellation or
// the command simply finishing can take down everything it started (pipelines, `&` jobs, test
// runners' workers) with one signal to the group instead of leaving orphans behind.

import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { OutputCapture, DEFAULT_OUTPUT_LIMIT, type CapturedOutput } from './output-capture.js';

export const DEFAULT_KILL_GRACE_MS = 2_000;
// After the command exits, streams still held open by a process that escaped the group (setsid)
// would keep us waiting forever; this is how long we keep reading after the group is signalled.
const DRAIN_AFTER_EXIT_MS = 1_000;
const GROUP_POLL_MS = 20;

export interface RunProcessOptions {
  file: string;
  args: readonly string[];
  cwd: string;
  env: Readonly<Record<string, string>>;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Total characters of output kept (half head, half tail). */
  outputLimit?: number;
  /** Time between SIGTERM and SIGKILL to the group. */
  killGraceMs?: number;
  /**
   * Data handed to the child on descriptors 3, 4…, each a pipe closed after its data (bwrap's
   * --seccomp). A promised one is written when it settles: the child can start (and block reading
   * it) while the data is still being worked out; if it rejects, nothing is written and the pipe
   * stays open, so the caller must stop the child (`signal`).
   */
  descriptorData?: readonly (Buffer | Promise<Buffer>)[];
  /** Written to the child's stdin, which is then closed (hooks read their input there); absent: stdin closed. */
  stdin?: string;
  /** Capture stderr apart from stdout (`ProcessResult.stderr`), for callers that read them differently (hooks). */
  separateStderr?: boolean;
  /** Called once the child has been started (not when it could not be), e.g. to do other work while it runs. */
  onSpawned?: () => void;
}

export interface ProcessResult {
  /** null when the process was ended by a signal (or never started because of cancellation). */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  durationMs: number;
  timedOut: boolean;
  cancelled: boolean;
  output: CapturedOutput;
  /** Pid of the group leader; null when cancelled before it started. */
  pid: number | null;
  /** Present with `separateStderr`: stderr alone (`output` then holds stdout alone). */
  stderr?: CapturedOutput;
}

/**
 * True while any live process of group `pgid` exists. Zombies do not count: orphans are reaped by
 * whatever runs as PID 1, which in some containers does so only now and then, and a zombie holds
 * no resources and cannot run again.
 */
export function isProcessGroupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    // EPERM means it exists but belongs to someone else; only ESRCH means gone.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return hasLiveMember(pgid);
}

function hasLiveMember(pgid: number): boolean {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    // No procfs (not Linux): the signal probe above is all there is.
    return true;
  }
  for (const name of names) {
    if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue;
    }
    // Fields after the parenthesised command name: state, ppid, pgrp, …
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') return true;
  }
  return false;
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function validate(options: RunProcessOptions): void {
  if (!Number.isFinite(options.timeoutMs) || options.timeoutMs <= 0) {
    throw new Error(`timeoutMs must be a positive number, got ${options.timeoutMs}.`);
  }
  const grace = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  if (!Number.isFinite(grace) || grace < 0) throw new Error(`killGraceMs must be >= 0, got ${grace}.`);
  if (options.file.length === 0) throw new Error('file must not be empty.');
}

/**
 * `data` as a descriptor of an unlinked regular file, for a child's stdin. Not a pipe from Node:
 * Node's pipes are socket pairs, and bash, seeing a socket on stdin, takes itself for a remote
 * shell and reads the user's ~/.bashrc first (which may wait on the terminal, or print).
 */
function inputDescriptor(data: string): number {
  const dir = mkdtempSync(join(tmpdir(), 'glassbox-stdin-'));
  try {
    const file = join(dir, 'input');
    writeFileSync(file, data, { mode: 0o600 });
    return openSync(file, 'r');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Spawn `file args` with stdin closed (or holding `stdin`) and stdout+stderr captured together in
 * arrival order (apart, with `separateStderr`).
 * Resolves once the command has exited, its output is drained and its process group is gone (or
 * was sent SIGKILL). Rejects only when the process cannot be started at all.
 */
export function runProcess(options: RunProcessOptions): Promise<ProcessResult> {
  validate(options);
  const grace = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  const capture = new OutputCapture(options.outputLimit ?? DEFAULT_OUTPUT_LIMIT);
  const errorCapture = options.separateStderr ? new OutputCapture(options.outputLimit ?? DEFAULT_OUTPUT_LIMIT) : capture;
  const started = performance.now();
  if (options.signal?.aborted) {
    return Promise.resolve({
      exitCode: null,
      signal: null,
      durationMs: 0,
      timedOut: false,
      cancelled: true,
      output: capture.result(),
      pid: null,
      ...(options.separateStderr ? { stderr: errorCapture.result() } : {}),
    });
  }

  return new Promise<ProcessResult>((resolve, reject) => {
    const input = options.stdin === undefined ? null : inputDescriptor(options.stdin);
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(options.file, [...options.args], {
        cwd: options.cwd,
        env: { ...options.env },
        detached: true,
        stdio: [input ?? 'ignore', 'pipe', 'pipe', ...(options.descriptorData ?? []).map(() => 'pipe' as const)],
      });
    } finally {
      // The child has its own copy of the descriptor now.
      if (input !== null) closeSync(input);
    }
    if (options.onSpawned !== undefined) child.once('spawn', options.onSpawned);
    // Typed as the spawn with three pipes is: stdout and stderr are pipes whatever else is passed.
    const { stdout, stderr } = child as unknown as { stdout: Readable; stderr: Readable };
    for (const [index, data] of (options.descriptorData ?? []).entries()) {
      const stream = child.stdio[3 + index] as Writable | null;
      // A child that exits before reading (bwrap refusing its arguments) closes the pipe: not our error.
      stream?.on('error', () => {});
      if (Buffer.isBuffer(data)) stream?.end(data);
      else data.then((bytes) => stream?.end(bytes)).catch(() => undefined);
    }
    const stdoutDecoder = new StringDecoder('utf8');
    const stderrDecoder = new StringDecoder('utf8');
    stdout.on('data', (chunk: Buffer) => capture.append(stdoutDecoder.write(chunk)));
    stderr.on('data', (chunk: Buffer) => errorCapture.append(stderrDecoder.write(chunk)));

    let timedOut = false;
    let cancelled = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    let terminateStartedAt: number | null = null;
    let killTimer: NodeJS.Timeout | undefined;
    let drainTimer: NodeJS.Timeout | undefined;
    let settled = false;

    const terminate = (): void => {
      const pid = child.pid;
      if (pid === undefined || terminateStartedAt !== null) return;
      terminateStartedAt = performance.now();
      signalGroup(pid, 'SIGTERM');
      killTimer = setTimeout(() => signalGroup(pid, 'SIGKILL'), grace);
    };

    // The timeout is the command's: with promised descriptor data (bwrap's options, decided by
    // walks that run meanwhile) it starts once that data is written, not while the child waits.
    let timeoutTimer: NodeJS.Timeout | undefined;
    const startTimeout = (): void => {
      if (exit !== null || settled) return;
      timeoutTimer = setTimeout(() => {
        timedOut = true;
        terminate();
      }, options.timeoutMs);
    };
    const promised = (options.descriptorData ?? []).filter((data) => !Buffer.isBuffer(data));
    if (promised.length === 0) startTimeout();
    else Promise.all(promised).then(startTimeout, () => undefined);

    const onAbort = (): void => {
      if (exit !== null) return;
      cancelled = true;
      terminate();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });

    const cleanup = (): void => {
      clearTimeout(timeoutTimer);
      clearTimeout(drainTimer);
      clearTimeout(killTimer);
      options.signal?.removeEventListener('abort', onAbort);
    };

    const finish = async (): Promise<void> => {
      const pid = child.pid;
      if (pid !== undefined && terminateStartedAt !== null) {
        // Wait for the group to die from SIGTERM; the kill timer sends SIGKILL at the end of grace.
        const deadline = terminateStartedAt + grace + DRAIN_AFTER_EXIT_MS;
        while (isProcessGroupAlive(pid) && performance.now() < deadline) await delay(GROUP_POLL_MS);
        if (isProcessGroupAlive(pid)) signalGroup(pid, 'SIGKILL');
      }
      cleanup();
      capture.append(stdoutDecoder.end());
      errorCapture.append(stderrDecoder.end());
      resolve({
        exitCode: exit?.code ?? null,
        signal: exit?.signal ?? null,
        durationMs: performance.now() - started,
        timedOut,
        cancelled,
        output: capture.result(),
        pid: pid ?? null,
        ...(options.separateStderr ? { stderr: errorCapture.result() } : {}),
      });
    };

    child.once('exit', (code, signal) => {
      exit = { code, signal };
      clearTimeout(timeoutTimer);
      options.signal?.removeEventListener('abort', onAbort);
      // Whatever is still in the group was started in the background and would outlive the command.
      if (child.pid !== undefined && isProcessGroupAlive(child.pid)) terminate();
      drainTimer = setTimeout(() => {
        stdout.destroy();
        stderr.destroy();
      }, grace + DRAIN_AFTER_EXIT_MS);
    });

    child.once('close', () => {
      if (settled) return;
      settled = true;
      finish().catch((error: unknown) => {
        cleanup();
        reject(error);
      });
    });

    child.once('error', (error) => {
      // 'error' without 'exit' means the process never started (missing binary, bad cwd).
      if (settled || exit !== null) return;
      settled = true;
      cleanup();
      reject(error);
    });
  });
}
