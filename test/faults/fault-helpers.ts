// Shared by the fault suite: seeded randomness, throwaway projects, in-process and child-process
// turns, and the checks every fault test ends with — the session file only grew, it replays
// without problems, and a resumed turn sends the provider exactly the history the file holds.

import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { NO_APPROVER, type ResponseItem, type RunEvent, type TerminalRunEvent } from '../../src/agent/index.js';
import { createGateway, type WireApi } from '../../src/model/index.js';
import { openRunner, runTurn } from '../../src/runner/index.js';
import { JsonlSessionStore } from '../../src/sessions/index.js';
import type { CapturedRequest } from '../../src/testing/index.js';
import { REPO_ROOT, type CliResult } from '../helpers/run-cli.js';
import {
  assertAppendOnly,
  assertSentHistory,
  assertStoreReplays,
  type SessionSnapshot,
  snapshotOfText,
} from '../helpers/session-checks.js';
import { makeTempDir } from '../helpers/temp-dir.js';

/** `GLASSBOX_FAULTS_NIGHTLY=1`: the big variants (more kill points, a 1 GB session, more clients). */
export const NIGHTLY = process.env.GLASSBOX_FAULTS_NIGHTLY === '1';

export const WIRE_APIS_UNDER_TEST: readonly WireApi[] = ['chat', 'responses'];

// The compiled CLI, as test/helpers/run-cli.ts uses it: `npm run test:faults` rebuilds dist/ first,
// and a child started from dist/ costs a fraction of one that compiles every source through tsx.
// GLASSBOX_FAULTS_CLI=<path to bin/glassbox.js> runs the suite against another build.
export const CLI_ENTRY = process.env.GLASSBOX_FAULTS_CLI?.trim() || join(REPO_ROOT, 'bin', 'glassbox.js');

// ---------------------------------------------------------------------------------------------
// Seeded randomness

/** A small deterministic PRNG (mulberry32): the same seed gives the same kill points everywhere. */
export class SeededRandom {
  private state: number;

  constructor(readonly seed: number) {
    if (!Number.isInteger(seed)) throw new Error(`seed must be an integer, got ${seed}`);
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max], both included. */
  int(min: number, max: number): number {
    if (max < min) throw new Error(`empty range [${min}, ${max}]`);
    return min + Math.floor(this.next() * (max - min + 1));
  }
}

/** The seed from `GLASSBOX_FAULTS_SEED`, or the given default, so a failure can be replayed exactly. */
export function suiteSeed(fallback: number): number {
  const raw = process.env.GLASSBOX_FAULTS_SEED;
  if (raw === undefined || raw.trim() === '') return fallback;
  const seed = Number(raw);
  if (!Number.isInteger(seed)) throw new Error(`GLASSBOX_FAULTS_SEED must be an integer, got ${JSON.stringify(raw)}`);
  return seed;
}

// ---------------------------------------------------------------------------------------------
// Projects and failure context

export interface FaultProject {
  base: string;
  root: string;
  home: string;
  sessionsDir: string;
}

const DEFAULT_FILES: Record<string, string> = {
  'README.md': '# Fault project\n\nA small project the fault suite runs the agent on.\n',
  'notes.txt': 'remember the milk\nand the bread\n',
  'src/main.ts': 'export const answer = 42;\n',
};

export async function makeProject(files: Record<string, string> = DEFAULT_FILES): Promise<FaultProject> {
  const base = await makeTempDir();
  const root = join(base, 'project');
  const home = join(base, 'home');
  await mkdir(root, { recursive: true });
  for (const [name, text] of Object.entries(files)) {
    await mkdir(join(root, name, '..'), { recursive: true });
    await writeFile(join(root, name), text);
  }
  return { base, root, home, sessionsDir: join(home, 'sessions') };
}

/**
 * Run `fn` with a fresh project. On success the directory is removed; on failure it is kept and
 * the error says where it is and what `label` was, so the session files can be inspected.
 */
export async function inProject<T>(label: string, fn: (project: FaultProject) => Promise<T>, files?: Record<string, string>): Promise<T> {
  const project = await makeProject(files);
  try {
    const result = await fn(project);
    await rm(project.base, { recursive: true, force: true });
    return result;
  } catch (error) {
    throw annotate(error, `${label}; files kept in ${project.base}`);
  }
}

/** Prefix an assertion's message with what was being tested, keeping its stack and details. */
export function annotate(error: unknown, context: string): Error {
  if (error instanceof Error) {
    error.message = `[${context}] ${error.message}`;
    return error;
  }
  return new Error(`[${context}] ${String(error)}`);
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// ---------------------------------------------------------------------------------------------
// Turns in this process

export interface InProcessTurnOptions {
  project: FaultProject;
  wireApi: WireApi;
  baseURL: string;
  prompt: string;
  resume?: string | null;
  apiKey?: string;
  /** Per-attempt gateway timeout (inactivity timeout for streams). */
  timeoutMs?: number;
  maxAttempts?: number;
  signal?: AbortSignal;
}

export interface InProcessTurn {
  sessionId: string;
  terminal: TerminalRunEvent;
  events: RunEvent[];
}

/** One turn through the real runner, gateway and JSONL store, with retry delays shrunk to milliseconds. */
export async function turnInProcess(options: InProcessTurnOptions): Promise<InProcessTurn> {
  const gateway = createGateway({
    wireApi: options.wireApi,
    baseURL: options.baseURL,
    apiKey: options.apiKey ?? 'sk-fault',
    timeoutMs: options.timeoutMs,
    retry: { baseDelayMs: 2, maxDelayMs: 10, random: () => 0.5, ...(options.maxAttempts ? { maxAttempts: options.maxAttempts } : {}) },
  });
  const runner = await openRunner({
    root: options.project.root,
    home: options.project.home,
    model: 'test-model',
    wireApi: options.wireApi,
    gateway,
    sandbox: 'read-only',
    approvalPolicy: 'on-request',
    network: false,
  });
  const events: RunEvent[] = [];
  const result = await runTurn(runner, {
    prompt: options.prompt,
    resume: options.resume ?? null,
    runId: randomUUID(),
    signal: options.signal ?? new AbortController().signal,
    approvals: NO_APPROVER,
    onEvent: (event) => events.push(event),
  });
  return { sessionId: result.sessionId, terminal: result.terminal, events };
}

// ---------------------------------------------------------------------------------------------
// CLI children

export interface CliChild {
  child: ChildProcess;
  done: Promise<CliResult>;
}

const MAX_RSS_MARKER = 'GLASSBOX_FAULTS_MAXRSS=';
// Preloaded into a measured child: reports its own peak RSS (KiB) on stderr as it exits.
const MAX_RSS_REPORTER = `data:text/javascript,${encodeURIComponent(
  `import { writeSync } from 'node:fs'; process.on('exit', () => { try { writeSync(2, '\\n${MAX_RSS_MARKER}' + process.resourceUsage().maxRSS + '\\n'); } catch {} });`,
)}`;

export interface StartOptions {
  /** Preload a reporter of the child's own peak RSS; read it with `maxRssBytes`. */
  measureRss?: boolean;
  /** Sees stdout as it arrives (for kills at an event). */
  onStdout?: (chunk: string) => void;
  /** false: count stdout instead of keeping it (for commands that print a lot). */
  keepStdout?: boolean;
  /** A command that runs node for us, e.g. `['sh', '-c', 'ulimit -f 40; exec "$@"', 'sh']`. */
  wrapper?: string[];
}

/** The compiled CLI in a child process. */
export function startGlassbox(args: string[], env: NodeJS.ProcessEnv, options: StartOptions = {}): CliChild {
  const preload = options.measureRss ? ['--import', MAX_RSS_REPORTER] : [];
  const nodeArgs = [...preload, CLI_ENTRY, ...args];
  const [command, ...commandArgs] = options.wrapper ? [...options.wrapper, process.execPath, ...nodeArgs] : [process.execPath, ...nodeArgs];
  const child = spawn(command!, commandArgs, {
    env,
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stdoutChars = 0;
  let stderr = '';
  child.stdout!.setEncoding('utf8');
  child.stderr!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => {
    stdoutChars += chunk.length;
    if (options.keepStdout !== false) stdout += chunk;
    options.onStdout?.(chunk);
  });
  child.stderr!.on('data', (chunk: string) => (stderr += chunk));
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) =>
      resolve({ code, signal, stdout: options.keepStdout === false ? `(${stdoutChars} chars)` : stdout, stderr }),
    );
  });
  return { child, done };
}

/** The peak RSS a measured child reported, in bytes. */
export function maxRssBytes(result: CliResult): number {
  const line = result.stderr.split('\n').find((text) => text.startsWith(MAX_RSS_MARKER));
  assert.ok(line, `the child did not report its peak RSS; stderr:\n${result.stderr.slice(-2000)}`);
  return Number(line.slice(MAX_RSS_MARKER.length)) * 1024;
}

/** Stderr without the RSS report line. */
export function plainStderr(result: CliResult): string {
  return result.stderr
    .split('\n')
    .filter((line) => !line.startsWith(MAX_RSS_MARKER))
    .join('\n')
    .trim();
}

export function parseJsonLines(stdout: string): Array<Record<string, unknown>> {
  // A child killed mid-write can leave half a line at the end; only whole lines are events.
  const lines = stdout.split('\n');
  lines.pop();
  return lines.filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as Record<string, unknown>);
}

// ---------------------------------------------------------------------------------------------
// Session files: the checks themselves are test/helpers/session-checks.ts, shared with the team
// tests, which hold a PostgreSQL session to them.

export {
  assertAppendOnly,
  assertSentHistory,
  assertWellFormedHistory,
  expectedHistory,
  itemTranscript,
  orphanCallIds,
  type SessionSnapshot,
  type TranscriptEntry,
  wireTranscript,
} from '../helpers/session-checks.js';

export function sessionIds(project: FaultProject): string[] {
  let names: string[];
  try {
    names = readdirSync(project.sessionsDir);
  } catch {
    return [];
  }
  return names.filter((name) => /^[0-9a-f-]{36}\.jsonl$/.test(name)).map((name) => name.slice(0, 36));
}

export function sessionPath(project: FaultProject, sessionId: string): string {
  return join(project.sessionsDir, `${sessionId}.jsonl`);
}

/** Read a session file byte-exactly (snapshotOfText: every complete line must be a record). */
export function snapshotSession(project: FaultProject, sessionId: string): SessionSnapshot {
  const path = sessionPath(project, sessionId);
  return snapshotOfText(path, readFileSync(path, 'utf8'));
}

/**
 * Read the session file through the store: no problem lines, and replay (the code under test)
 * gives exactly the independently expected history. Returns that history.
 */
export function assertReplays(project: FaultProject, sessionId: string): Promise<ResponseItem[]> {
  return assertStoreReplays(new JsonlSessionStore(project.sessionsDir), sessionId, snapshotSession(project, sessionId));
}

/**
 * The end of every fault test: the file replays to the committed items, a resumed turn (run by
 * `resume`, which returns the first provider request it made) succeeds and sends that history,
 * and resuming only appended to the file.
 */
export async function assertResumes(
  project: FaultProject,
  sessionId: string,
  resume: (prompt: string) => Promise<CapturedRequest | undefined>,
  where: string,
): Promise<void> {
  const before = snapshotSession(project, sessionId);
  const history = await assertReplays(project, sessionId);
  const prompt = `continue after ${where}`;
  const request = await resume(prompt);
  assertSentHistory(request, history, prompt, where);
  const after = snapshotSession(project, sessionId);
  assertAppendOnly(before, after);
  await assertReplays(project, sessionId);
}
