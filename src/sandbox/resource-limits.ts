// Memory and CPU bounds for every command the model runs. A timeout ends a command that runs too
// long, but not before a runaway allocation (`jq -n '[range(1e10)]'`) has taken the machine's
// memory, and not a process that escaped the process group. Node cannot set rlimits on a child,
// and bubblewrap has no option for them, so the shell that runs the command sets them on itself
// (`ulimit`, soft and hard, so the command cannot raise them again) and then evaluates the
// command in the same process: no extra exec, and `eval` parses the string as `bash -c` would.

import { availableParallelism, totalmem } from 'node:os';

export interface ResourceLimits {
  /** RLIMIT_DATA per process, in bytes: heap and private writable mappings. */
  dataBytes: number;
  /** RLIMIT_CPU per process, in seconds of CPU time. */
  cpuSeconds: number;
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
  };
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
 */
export function limitedShellArgs(command: string, limits: ResourceLimits): string[] {
  checkLimits(limits);
  const dataKib = Math.max(1, Math.floor(limits.dataBytes / 1024));
  const script = `ulimit -d ${dataKib} 2>/dev/null; ulimit -t ${limits.cpuSeconds} 2>/dev/null; eval "set --; $1"`;
  return ['-c', script, 'bash', command];
}
