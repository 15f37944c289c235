// Bash as the oracle for "known safe": run commands the way the shell tool runs them (the same
// `bash -c` wrapper, resource limits included, stdin closed) under strace, in a scratch project,
// and report for each command every program it started and every write it attempted. The
// classifier's claim is checked against what bash really did, not against a list of payloads.

import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { defaultResourceLimits, limitedShellArgs } from '../../src/sandbox/index.js';

export function straceAvailable(): boolean {
  return spawnSync('strace', ['-V'], { stdio: 'ignore' }).status === 0;
}

export interface OracleReport {
  /** Basenames of every program a command's processes executed (its own bash excluded). */
  programs: string[];
  /** Paths opened for writing, created, removed, renamed or re-permissioned (attempts count). */
  writes: string[];
  /** It had not ended after a few seconds and was killed. */
  timedOut: boolean;
}

const execFileAsync = promisify(execFile);
const MARKER = 'glassbox-oracle-sample-';
const WRITE_FLAGS = /O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND/;
const WRITE_CALLS =
  /^(mkdir|mkdirat|rename|renameat|renameat2|unlink|unlinkat|rmdir|link|linkat|symlink|symlinkat|truncate|chmod|fchmodat|utimensat|chown|fchownat|lchown|creat)\(/;

/**
 * Runs every command in `commands` (in `cwd`) under strace, a few at a time side by side, and
 * returns a report per command. `env` is the whole environment of the commands.
 */
export async function runUnderBash(
  commands: readonly string[],
  cwd: string,
  env: Record<string, string>,
  logDir: string,
): Promise<OracleReport[]> {
  const parts = 2;
  const indexes = commands.map((_, index) => index);
  const chunks = Array.from({ length: parts }, (_, part) => indexes.filter((index) => index % parts === part));
  const reports: OracleReport[] = new Array(commands.length);
  await Promise.all(
    chunks.map(async (chunk, part) => {
      const chunkReports = await traceChunk(
        chunk.map((index) => commands[index]!),
        cwd,
        env,
        join(logDir, `oracle-${part}`),
      );
      for (const [position, index] of chunk.entries()) reports[index] = chunkReports[position]!;
    }),
  );
  return reports;
}

async function traceChunk(commands: readonly string[], cwd: string, env: Record<string, string>, prefix: string): Promise<OracleReport[]> {
  const [flag, script] = limitedShellArgs('true', defaultResourceLimits(10_000));
  // Each command runs as `bash -c <the tool's wrapper> <marker-N> <command>`; the marker, as $0,
  // names the command's own bash in strace's record of execve. Commands run one after another,
  // each with a few seconds to end; a status file says which were killed for not ending.
  const statuses = `${prefix}.statuses`;
  const wrapper = script!.replaceAll("'", "'\\''");
  const driver = `i=0; for c in "$@"; do timeout -k 1 10 bash ${flag} '${wrapper}' ${MARKER}$i "$c" </dev/null >/dev/null 2>&1; echo "$i $?" >> '${statuses}'; i=$((i+1)); done`;
  const log = `${prefix}.strace`;
  const traced =
    'execve,clone,clone3,fork,vfork,open,openat,creat,mkdir,mkdirat,rename,renameat,renameat2,unlink,unlinkat,rmdir,link,linkat,symlink,symlinkat,truncate,chmod,fchmodat,utimensat,chown,fchownat,lchown';
  const args = ['-f', '--seccomp-bpf', '-qq', '-s', '4096', '-e', `trace=${traced}`, '-e', 'signal=none', '-o', log];
  await execFileAsync('strace', [...args, 'bash', '-c', driver, 'oracle', ...commands], { cwd, env, timeout: 280_000 });
  const reports = parseLog(readFileSync(log, 'utf8'), commands.length);
  for (const line of readFileSync(statuses, 'utf8').split('\n')) {
    const [index, status] = line.split(' ').map(Number);
    if (index !== undefined && (status === 124 || status === 137)) reports[index]!.timedOut = true;
  }
  return reports;
}

function parseLog(text: string, count: number): OracleReport[] {
  const reports: OracleReport[] = Array.from({ length: count }, () => ({ programs: [], writes: [], timedOut: false }));
  const sampleOf = new Map<number, number>();
  // With -f a new process can be logged before its parent's clone returns (a loaded machine runs
  // the child first), so a process's lines wait here until its parent's sample is known.
  const waiting = new Map<number, string[]>();
  const assign = (pid: number, sample: number): void => {
    sampleOf.set(pid, sample);
    const lines = waiting.get(pid);
    waiting.delete(pid);
    for (const call of lines ?? []) handle(pid, call);
  };
  const handle = (pid: number, call: string): void => {
    const child =
      /^(?:clone3?|fork|vfork)\(.*\)\s+=\s+(\d+)$/.exec(call) ?? /^<\.\.\. (?:clone3?|fork|vfork) resumed>.*\)\s+=\s+(\d+)$/.exec(call);
    if (child !== null) {
      const sample = sampleOf.get(pid);
      if (sample !== undefined) assign(Number(child[1]), sample);
      return;
    }
    if (call.startsWith('execve(')) {
      const marker = new RegExp(`"${MARKER}(\\d+)"`).exec(call);
      if (marker !== null && /^execve\("[^"]*\/bash"/.test(call)) {
        // The marked bash starts its sample; what its process did before belongs to no sample.
        waiting.delete(pid);
        sampleOf.set(pid, Number(marker[1]));
        return;
      }
    }
    const sample = sampleOf.get(pid);
    if (sample === undefined) {
      waiting.set(pid, [...(waiting.get(pid) ?? []), call]);
      return;
    }
    if (call.startsWith('execve(')) {
      const program = /^execve\("([^"]*)"/.exec(call)?.[1];
      if (program !== undefined) reports[sample]!.programs.push(basename(program));
      return;
    }
    const path = /"((?:[^"\\]|\\.)*)"/.exec(call)?.[1] ?? '?';
    if (/^(open|openat)\(/.test(call)) {
      // bash opens the terminal read-write when there is one; that is not a write to a file.
      if (WRITE_FLAGS.test(call) && path !== '/dev/null' && path !== '/dev/tty') reports[sample]!.writes.push(path);
    } else if (WRITE_CALLS.test(call)) {
      reports[sample]!.writes.push(`${call.slice(0, call.indexOf('('))} ${path}`);
    }
  };
  for (const line of text.split('\n')) {
    const match = /^(\d+)\s+(.*)$/.exec(line);
    if (match !== null) handle(Number(match[1]), match[2]!);
  }
  return reports;
}

/**
 * Which of `commands` ran the payload? Each runs in plain `bash -c` (as a command string would be
 * run anywhere), with its own marker file name in place of `mark`; a few drivers share the list.
 */
export async function commandsRunningPayload(
  commands: readonly string[],
  mark: string,
  cwd: string,
  env: Record<string, string>,
): Promise<boolean[]> {
  const marked = commands.map((text, index) => text.replaceAll(mark, `${mark}-${index}`));
  // A generated string can block for ever (`cat >(…)` reads a pipe it holds open itself).
  const driver = 'for c in "$@"; do timeout -k 1 2 bash -c "$c" </dev/null >/dev/null 2>&1; done';
  const drivers = 3;
  await Promise.all(
    Array.from({ length: drivers }, (_, part) =>
      execFileAsync('bash', ['-c', driver, 'reach', ...marked.filter((_, index) => index % drivers === part)], {
        cwd,
        env,
        timeout: 120_000,
      }).catch(() => {}),
    ),
  );
  return commands.map((_, index) => existsSync(join(cwd, `${mark}-${index}`)));
}
