// Memory, CPU and process-count bounds for every command the model runs. A timeout ends a command
// that runs too long, but not before a runaway allocation (`jq -n '[range(1e10)]'`) has taken the
// machine's memory or a fork bomb its process table, and not a process that escaped the process
// group. Node cannot set rlimits on a child, and bubblewrap has no option for them, so the shell
// that runs the command sets them on itself (`ulimit`, soft and hard, so the command cannot raise
// them again) and then evaluates the command in the same process: no extra exec, and `eval` parses
// the string as `bash -c` would.

import { readFileSync, readdirSync } from 'node:fs';
import { availableParallelism, totalmem } from 'node:os';

export interface ResourceLimits {
  /** RLIMIT_DATA per process, in bytes: heap and private writable mappings. */
  dataBytes: number;
  /** RLIMIT_CPU per process, in seconds of CPU time. */
  cpuSeconds: number;
  /**
   * Tasks (processes and threads) the sandboxed command may have at once: RLIMIT_NPROC inside the
   * sandbox, plus a pids cgroup where one can be made (process-cgroup.ts), since root ignores
   * RLIMIT_NPROC. Not applied to a command run outside the sandbox, where RLIMIT_NPROC would count
   * every process the user runs.
   */
  processes: number;
}

const GIB = 1024 ** 3;

/**
 * Half the machine's memory, between 1 and 16 GiB, per process; CPU time the timeout allows on
 * every core, so only a process that outlives its call (or spins on all cores) reaches it.
 * RLIMIT_DATA rather than RLIMIT_AS, because runtimes such as V8 and the JVM reserve far more
 * address space than they use and would not start under an address-space limit.
 */
export function defaultResourceLimits(timeoutMs: number): ResourceLimits {
  return {
    dataBytes: Math.min(16 * GIB, Math.max(GIB, Math.floor(totalmem() / 2))),
    cpuSeconds: Math.max(1, Math.ceil(timeoutMs / 1000)) * availableParallelism(),
    processes: defaultProcessLimit(),
  };
}

/**
 * 64 tasks per core, between 1,024 and 8,192: room for a parallel build or test run (a Node
 * process has about ten threads, a JVM a few dozen) and far below the kernel's pid limit
 * (32,768 by default), so a fork bomb ends in EAGAIN instead of taking the machine.
 */
export function defaultProcessLimit(): number {
  return Math.min(8_192, Math.max(1_024, 64 * availableParallelism()));
}

function checkLimits(limits: ResourceLimits): void {
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name} must be a positive whole number, got ${value}.`);
  }
}

/**
 * argv (after the program, `bash`) that sets the limits and then runs `command`. A limit the
 * shell cannot set is already lower (only raising above the hard limit fails), so such a failure
 * is ignored. `set --` leaves the command with no positional parameters, as under `bash -c`.
 * `processTasks` is the RLIMIT_NPROC to set (see `sandboxTaskLimit`); absent, none is set.
 */
export function limitedShellArgs(command: string, limits: ResourceLimits, processTasks?: number): string[] {
  checkLimits(limits);
  const dataKib = Math.max(1, Math.floor(limits.dataBytes / 1024));
  // Descriptors above 2 are closed first: Glassbox may have inherited some (a socket, a directory)
  // from whatever started it, and Node passes them on to every child.
  let script =
    'for f in /proc/self/fd/*; do n=${f##*/}; case $n in 0|1|2) ;; *) eval "exec $n>&-" 2>/dev/null ;; esac; done; ' +
    `ulimit -d ${dataKib} 2>/dev/null; ulimit -t ${limits.cpuSeconds} 2>/dev/null; `;
  if (processTasks !== undefined) {
    if (!Number.isSafeInteger(processTasks) || processTasks < 1)
      throw new Error(`processTasks must be a positive whole number, got ${processTasks}.`);
    script += `ulimit -u ${processTasks} 2>/dev/null; `;
  }
  script += 'eval "set --; $1"';
  return ['-c', script, 'bash', command];
}

/**
 * The RLIMIT_NPROC that gives a sandboxed command `processes` tasks. Since Linux 5.14 the limit
 * counts the tasks of the user in the sandbox's own user namespace (which bwrap makes for anyone
 * but root), so it is `processes` itself; older kernels count every task the user runs, so those
 * already running are added. Root ignores RLIMIT_NPROC altogether; the pids cgroup covers it.
 */
export function sandboxTaskLimit(processes: number, kernelRelease: string, userTasks: () => number): number {
  const match = /^(\d+)\.(\d+)/.exec(kernelRelease);
  const major = Number(match?.[1] ?? 0);
  const minor = Number(match?.[2] ?? 0);
  const perNamespace = major > 5 || (major === 5 && minor >= 14);
  return perNamespace ? processes : processes + userTasks();
}

/** Tasks (threads) whose real uid is ours, from /proc: what RLIMIT_NPROC counts on kernels before 5.14. */
export function countUserTasks(uid: number): number {
  let tasks = 0;
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return 0;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    let status: string;
    try {
      status = readFileSync(`/proc/${name}/status`, 'utf8');
    } catch {
      continue;
    }
    const realUid = /^Uid:\s+(\d+)/m.exec(status)?.[1];
    if (Number(realUid) !== uid) continue;
    tasks += Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? 1);
  }
  return tasks;
}
