// One shell command, end to end: filtered environment, optional bubblewrap wrapping, process-group
// lifetime and bounded output. The shell tool adds argument checks and formatting on top.

import { randomBytes } from 'node:crypto';
import { release } from 'node:os';
import { lstatSync, mkdirSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { HOME_SECRET_PATHS, isInside, isSecretPath } from '../workspace/index.js';
import {
  bubblewrapCommand,
  bubblewrapIsolation,
  buildBubblewrapOptions,
  SEAL_VARIABLE,
  tmpfsSizeSupported,
  type SandboxedMode,
} from './bubblewrap.js';
import { buildChildEnvironment } from './child-environment.js';
import { type DirectoryLister, type DirectoryListings, directoryListings } from './directory-listings.js';
import { quarantineNewGitMetadata, scanGitMetadata, type GitMetadataScan, type QuarantinedGitMetadata } from './git-metadata.js';
import { findHostView, type HostView } from './host-view.js';
import { createProcessCgroup } from './process-cgroup.js';
import { describeProtectedPath, findProtectedPaths, type ProtectedPath, type ProtectedPathScan } from './protected-paths.js';
import { runProcess, type ProcessResult } from './run-process.js';
import { countUserTasks, defaultResourceLimits, limitedShellArgs, sandboxTaskLimit, type ResourceLimits } from './resource-limits.js';
import { readSandboxConfig } from './sandbox-config.js';
import { keyringSeccompFilter } from './seccomp-filter.js';
import { findTrustedProgram } from './trusted-program.js';
import { markTreeUnverified, unverifiedTreeMarker, type UnverifiedTree } from './unverified-tree.js';

/**
 * Run by bash before bwrap, then become bwrap (same pid): close every descriptor but 0–2 and the
 * seccomp filter's 3 — Glassbox may have inherited others from whatever started it (a connected
 * socket, a directory), and neither Node nor bwrap closes them — and join the command's pids
 * cgroup when there is one.
 */
const PREPARE_SANDBOX =
  'for f in /proc/self/fd/*; do n=${f##*/}; case $n in 0|1|2|3|4) ;; *) eval "exec $n>&-" 2>/dev/null ;; esac; done; ' +
  'if [ -n "$1" ]; then echo $$ > "$1" || exit 125; fi; shift; exec "$@"';

export interface SandboxSettings {
  bwrapPath: string;
  mode: SandboxedMode;
  network: boolean;
  secretsApproved: boolean;
  homeDir: string;
  glassboxHome: string;
}

export interface RunCommandOptions {
  command: string;
  /** Real path of the project root. */
  root: string;
  /** Absolute real path of an existing directory inside the root. */
  workdir: string;
  /** The environment to filter (normally `process.env`); only allowlisted variables pass. */
  env: NodeJS.ProcessEnv;
  /** null: run directly on the host. */
  sandbox: SandboxSettings | null;
  timeoutMs: number;
  signal?: AbortSignal;
  outputLimit?: number;
  killGraceMs?: number;
  /** Per-process memory and CPU bounds and the sandbox's task bound (default: `defaultResourceLimits(timeoutMs)`). */
  limits?: ResourceLimits;
  /** Written to the command's stdin (`runProcess`); absent: stdin closed. */
  stdin?: string;
  /** Capture stderr apart (`CommandResult.stderr`). */
  separateStderr?: boolean;
  /** Variables set on top of the allowlisted environment (e.g. a hook's `CLAUDE_PROJECT_DIR`). */
  extraEnv?: Readonly<Record<string, string>>;
  /** Entries the git-metadata walks read at most (default `DEFAULT_MAX_ENTRIES`; tests make it small). */
  gitScanMaxEntries?: number;
  /** The directory listings the walks reuse (default: the process's; tests bring their own clock). */
  listings?: DirectoryListings;
  /** Called once the command's process has started (`RunProcessOptions.onSpawned`). */
  onSpawned?: () => void;
}

export interface CommandResult extends ProcessResult {
  sandbox: { mode: SandboxedMode; network: boolean } | null;
  /** The secret scan hit its cap, so some deep secret files may not have been masked. */
  secretScanTruncated: boolean;
  /** Git metadata the command created in the project, renamed so git no longer finds it (workspace-write only). */
  quarantinedGitMetadata: QuarantinedGitMetadata[];
  /** Problems with the git-metadata check: a walk that could not finish, a rename that failed. */
  gitMetadataProblems: string[];
  /**
   * The check could not finish, so the project is treated as planted and marked in Glassbox's
   * home (`unverified-tree.ts`); null when it finished (or nothing was checked: read-only, host).
   */
  unverifiedTree: UnverifiedTree | null;
}

export async function runCommand(options: RunCommandOptions): Promise<CommandResult> {
  if (options.command.trim() === '') throw new Error('command must not be empty.');
  const limits = options.limits ?? defaultResourceLimits(options.timeoutMs);
  const common = {
    cwd: options.workdir,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
    outputLimit: options.outputLimit,
    killGraceMs: options.killGraceMs,
    stdin: options.stdin,
    separateStderr: options.separateStderr,
    onSpawned: options.onSpawned,
  };
  // The shell itself comes from a system directory (or GLASSBOX_BASH), not from PATH, where a
  // project's `.venv/bin/bash` would stand in for it (trusted-program.ts), in or out of the sandbox.
  const bash = await findTrustedProgram('bash', { env: options.env, root: options.root, searchPath: options.env.PATH });
  if (bash.path === null) throw new Error(`bash cannot be run: ${bash.reason}.`);
  if (options.sandbox === null) {
    const env = buildChildEnvironment(options.env, { ...options.extraEnv, PWD: options.workdir, GLASSBOX_SANDBOX: '0' });
    const result = await runProcess({ ...common, file: bash.path, args: limitedShellArgs(options.command, limits), env });
    return {
      ...result,
      sandbox: null,
      secretScanTruncated: false,
      quarantinedGitMetadata: [],
      gitMetadataProblems: [],
      unverifiedTree: null,
    };
  }

  const sandbox = options.sandbox;
  if (isInside(options.root, sandbox.bwrapPath)) {
    throw new Error(`refusing to run ${sandbox.bwrapPath}: it is inside the project, which sandboxed commands can write.`);
  }
  // Inside the sandbox only the private /tmp and /var/tmp are writable outside the project.
  const env = buildChildEnvironment(options.env, { ...options.extraEnv, PWD: options.workdir, GLASSBOX_SANDBOX: '1', TMPDIR: '/tmp' });
  // Only a writable project can gain git metadata; read-only runs skip both walks.
  const writable = sandbox.mode === 'workspace-write';
  const runtimeDir = hostRuntimeDir(options.env);
  // Only what exists can be masked: a Glassbox home named inside the project that does not exist
  // yet (the project is the home directory, on a first run) could be made by a command, with a
  // config naming hooks and MCP servers that run on the host. It is made first, and masked.
  if (isInside(options.root, sandbox.glassboxHome) && lstatSync(sandbox.glassboxHome, { throwIfNoEntry: false }) === undefined)
    mkdirSync(sandbox.glassboxHome, { recursive: true, mode: 0o700 });
  const listings = options.listings ?? directoryListings;
  listings.keepBetweenProcesses(options.root, sandbox.glassboxHome);
  const uid = process.getuid?.() ?? 0;
  // The command's own part of bwrap's arguments needs no scan. So the process chain starts first:
  // bash closes inherited descriptors and joins the pids cgroup (a v1 cgroup migration takes
  // several milliseconds) and becomes bwrap, which then waits, before any namespace or mount, for
  // its options on descriptor 4 (`--args`), written once the walks below have decided them. The
  // command runs only with the whole option list; if the walks fail it is stopped unread. What
  // needs no walk (namespaces, the capability drop, the seccomp filter on descriptor 3) is on
  // bwrap's own command line, so even a list cut short on descriptor 4 could only lack mounts.
  // The last option sets this; the shell refuses to run the command without it (`bubblewrapCommand`).
  const seal = randomBytes(16).toString('hex');
  const command = bubblewrapCommand({
    seal,
    bash: bash.path,
    command: options.command,
    limits,
    processTasks: sandboxTaskLimit(limits.processes, release(), () => (uid === 0 ? 0 : countUserTasks(uid))),
  });
  // RLIMIT_NPROC binds every user but root; root needs the cgroup (process-cgroup.ts).
  const cgroup = uid === 0 ? await createProcessCgroup(limits.processes) : null;
  const stop = new AbortController();
  const signal = options.signal === undefined ? stop.signal : AbortSignal.any([options.signal, stop.signal]);
  let bwrapOptions!: { resolve: (data: Buffer) => void; reject: (error: Error) => void };
  const optionData = new Promise<Buffer>((resolve, reject) => (bwrapOptions = { resolve, reject }));
  // The caller's "it started" means the command's sandbox got its options, not that bwrap waits.
  let started = 0;
  const onStarted = (): void => {
    started += 1;
    if (started === 2) options.onSpawned?.();
  };
  const running = runProcess({
    ...common,
    signal,
    onSpawned: onStarted,
    file: bash.path,
    args: [
      '-c',
      PREPARE_SANDBOX,
      'glassbox-sandbox',
      cgroup?.procsFile ?? '',
      sandbox.bwrapPath,
      ...bubblewrapIsolation({ network: sandbox.network, seccompFd: 3 }),
      '--args',
      '4',
      ...command,
    ],
    env,
    descriptorData: [keyringSeccompFilter(), optionData],
  });
  // Awaited only after the walks: a spawn that fails meanwhile must not be an unhandled rejection.
  running.catch(() => undefined);
  let prepared: Awaited<ReturnType<typeof sandboxOptions>>;
  try {
    prepared = await sandboxOptions(options, sandbox, limits, env, listings, runtimeDir, writable);
    bwrapOptions.resolve(Buffer.from(`${[...prepared.args, '--setenv', SEAL_VARIABLE, seal].join('\0')}\0`));
    // A run cancelled during the walks is stopped unread: it never started.
    if (!signal.aborted) onStarted();
  } catch (error) {
    bwrapOptions.reject(error as Error);
    stop.abort();
    await running.catch(() => undefined);
    await cgroup?.release();
    throw error;
  }
  const { scan, gitBefore } = prepared;
  let result: ProcessResult;
  try {
    result = await running;
  } finally {
    // bwrap's monitor exits as soon as its pid 1 reports the command's exit status, while the
    // kernel is still killing what was left in the pid namespace: a background process could be
    // seen alive for a moment after the call. The cgroup empties with the namespace, so waiting
    // for it (bounded) makes "nothing outlives the call" exact where there is one (root).
    await cgroup?.release();
  }
  const gitCheck =
    gitBefore === null
      ? { quarantined: [], problems: [], unverifiedTree: null }
      : await quarantineCreatedGitMetadata(options.root, gitBefore, sandbox.glassboxHome, options.gitScanMaxEntries, listings);
  return {
    ...result,
    sandbox: { mode: sandbox.mode, network: sandbox.network },
    secretScanTruncated: scan.truncated,
    quarantinedGitMetadata: gitCheck.quarantined,
    gitMetadataProblems: gitCheck.problems,
    unverifiedTree: gitCheck.unverifiedTree,
  };
}

/**
 * bwrap's options for one command (everything before its `bash -c …`), from walks that look at one
 * moment: the protected-path scan, the git metadata before the command, and what of the host is shown.
 */
async function sandboxOptions(
  options: RunCommandOptions,
  sandbox: SandboxSettings,
  limits: ResourceLimits,
  env: NodeJS.ProcessEnv,
  listings: DirectoryListings,
  runtimeDir: string | undefined,
  writable: boolean,
): Promise<{ args: string[]; scan: ProtectedPathScan; gitBefore: GitMetadataScan | null }> {
  // Each directory is checked once for both walks.
  const lister = listings.snapshot();
  const [rootScan, gitBefore, view] = await Promise.all([
    findProtectedPaths({ root: options.root, homeDir: sandbox.homeDir, glassboxHome: sandbox.glassboxHome, runtimeDir, lister }),
    writable ? scanGitMetadata(options.root, { maxEntries: options.gitScanMaxEntries, lister }) : null,
    commandHostView({ root: options.root, sandbox, searchPath: env.PATH ?? '', runtimeDir }),
  ]);
  // A root inside a larger work tree shows that tree read-only: its secret files are masked too.
  const scan =
    view.enclosingWorkTree === null
      ? rootScan
      : mergeScans(
          rootScan,
          await findProtectedPaths({
            root: view.enclosingWorkTree,
            homeDir: sandbox.homeDir,
            glassboxHome: sandbox.glassboxHome,
            runtimeDir,
            lister,
          }),
        );
  // A secret file the scan did not reach would not be masked: fail closed, say why and what to do.
  if (scan.incomplete !== null) {
    throw new Error(
      `the project could not be searched completely for secret files to hide from the sandbox (${scan.incomplete}), so no sandboxed command runs in it. ` +
        "Make the directory readable, open a smaller project directory, or run the command outside the sandbox (escalate, with a person's approval).",
    );
  }
  const protectedPaths = anchored(
    options.root,
    gitBefore === null ? scan.paths : await withGitDirectories(scan.paths, gitBefore),
    sandbox.homeDir,
    sandbox.glassboxHome,
  );
  const args = buildBubblewrapOptions({
    root: options.root,
    workdir: options.workdir,
    mode: sandbox.mode,
    network: sandbox.network,
    secretsApproved: sandbox.secretsApproved,
    protectedPaths,
    view,
    command: options.command,
    sizedTmpfs: await tmpfsSizeSupported(sandbox.bwrapPath),
    limits,
  });
  // NUL separates the options on the descriptor: one inside an option would split it in two.
  if (args.some((arg) => arg.includes('\0'))) throw new Error('a sandbox path or option contains a NUL character.');
  return { args, scan, gitBefore };
}

/** The host's $XDG_RUNTIME_DIR (its sockets are hidden wherever they lie), if it names one. */
export function hostRuntimeDir(env: NodeJS.ProcessEnv): string | undefined {
  return env.XDG_RUNTIME_DIR?.trim() || undefined;
}

/** What of the host a command's sandbox shows, with the user's `readablePaths` from the sandbox config. */
export async function commandHostView(options: {
  root: string;
  sandbox: Pick<SandboxSettings, 'homeDir' | 'glassboxHome' | 'network'>;
  searchPath: string;
  runtimeDir: string | undefined;
}): Promise<HostView> {
  const { root, sandbox, searchPath, runtimeDir } = options;
  const config = await readSandboxConfig(sandbox.glassboxHome, sandbox.homeDir);
  return findHostView({
    root,
    homeDir: sandbox.homeDir,
    glassboxHome: sandbox.glassboxHome,
    searchPath,
    nodeBinary: process.execPath,
    runtimeDir,
    network: sandbox.network,
    readablePaths: config.readablePaths,
  });
}

function mergeScans(first: ProtectedPathScan, second: ProtectedPathScan): ProtectedPathScan {
  const seen = new Set(first.paths.map((entry) => entry.path));
  return {
    paths: [...first.paths, ...second.paths.filter((entry) => !seen.has(entry.path))],
    truncated: first.truncated || second.truncated,
    incomplete: first.incomplete ?? second.incomplete,
  };
}

/**
 * What is masked by where it is must not be moved away from its mask: were a credential store or
 * Glassbox's home inside the project (a project that is, or contains, the home directory), one
 * command could move the directory above it (`mv .config cfg`, or remove `.config/gh` where it is
 * a link to the real store) and the next, whose scan looks in the old place, would see it
 * unmasked. The same holds for a secret file whose name is secret only with its directory's
 * (`.aws/credentials`, `.docker/config.json`): `mv .aws awsx` leaves `awsx/credentials`. So the
 * project entry holding each store (where it is named and where it really is) and the directory
 * of each such file are frozen read-only; being mount points, they cannot be renamed either.
 */
function anchored(root: string, paths: readonly ProtectedPath[], homeDir: string, glassboxHome: string): ProtectedPath[] {
  const seen = new Set(paths.map((entry) => entry.path));
  const anchors: ProtectedPath[] = [];
  const anchor = (path: string, kind: ProtectedPath['kind']): void => {
    if (!isInside(root, path) || path === root || seen.has(path)) return;
    seen.add(path);
    anchors.push({ path, kind, reason: 'git' });
  };
  const top = (path: string): string => join(root, relative(root, path).split(sep)[0]!);
  for (const entry of paths) {
    if (entry.reason === 'home-secret' || entry.reason === 'glassbox-home') {
      if (isInside(root, entry.path) && entry.path !== root)
        anchor(top(entry.path), top(entry.path) === entry.path ? entry.kind : 'directory');
    } else if (entry.reason === 'secret-file' && entry.kind === 'file' && !isSecretPath(basename(entry.path))) {
      anchor(dirname(entry.path), 'directory');
    }
  }
  // A store named inside the project but lying elsewhere (a link): its name's entry too. So for
  // Glassbox's home: `rm .glassbox; mkdir .glassbox` would give the next command its config.
  for (const named of [...HOME_SECRET_PATHS.map((store) => join(homeDir, store)), glassboxHome]) {
    if (isInside(root, named) && named !== root && lstatSync(named, { throwIfNoEntry: false }) !== undefined)
      anchor(top(named), 'directory');
  }
  return [...paths, ...anchors];
}

/** The scan's protected paths plus every git directory found (node_modules included), frozen read-only. */
async function withGitDirectories(paths: readonly ProtectedPath[], git: GitMetadataScan): Promise<ProtectedPath[]> {
  const seen = new Set(paths.map((entry) => entry.path));
  const guarded = [...git.dotGit.keys(), ...git.bareLookalikes.keys(), ...(git.projectConfig === null ? [] : [git.projectConfig.path])];
  const found = await Promise.all(guarded.map((path) => describeProtectedPath(path, 'git').catch(() => null)));
  const extra = found.filter((entry): entry is ProtectedPath => entry !== null && !seen.has(entry.path));
  return [...paths, ...extra];
}

/**
 * Quarantines what the command created. When the walk could not see everything, or a rename
 * failed, what the command planted may survive: the project is marked unverified (fail closed).
 */
async function quarantineCreatedGitMetadata(
  root: string,
  before: GitMetadataScan,
  glassboxHome: string,
  maxEntries: number | undefined,
  lister: DirectoryLister,
): Promise<{ quarantined: QuarantinedGitMetadata[]; problems: string[]; unverifiedTree: UnverifiedTree | null }> {
  const problems: string[] = [];
  let quarantined: QuarantinedGitMetadata[] = [];
  let unfinished: string | null;
  try {
    const after = await scanGitMetadata(root, { before, maxEntries, lister });
    const result = await quarantineNewGitMetadata(before, after);
    quarantined = result.quarantined;
    problems.push(...result.failed);
    unfinished = after.incomplete ?? (result.failed.length > 0 ? result.failed[0]! : null);
  } catch (error) {
    unfinished = `the check failed: ${(error as Error).message}`;
  }
  if (unfinished === null) return { quarantined, problems, unverifiedTree: null };
  const unverifiedTree = await markTreeUnverified(glassboxHome, root, unfinished).catch((error: Error) => {
    problems.push(`the project could not be marked unverified in ${glassboxHome}: ${error.message}`);
    return { root, reason: unfinished, at: new Date().toISOString(), marker: unverifiedTreeMarker(glassboxHome, root) };
  });
  return { quarantined, problems, unverifiedTree };
}
