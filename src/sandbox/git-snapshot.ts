// The git part of the system prompt's environment block, gathered without letting the repository
// run anything on the host. `git status` starts programs that repository content names
// (core.fsmonitor, filter drivers picked by .gitattributes), so a hostile clone would run code the
// moment Glassbox starts. The rule: no program named by repository content runs outside the
// sandbox without a person's approval. So `git status` runs only inside a read-only, offline
// bubblewrap sandbox; without one, the branch is read from the files under `.git` and the status
// is left out. It lives beside the sandbox (not in runner/, which builds the prompt) so that
// `exec` can start it while the runner's code is still loading.

import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { readProjectFile } from '../workspace/index.js';
import { tmpfsSizeSupported, type SandboxAvailability } from './bubblewrap.js';
import { runCommand } from './run-command.js';
import { SYSTEM_DIRECTORIES, findTrustedProgram } from './trusted-program.js';
import { describeUnverifiedTree, readUnverifiedTree } from './unverified-tree.js';

const STATUS_LINES = 15;
// `HEAD` and a `gitdir:` file are one line; the repository chooses what they really are (a FIFO
// would hang every start-up outside the sandbox), so they are read through the guarded reader.
// Not against the root: git's directory may lie above it, or anywhere a `gitdir:` line says.
const GIT_FILE_BYTES = 64 * 1024;

function readGitFile(path: string): Promise<string | null> {
  return readProjectFile(path, { root: null, maxBytes: GIT_FILE_BYTES }).catch(() => null);
}
const STATUS_TIMEOUT_MS = 5_000;
const STATUS_ARGUMENTS = '--no-optional-locks status --porcelain=v1 --branch --untracked-files=normal 2>/dev/null';

export interface GitSnapshotOptions {
  root: string;
  /** Glassbox's home, masked inside the sandbox like for any command. */
  glassboxHome: string;
  detectSandbox: () => Promise<SandboxAvailability>;
  homeDir?: string;
  env?: NodeJS.ProcessEnv;
  /**
   * Called once `git status` is running in the sandbox, or once the snapshot is known without it:
   * a caller can do other work while it runs (exec loads Node's fetch for the first request then).
   */
  onGitStarted?: () => void;
}

/** The `git …` lines of the environment block. Never throws. */
export async function gitSnapshot(options: GitSnapshotOptions): Promise<string> {
  try {
    return await snapshot(options);
  } finally {
    options.onGitStarted?.(); // a second call (after `git status` started) is the caller's to ignore
  }
}

async function snapshot(options: GitSnapshotOptions): Promise<string> {
  // No `.git` at or above the root: git finds no work tree either (the sandbox passes no GIT_DIR
  // or GIT_WORK_TREE, and a bare repository has no status), so the answer is known without
  // starting a sandbox, which costs tens of milliseconds on every new session.
  const gitDir = await findGitDirectory(options.root);
  if (gitDir === null) return 'git: not a git repository';
  // A tree a sandboxed command may have planted git metadata in gets no git run at all, not even
  // in the sandbox, until a person confirms it (unverified-tree.ts): fail closed.
  const unverified = await readUnverifiedTree(options.glassboxHome, options.root);
  if (unverified !== null) {
    const head = await branchOf(gitDir);
    return `git branch: ${head ?? '(unknown)'}\ngit status: not collected (${describeUnverifiedTree(unverified)})`;
  }
  const env = options.env ?? process.env;
  const [sandbox, git] = await Promise.all([
    options.detectSandbox().catch(() => null),
    // Even in the sandbox, not a `git` from PATH: a project's `.venv/bin/git` could forge the answer.
    findTrustedProgram('git', { env, root: options.root, searchPath: env.PATH }),
  ]);
  if (sandbox?.available && sandbox.path !== null && git.path !== null) {
    // Asked now, beside the scan of the project that runCommand does first (it is remembered per binary).
    void tmpfsSizeSupported(sandbox.path);
    const status = await sandboxedStatus(options, sandbox.path, git.path);
    if (status !== null) return status;
  }
  const head = await branchOf(gitDir);
  if (head === null) return 'git: not a git repository';
  const why = !sandbox?.available
    ? 'git status runs only inside the sandbox, which is unavailable'
    : git.path === null
      ? `git cannot be run: ${git.reason}`
      : 'git status failed in the sandbox';
  return `git branch: ${head}\ngit status: not collected (${why})`;
}

async function sandboxedStatus(options: GitSnapshotOptions, bwrapPath: string, gitPath: string): Promise<string | null> {
  try {
    const result = await runCommand({
      command: `'${gitPath.replaceAll("'", "'\\''")}' ${STATUS_ARGUMENTS}`,
      root: options.root,
      workdir: options.root,
      // bwrap finds `bash` on this PATH: the system's, not one a project's `.venv/bin` provides.
      env: { ...(options.env ?? process.env), PATH: SYSTEM_DIRECTORIES.join(':') },
      sandbox: {
        bwrapPath,
        mode: 'read-only',
        network: false,
        secretsApproved: false,
        homeDir: options.homeDir ?? homedir(),
        glassboxHome: options.glassboxHome,
      },
      timeoutMs: STATUS_TIMEOUT_MS,
      ...(options.onGitStarted === undefined ? {} : { onSpawned: options.onGitStarted }),
    });
    if (result.exitCode !== 0) return result.exitCode === 128 ? 'git: not a git repository' : null;
    return formatStatus(result.output.text);
  } catch {
    return null;
  }
}

function formatStatus(stdout: string): string {
  const lines = stdout.split('\n').filter(Boolean);
  const branch = (lines.shift() ?? '').replace(/^## /, '');
  const shown = lines.slice(0, STATUS_LINES);
  const more = lines.length > shown.length ? `\n  ... ${lines.length - shown.length} more changed paths` : '';
  const status = shown.length ? `\n${shown.map((line) => `  ${line}`).join('\n')}${more}` : ' clean';
  return `git branch: ${branch || '(unknown)'}\ngit status:${status}`;
}

/**
 * The current branch (or `HEAD (detached at <sha>)`) from the files git keeps, the way git finds
 * them: the nearest `.git` directory or `gitdir:` file at or above `root`. Reads files only.
 */
export async function readBranch(root: string): Promise<string | null> {
  const gitDir = await findGitDirectory(root);
  return gitDir === null ? null : branchOf(gitDir);
}

async function branchOf(gitDir: string): Promise<string | null> {
  const head = await readGitFile(join(gitDir, 'HEAD'));
  if (head === null) return null;
  const text = head.trim();
  const ref = /^ref:\s*refs\/heads\/(.+)$/.exec(text);
  if (ref !== null) return ref[1]!;
  if (/^[0-9a-f]{40,64}$/.test(text)) return `HEAD (detached at ${text.slice(0, 12)})`;
  return null;
}

async function findGitDirectory(root: string): Promise<string | null> {
  for (let directory = resolve(root); ; directory = dirname(directory)) {
    const candidate = join(directory, '.git');
    const info = await stat(candidate).catch(() => null);
    if (info?.isDirectory()) return candidate;
    if (info?.isFile()) {
      // Worktrees and submodules: `.git` is a file saying `gitdir: <path>`.
      const pointer = /^gitdir:\s*(.+)$/m.exec((await readGitFile(candidate)) ?? '');
      if (pointer === null) return null;
      const target = pointer[1]!.trim();
      return isAbsolute(target) ? target : resolve(directory, target);
    }
    if (dirname(directory) === directory) return null;
  }
}
