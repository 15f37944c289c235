// Real team-server processes for the tests: `glassbox serve --no-worker` and `glassbox worker`
// against one database, the HTTP calls they answer, and the small waits the tests share.

import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import type { CapturedRequest } from '../../src/testing/index.js';
import { cliEnv, startCli } from './run-cli.js';

export interface Gate {
  promise: Promise<void>;
  open(): void;
}
export function gate(): Gate {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

export async function waitFor<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The first user message's text: which scripted conversation a request belongs to. */
export function promptOf(request: CapturedRequest): string {
  const messages = (request.body.messages ?? []) as Array<{ role: string; content: unknown }>;
  const user = messages.find((message) => message.role === 'user');
  return typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content ?? '');
}
export function toolResults(request: CapturedRequest): number {
  return ((request.body.messages ?? []) as Array<{ role: string }>).filter((message) => message.role === 'tool').length;
}

/** A run as `GET /api/runs` lists it. */
export interface ListedRun {
  runId: string;
  status: string;
  state: string;
  attempts: number;
  worker: { id: string; host: string; pid: number } | null;
  sessionId: string;
}

export interface TeamProcesses {
  /** Starts `glassbox serve --no-worker`; resolves with its origin once it listens. */
  startServer(name: string): Promise<string>;
  /** Starts `glassbox worker`; resolves once it works runs. */
  startWorker(name: string): Promise<ChildProcess>;
  api(origin: string, path: string, init?: RequestInit): Promise<Response>;
  post(origin: string, path: string, body: unknown): Promise<Response>;
  /** `POST /api/runs` (sandbox workspace-write, no approvals unless `body` says otherwise). */
  startRun(origin: string, body: Record<string, unknown>): Promise<{ runId: string; response: Response }>;
  listRuns(origin: string): Promise<ListedRun[]>;
  /** What every process wrote to stderr so far, one entry per chunk, prefixed with its name. */
  readonly logs: readonly string[];
}

/**
 * Every process is killed when the test ends; their stderr is printed then with TEAM_TEST_DEBUG=1.
 * `args` are the options every server and worker gets (model, project, lease, …).
 */
export function teamProcesses(
  t: TestContext,
  options: { token: string; databaseUrl: string; base: string; args: readonly string[] },
): TeamProcesses {
  const children: ChildProcess[] = [];
  const logs: string[] = [];
  t.after(() => {
    if (process.env.TEAM_TEST_DEBUG) process.stderr.write(logs.join(''));
    for (const child of children) child.kill('SIGKILL');
  });
  const env = (name: string) =>
    cliEnv({
      OPENAI_API_KEY: 'sk-test',
      GLASSBOX_TOKEN: options.token,
      GLASSBOX_DATABASE_URL: options.databaseUrl,
      GLASSBOX_HOME: join(options.base, `home-${name}`),
    });
  const spawnCli = (name: string, args: string[]): { child: ChildProcess; done: ReturnType<typeof startCli>['done'] } => {
    const started = startCli(args, env(name));
    children.push(started.child);
    started.child.stderr!.on('data', (chunk: Buffer) => logs.push(`[${name}] ${chunk}`));
    return started;
  };
  const api = (origin: string, path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${options.token}`);
    return fetch(`${origin}${path}`, { ...init, headers });
  };
  const post = (origin: string, path: string, body: unknown) =>
    api(origin, path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return {
    logs,
    startServer(name) {
      const { child, done } = spawnCli(name, ['serve', '--port', '0', '--no-worker', ...options.args]);
      let stdout = '';
      return new Promise<string>((resolve, reject) => {
        child.stdout!.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          if (stdout.includes('\n')) resolve(new URL(stdout.trim()).origin);
        });
        void done.then((result) => reject(new Error(`serve ${name} exited: ${result.stderr}`)));
      });
    },
    startWorker(name) {
      const { child, done } = spawnCli(name, ['worker', ...options.args]);
      let stderr = '';
      return new Promise<ChildProcess>((resolve, reject) => {
        child.stderr!.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          if (stderr.includes('Ctrl-C to stop')) resolve(child);
        });
        void done.then((result) => reject(new Error(`worker ${name} exited (${result.code}): ${result.stderr}`)));
      });
    },
    api,
    post,
    async startRun(origin, body) {
      const response = await post(origin, '/api/runs', { sandbox: 'workspace-write', approvalPolicy: 'never', ...body });
      if (response.status !== 200) assert.fail(`POST /api/runs: ${response.status} ${await response.text()}`);
      return { runId: response.headers.get('x-run-id')!, response };
    },
    async listRuns(origin) {
      return ((await (await api(origin, '/api/runs')).json()) as { runs: ListedRun[] }).runs;
    },
  };
}
