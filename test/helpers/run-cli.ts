import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildReady } from './build-ready.js';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
// The compiled CLI: `npm test` rebuilds dist/ (tests of built code wait for it), and a child started from
// dist/ costs a fraction of one that compiles every source file through tsx again.
const ENTRY = fileURLToPath(new URL('../../bin/glassbox.js', import.meta.url));
// Every test that starts the CLI imports this file, so none starts before the build is in place.
await buildReady();

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Environment for a CLI child: no inherited keys or Glassbox settings, only what the test says. */
export function cliEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8', NO_COLOR: '1' };
  return { ...env, ...extra };
}

/**
 * What the child's stdin is besides /dev/null (the default): text or bytes piped in and closed,
 * or 'open-pipe', a pipe the test writes to and ends itself (`child.stdin`).
 */
export type CliStdin = 'open-pipe' | string | Buffer;

export function startCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd = REPO_ROOT,
  stdin?: CliStdin,
): { child: ChildProcess; done: Promise<CliResult> } {
  const child = spawn(process.execPath, [ENTRY, ...args], { env, cwd, stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
  if (stdin !== undefined && stdin !== 'open-pipe') {
    // The child may stop reading early (over a size limit): its EPIPE is part of the test, not a failure.
    child.stdin!.on('error', () => {});
    child.stdin!.end(stdin);
  }
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, done };
}

export function runCli(args: string[], env: NodeJS.ProcessEnv, cwd?: string, stdin?: CliStdin): Promise<CliResult> {
  return startCli(args, env, cwd, stdin).done;
}

export function jsonLines(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
