// The OS sandbox: bubblewrap builds a private mount namespace from an empty root that shows only
// what host-view.ts allows (system trees, toolchain directories), read-only; the project is the only
// writable tree (in workspace-write) beside private /tmp and /var/tmp; secrets are covered; /run is
// empty; and the network namespace is empty unless network is allowed. Building the argument list
// is pure so it can be tested line by line; whether bwrap actually works on this machine is proven
// once by running it.

import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { isInside } from '../workspace/index.js';
import { PRIVATE_DIRECTORIES, RUNTIME_DIRECTORY, type HostMount, type HostView } from './host-view.js';
import type { ProtectedPath } from './protected-paths.js';
import { limitedShellArgs, type ResourceLimits } from './resource-limits.js';
import { checkConfiguredProgram, findTrustedProgram, type ProgramLookup } from './trusted-program.js';

export type SandboxedMode = 'read-only' | 'workspace-write';

export interface BubblewrapSpec {
  /** Real path of the project root. */
  root: string;
  /** Absolute working directory inside the root. */
  workdir: string;
  mode: SandboxedMode;
  network: boolean;
  /** Leave secret files of the project readable (still read-only). */
  secretsApproved: boolean;
  /** What to freeze or mask, from `findProtectedPaths`. */
  protectedPaths: readonly ProtectedPath[];
  /** What of the host to show, from `findHostView`. */
  view: HostView;
  command: string;
  /** Memory, CPU and process bounds the shell sets on itself before the command; none when absent. */
  limits?: ResourceLimits;
  /** The RLIMIT_NPROC to set with `limits` (`sandboxTaskLimit`); default `limits.processes`. */
  processTasks?: number;
  /**
   * The shell, by absolute path (default /bin/bash): bwrap would otherwise look `bash` up on the
   * command's PATH, where a project directory (`.venv/bin`) could put its own in front, and the
   * limits above would be set by a shell the project wrote.
   */
  bash?: string;
  /** A descriptor on which bwrap reads a seccomp filter (`keyringSeccompFilter`). */
  seccompFd?: number;
  /** False for a bwrap without `--size` (`tmpfsSizeSupported`): the tmpfs mounts are then unbounded. */
  sizedTmpfs?: boolean;
}

/**
 * Parts of /proc that write to the kernel or read its keys. bwrap covers some of them read-only
 * only when it runs unprivileged; as root (no user namespace) the sandbox would get the host's
 * /proc/sys, where uid 0 needs no capability to set `kernel.core_pattern` to a program the kernel
 * then runs as real root. So they are covered here, in every case.
 */
const PROC_READ_ONLY = ['/proc/sys', '/proc/sysrq-trigger', '/proc/irq', '/proc/bus', '/proc/fs'];
const PROC_HIDDEN_FILES = ['/proc/kcore', '/proc/keys', '/proc/key-users', '/proc/timer_list', '/proc/sched_debug'];

/**
 * How much each writable tmpfs may hold: their pages are memory no per-process limit counts, so
 * together (/tmp half, /var/tmp and /dev/shm a quarter each) they stay within the command's
 * memory limit.
 */
function tmpfsSizes(limits: ResourceLimits | undefined): { tmp: number; quarter: number } {
  const total = limits?.dataBytes ?? 1024 ** 3;
  return { tmp: Math.floor(total / 2), quarter: Math.floor(total / 4) };
}

const PRIVATE_TMP = '/tmp';

function assertAbsolute(name: string, path: string): void {
  if (!isAbsolute(path)) throw new Error(`${name} must be an absolute path, got ${JSON.stringify(path)}.`);
  if (path.includes('\0')) throw new Error(`${name} contains a NUL byte.`);
}

function byPath(a: ProtectedPath, b: ProtectedPath): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

/** `.git` and approved secrets stay readable but must not change; everything else is hidden. */
function action(entry: ProtectedPath, spec: BubblewrapSpec): 'mask' | 'freeze' {
  if (entry.reason === 'git') return 'freeze';
  if (entry.reason === 'secret-file' && spec.secretsApproved) return 'freeze';
  return 'mask';
}

function mask(entry: ProtectedPath): string[] {
  return entry.kind === 'file' ? ['--ro-bind', '/dev/null', entry.path] : ['--tmpfs', entry.path];
}

function mount(entry: HostMount): string[] {
  if (entry.kind === 'ro-bind') return ['--ro-bind', entry.path, entry.path];
  return ['--symlink', entry.target, entry.path];
}

function checkView(view: HostView): void {
  for (const entry of [...view.system, ...view.extras]) {
    assertAbsolute('shown path', entry.path);
    if (entry.kind === 'symlink' && entry.target.includes('\0')) throw new Error('a symlink target contains a NUL byte.');
  }
  for (const path of view.covered) assertAbsolute('covered path', path);
}

/** Whether the sandbox shows `path` (a real path outside the root): the deepest mount over it is a bind, not a tmpfs. */
function shownOutside(view: HostView, path: string): boolean {
  let bind = -1;
  let hidden = -1;
  for (const entry of [...view.system, ...view.extras]) {
    if (entry.kind === 'ro-bind' && entry.path.length > bind && isInside(entry.path, path)) bind = entry.path.length;
  }
  for (const dir of [...PRIVATE_DIRECTORIES, RUNTIME_DIRECTORY, ...view.covered]) {
    if (dir.length > hidden && isInside(dir, path)) hidden = dir.length;
  }
  return bind > hidden;
}

/**
 * The full bwrap argument list for one command, ending in `bash -c <command>`.
 *
 * Order matters because later mounts cover earlier ones: the system trees, the private and empty
 * directories, the rest of what the host shows, masks for secrets in what is shown outside the
 * project, the project itself, then `.git` and secrets inside it. That way a mask that is an
 * ancestor of the root does not hide the project, and the project bind does not uncover what is
 * masked inside it. Last, the sandbox's own root is made read-only, so the directories bwrap
 * created there (mount points, $HOME) cannot be written.
 */
export function buildBubblewrapArgs(spec: BubblewrapSpec): string[] {
  return [...bubblewrapIsolation(spec), ...buildBubblewrapOptions(spec), ...bubblewrapCommand(spec)];
}

/**
 * The options that need no look at the host: namespaces, capabilities, the seccomp filter. They go
 * on bwrap's own command line even when the rest is read from a descriptor (run-command.ts), so
 * that a list cut short there can only lack mounts: whatever does run (the shell that checks the
 * seal) already has no capabilities, no host network and no way out of its namespaces.
 */
export function bubblewrapIsolation(spec: Pick<BubblewrapSpec, 'network' | 'seccompFd'>): string[] {
  const args = [
    '--unshare-pid',
    // Abstract Unix sockets (the X server's, a D-Bus bus's) belong to the network namespace: only
    // an unshared one hides them. SysV IPC and POSIX message queues: --unshare-ipc.
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    '--die-with-parent',
    // A new session stops the command from pushing keystrokes into our terminal (TIOCSTI).
    '--new-session',
    // When Glassbox runs as root bwrap keeps every capability, and CAP_SYS_ADMIN can simply remount
    // `/` read-write; dropping them all is what makes the read-only binds hold.
    '--cap-drop',
    'ALL',
  ];
  if (!spec.network) args.push('--unshare-net');
  if (spec.seccompFd !== undefined) args.push('--seccomp', String(spec.seccompFd));
  return args;
}

/** The mounts and the working directory (after `bubblewrapIsolation`, before the shell), ending in `--chdir <workdir>`. */
export function buildBubblewrapOptions(spec: BubblewrapSpec): string[] {
  assertAbsolute('root', spec.root);
  assertAbsolute('workdir', spec.workdir);
  if (!isInside(spec.root, spec.workdir)) {
    throw new Error(`workdir ${spec.workdir} is outside the root ${spec.root}.`);
  }
  if (spec.command.trim() === '') throw new Error('command must not be empty.');
  if (spec.bash !== undefined) assertAbsolute('bash', spec.bash);
  for (const entry of spec.protectedPaths) assertAbsolute('protected path', entry.path);
  checkView(spec.view);

  const args: string[] = [];
  for (const entry of spec.view.system) args.push(...mount(entry));
  const sizes = tmpfsSizes(spec.limits);
  args.push('--dev', '/dev', '--proc', '/proc');
  for (const path of PROC_READ_ONLY) args.push('--ro-bind-try', path, path);
  // The sandbox's /proc is the same kernel's: what the host's lacks, it lacks, and bwrap cannot
  // mount over a file that is not there.
  for (const path of PROC_HIDDEN_FILES) if (existsSync(path)) args.push('--ro-bind', '/dev/null', path);
  // /dev itself read-only (device nodes still work); only its shared-memory directory is written.
  const sized = (bytes: number): string[] => (spec.sizedTmpfs === false ? [] : ['--size', String(bytes)]);
  args.push(...sized(sizes.quarter), '--tmpfs', '/dev/shm');
  for (const dir of PRIVATE_DIRECTORIES) args.push(...sized(dir === '/tmp' ? sizes.tmp : sizes.quarter), '--tmpfs', dir);
  // The host's /run holds the sockets of its services (D-Bus, systemd, docker, the user's runtime
  // directory); the sandbox gets an empty one, and /var/run leads there as on the host.
  args.push('--tmpfs', RUNTIME_DIRECTORY, '--symlink', '../run', '/var/run');
  const remountReadOnly: string[] = ['/dev', RUNTIME_DIRECTORY];
  for (const dir of spec.view.covered) {
    args.push('--tmpfs', dir);
    remountReadOnly.push(dir);
  }
  for (const entry of spec.view.extras) args.push(...mount(entry));
  const maskedDirectories = spec.protectedPaths.filter((entry) => entry.kind === 'directory' && action(entry, spec) === 'mask');
  // Anything below a masked directory is already hidden, and binding it would bring it back;
  // except inside the root when the mask is the root's ancestor, since the root bind re-exposes it.
  const hiddenBy = (dir: ProtectedPath, entry: ProtectedPath): boolean =>
    dir.path !== entry.path && isInside(dir.path, entry.path) && !(isInside(dir.path, spec.root) && isInside(spec.root, entry.path));
  const effective = spec.protectedPaths.filter((entry) => !maskedDirectories.some((dir) => hiddenBy(dir, entry)));
  const outside = effective.filter((entry) => !isInside(spec.root, entry.path)).sort(byPath);
  const inside = effective.filter((entry) => isInside(spec.root, entry.path)).sort(byPath);

  for (const entry of outside) {
    // What the sandbox does not show needs no mask (and a mount point would reveal that it
    // exists); outside the root everything shown is read-only already: only masking is left.
    if (!shownOutside(spec.view, entry.path) || action(entry, spec) !== 'mask') continue;
    args.push(...mask(entry));
    if (entry.kind === 'directory') remountReadOnly.push(entry.path);
  }

  args.push(spec.mode === 'workspace-write' ? '--bind' : '--ro-bind', spec.root, spec.root);

  for (const entry of inside) {
    if (entry.path === spec.root) continue;
    const decided = action(entry, spec);
    if (decided === 'mask') {
      args.push(...mask(entry));
      if (entry.kind === 'directory') remountReadOnly.push(entry.path);
    } else if (decided === 'freeze' && spec.mode === 'workspace-write') {
      args.push('--ro-bind', entry.path, entry.path);
    }
  }

  // Last, so directories the project bind had to create inside a masked tmpfs could still be made.
  for (const path of remountReadOnly) args.push('--remount-ro', path);
  args.push('--remount-ro', '/');

  args.push('--chdir', spec.workdir);
  return args;
}

/** Set by the last of bwrap's options when they are written to it apart (`bubblewrapCommand`'s `seal`). */
export const SEAL_VARIABLE = 'GLASSBOX_SANDBOX_SEAL';

/**
 * The tail of `buildBubblewrapArgs`: the shell and its arguments, which need no scan of the host.
 * With `seal` (hex), the shell first checks that `SEAL_VARIABLE` holds it and exits 125 without
 * running the command otherwise: options read from a descriptor that were cut short (the writer
 * died mid-write, and bwrap saw the end of the pipe early) lack the `--setenv` that comes last,
 * so a sandbox missing any of its options never runs the command.
 */
export function bubblewrapCommand(
  spec: Pick<BubblewrapSpec, 'bash' | 'command' | 'limits' | 'processTasks'> & { seal?: string },
): string[] {
  const shell =
    spec.limits === undefined
      ? ['-c', spec.command]
      : limitedShellArgs(spec.command, spec.limits, spec.processTasks ?? spec.limits.processes);
  if (spec.seal !== undefined) {
    if (!/^[0-9a-f]{16,}$/.test(spec.seal)) throw new Error('a sandbox seal must be hex.');
    shell[1] =
      `[ "\${${SEAL_VARIABLE}-}" = ${spec.seal} ] || { echo "glassbox: the sandbox's options did not all arrive; the command was not run." >&2; exit 125; }; ` +
      `unset ${SEAL_VARIABLE}; ${shell[1]}`;
  }
  return [spec.bash ?? '/bin/bash', ...shell];
}

export interface SandboxAvailability {
  available: boolean;
  /** Absolute path of the bwrap binary found, even when it does not work here. */
  path: string | null;
  reason: string;
}

export type SandboxDetector = () => Promise<SandboxAvailability>;

export interface SandboxDetectorOptions {
  /** Use this binary (an absolute path, as if configured in `GLASSBOX_BWRAP`). */
  bwrapPath?: string;
  /** PATH, only to try the system directories in its order (default: the current process's). */
  searchPath?: string;
  /** Where `GLASSBOX_BWRAP` is read (default: `process.env`). */
  env?: NodeJS.ProcessEnv;
  probeTimeoutMs?: number;
}

export const SANDBOX_INSTALL_HINT =
  'Install bubblewrap (e.g. `apt-get install bubblewrap`) and make sure unprivileged user namespaces ' +
  'are enabled, or run with `--sandbox danger-full-access` to run commands without a sandbox.';

// The probe uses every namespace and mount kind that real commands use, because bwrap can start
// and still fail on, say, mounting /proc inside some containers. `--size` is asked for apart
// (`tmpfsSizeSupported`): a bwrap without it still sandboxes.
const PROBE_ARGS = [
  '--ro-bind',
  '/',
  '/',
  '--dev',
  '/dev',
  '--proc',
  '/proc',
  '--ro-bind-try',
  '/proc/sys',
  '/proc/sys',
  '--tmpfs',
  PRIVATE_TMP,
  '--remount-ro',
  '/dev',
  '--unshare-pid',
  '--unshare-net',
  '--die-with-parent',
  '--new-session',
  '--cap-drop',
  'ALL',
  'true',
];

/**
 * The bwrap to run: a configured absolute path, else one in a system directory only root can
 * change (trusted-program.ts). Never one found on PATH: a PATH directory inside the project (an
 * activated virtualenv, `node_modules/.bin`) is writable from the sandbox, and the bwrap found
 * there would run outside it.
 */
function findBwrap(options: SandboxDetectorOptions): Promise<ProgramLookup> {
  if (options.bwrapPath !== undefined) return checkConfiguredProgram(options.bwrapPath, 'the configured bwrap');
  return findTrustedProgram('bwrap', { env: options.env, searchPath: options.searchPath });
}

function probe(path: string, timeoutMs: number): Promise<SandboxAvailability> {
  return new Promise((resolve) => {
    execFile(
      path,
      PROBE_ARGS,
      { timeout: timeoutMs, env: { PATH: '/usr/local/bin:/usr/bin:/bin' }, encoding: 'utf8' },
      (error, _stdout, stderr) => {
        if (error === null) {
          resolve({ available: true, path, reason: `${path} works (mount, pid and network namespaces).` });
          return;
        }
        const detail = stderr.trim() || error.message;
        resolve({ available: false, path, reason: `${path} exists but cannot create a sandbox here: ${detail}` });
      },
    );
  });
}

const tmpfsSizeAnswers = new Map<string, Promise<boolean>>();

/**
 * Whether this bwrap can bound a tmpfs (`--size`): added in bubblewrap 0.7 (Ubuntu 22.04 ships
 * 0.6), and refused by a setuid bwrap. Without it the sandbox's tmpfs mounts are unbounded, as
 * they were before; asked once per binary and process.
 */
export function tmpfsSizeSupported(path: string, timeoutMs = 5_000): Promise<boolean> {
  let answer = tmpfsSizeAnswers.get(path);
  if (answer === undefined) {
    answer = new Promise((resolve) => {
      execFile(
        path,
        ['--ro-bind', '/', '/', '--size', String(1024 ** 2), '--tmpfs', PRIVATE_TMP, 'true'],
        { timeout: timeoutMs, env: { PATH: '/usr/local/bin:/usr/bin:/bin' } },
        (error) => resolve(error === null),
      );
    });
    tmpfsSizeAnswers.set(path, answer);
  }
  return answer;
}

/** A detector that finds and probes bwrap on first use and remembers the answer. */
export function createSandboxDetector(options: SandboxDetectorOptions = {}): SandboxDetector {
  let answer: Promise<SandboxAvailability> | null = null;
  return () => {
    answer ??= (async () => {
      const found = await findBwrap(options);
      if (found.path === null) return { available: false, path: null, reason: `bwrap (bubblewrap) was not found: ${found.reason}.` };
      return probe(found.path, options.probeTimeoutMs ?? 5_000);
    })();
    return answer;
  };
}

/** The process-wide detector: bwrap is probed at most once per Glassbox process. */
export const detectSandbox: SandboxDetector = createSandboxDetector();
