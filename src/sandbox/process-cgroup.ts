// A pids cgroup per sandboxed command, where Glassbox may make one. RLIMIT_NPROC bounds a fork
// bomb for every user but root, whom the kernel exempts; CI containers run as root. The pids
// controller counts every task in the cgroup, whoever owns it, and fork fails with EAGAIN at
// `pids.max`. The sandbox's first process joins the cgroup before it starts bwrap, so everything
// the command starts is inside from the start (a pid written after spawn would race its forks).
//
// Where it works: a cgroup v1 pids hierarchy Glassbox can write to (root in most containers and
// hosts with v1), or a cgroup v2 directory whose subtree already has the pids controller enabled.
// On a v2 host Glassbox usually sits in a cgroup that holds processes, where the kernel refuses to
// enable controllers for children, and Glassbox does not move processes to make room: there, root
// has no process limit (docs/permissions.md).

import { randomBytes } from 'node:crypto';
import { rmdirSync } from 'node:fs';
import { mkdir, readFile, readdir, rmdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { isInside } from '../workspace/index.js';

export interface ProcessCgroup {
  /** The `cgroup.procs` file the sandbox's first process writes its own pid to. */
  procsFile: string;
  /** Waits (bounded) for the cgroup to empty and removes it. Never throws; need not be awaited. */
  release(): Promise<void>;
}

const PREFIX = 'glassbox-';
const RELEASE_WAIT_MS = 5_000;
/**
 * The first retry comes soon: the namespace's last processes are usually gone within a
 * millisecond or two, and a fixed 10 ms wait was paid by about a third of all commands.
 */
const RELEASE_FIRST_POLL_MS = 1;
const RELEASE_POLL_MS = 10;

let parentProbe: Promise<string | null> | null = null;
let sequence = 0;

interface MountEntry {
  root: string;
  mountPoint: string;
  fsType: string;
  superOptions: string[];
}

/** /proc/self/mountinfo: `id parent major:minor root mount-point options … - fstype source super-options`. */
function parseMountInfo(text: string): MountEntry[] {
  const entries: MountEntry[] = [];
  for (const line of text.split('\n')) {
    const fields = line.split(' ');
    const separator = fields.indexOf('-');
    if (separator < 6 || fields.length < separator + 4) continue;
    entries.push({
      root: unescapeMountField(fields[3]!),
      mountPoint: unescapeMountField(fields[4]!),
      fsType: fields[separator + 1]!,
      superOptions: fields[separator + 3]!.split(','),
    });
  }
  return entries;
}

/** The kernel writes space, tab, newline and backslash in mountinfo as octal escapes. */
function unescapeMountField(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_match, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

function locate(mount: MountEntry, cgroupPath: string): string | null {
  if (!isInside(mount.root, cgroupPath)) return null;
  return join(mount.mountPoint, relative(mount.root, cgroupPath));
}

/** The directory under which per-command pids cgroups can be made, or null. */
export async function findPidsParent(): Promise<string | null> {
  try {
    const [cgroups, mountInfo] = await Promise.all([readFile('/proc/self/cgroup', 'utf8'), readFile('/proc/self/mountinfo', 'utf8')]);
    const mounts = parseMountInfo(mountInfo);
    for (const line of cgroups.split('\n')) {
      const match = /^(\d+):([^:]*):(.*)$/.exec(line);
      if (match === null) continue;
      const [, hierarchy, controllers, path] = match as unknown as [string, string, string, string];
      if (hierarchy !== '0' && controllers.split(',').includes('pids')) {
        const mount = mounts.find((entry) => entry.fsType === 'cgroup' && entry.superOptions.includes('pids'));
        const dir = mount === undefined ? null : locate(mount, path);
        if (dir !== null) return dir;
      }
      if (hierarchy === '0' && controllers === '') {
        const mount = mounts.find((entry) => entry.fsType === 'cgroup2');
        const dir = mount === undefined ? null : locate(mount, path);
        if (dir === null) continue;
        const enabled = await readFile(join(dir, 'cgroup.subtree_control'), 'utf8').catch(() => '');
        if (enabled.split(/\s+/).includes('pids')) return dir;
      }
    }
  } catch {
    // No /proc, or a kernel without cgroups: no cgroup limit.
  }
  return null;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the empty cgroups of Glassbox processes that ended before they could (crashed, killed). */
async function removeStale(parent: string): Promise<void> {
  const names = await readdir(parent).catch(() => [] as string[]);
  for (const name of names) {
    const owner = new RegExp(`^${PREFIX}(\\d+)-`).exec(name);
    if (owner !== null && !isAlive(Number(owner[1]))) await rmdir(join(parent, name)).catch(() => {});
  }
}

async function probeParent(): Promise<string | null> {
  const parent = await findPidsParent();
  if (parent !== null) await removeStale(parent);
  return parent;
}

/** Made ahead for the next command, by limit; removed when the process exits if never used. */
const spares = new Map<number, Promise<string | null>>();
const unused = new Set<string>();
let exitHookInstalled = false;

async function makeCgroup(maxTasks: number): Promise<string | null> {
  parentProbe ??= probeParent();
  const parent = await parentProbe;
  if (parent === null) return null;
  sequence += 1;
  const dir = join(parent, `${PREFIX}${process.pid}-${sequence}-${randomBytes(4).toString('hex')}`);
  try {
    await mkdir(dir);
  } catch {
    return null;
  }
  try {
    await writeFile(join(dir, 'pids.max'), String(maxTasks));
  } catch {
    await rmdir(dir).catch(() => {});
    return null;
  }
  return dir;
}

function prepareSpare(maxTasks: number): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const dir of unused) {
        try {
          rmdirSync(dir);
        } catch {
          // Swept by the next Glassbox process (removeStale).
        }
      }
    });
  }
  const spare = makeCgroup(maxTasks).then((dir) => {
    if (dir !== null) unused.add(dir);
    return dir;
  });
  spares.set(maxTasks, spare);
}

/**
 * A new pids cgroup allowing `maxTasks` tasks, or null where none can be made here. Making one
 * (mkdir, write pids.max) costs a few milliseconds, so the next command's is made ahead, while
 * this one runs.
 */
export async function createProcessCgroup(maxTasks: number): Promise<ProcessCgroup | null> {
  if (!Number.isSafeInteger(maxTasks) || maxTasks < 1) throw new Error(`maxTasks must be a positive whole number, got ${maxTasks}.`);
  const ready = spares.get(maxTasks);
  spares.delete(maxTasks);
  const dir = await (ready ?? makeCgroup(maxTasks));
  if (dir !== null) unused.delete(dir);
  // Where no cgroup can be made, do not keep trying ahead of time.
  if (dir !== null) prepareSpare(maxTasks);
  if (dir === null) return null;
  return { procsFile: join(dir, 'cgroup.procs'), release: () => release(dir) };
}

/**
 * The command has ended by now and bwrap's pid 1 with it, so the kernel is killing whatever was
 * left in the sandbox's pid namespace; the cgroup can be removed once they are gone. Nothing is
 * signalled from here: a pid read from cgroup.procs may be reused by the time it is signalled.
 */
async function release(dir: string): Promise<void> {
  const deadline = Date.now() + RELEASE_WAIT_MS;
  let wait = RELEASE_FIRST_POLL_MS;
  for (;;) {
    try {
      await rmdir(dir);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code !== 'EBUSY' || Date.now() > deadline) return;
    }
    await delay(wait);
    wait = Math.min(wait * 2, RELEASE_POLL_MS);
  }
}
