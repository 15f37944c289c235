// Where a run works. A request may name a directory or a repository at a ref, but never more than
// the person who started the server allowed: a directory only inside its project roots (after
// realpath, so a symlink cannot lead out), a repository only from its allowlist, compared as
// written. A repository run gets a worktree of its own, `<work>/worktrees/<runId>` (the same path
// for a takeover, which reuses it), from a bare mirror `<work>/mirrors/<sha256 of repository>`.
// `<work>` (`--work-dir`, default `<home>-work`) lies outside Glassbox's home: the home is
// protected from the agent and hidden from its sandbox, and a worktree there could be neither
// edited nor used with git (its `.git` points into the mirror, which the sandbox shows read-only).
//
// No program the repository names may run on the host while it is fetched and checked out. Every
// git command here gets no system or global config, no prompt or askpass, no hooks, no fsmonitor,
// no ext:: transport and no external diff, pager or credential helper (GIT_SAFETY below). Filter
// drivers are the hard part: `.gitattributes` in the tree picks them, and their names are not
// known in advance, so `-c filter.x.smudge=` cannot list them. Instead the mirror's
// `info/attributes` (read by every worktree of it, and above any `.gitattributes` in precedence)
// says `* -filter -ident -text -working-tree-encoding`: no path has a filter, so no driver runs
// whatever the config names; checkout writes the blobs as stored. The worktree is added with
// `--no-checkout` and checked out afterwards, so the attributes are in place before any file is.
//
// The mirror's own config is ours, not the repository's: a clone copies no config, but a command
// the agent was allowed to run unsandboxed in a worktree could write `<mirror>/config` (an
// `uploadpack` program, an `insteadOf` past the allowlist, an `include.path`) for the next run of
// that repository. So the config is rewritten with fixed contents before every git command on
// the mirror, and fetches name the allowlisted URL and refspecs on the command line instead of a
// remote. Only branches and tags are fetched (`clone --bare`, not `--mirror`), replace refs are
// ignored (GIT_NO_REPLACE_OBJECTS), and a ref is looked up only as a branch, a tag or a full
// commit id (`resolveRef`), so it names the commit the repository has, not a planted one. Files
// of ours in the mirror are replaced by rename, so a symlink there is never written through.
// What this does not undo: a command run with full access (outside the sandbox, which shows the
// mirror read-only) can change anything this user can, the mirror's objects included; a run
// after one like that should not trust the mirror more than it trusts the host.

import { execFile } from 'node:child_process';
import type { Stats } from 'node:fs';
import { createHash, randomUUID } from 'node:crypto';
import { lstat, mkdir, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { RunProjectRequest } from '../protocol/index.js';
import { HttpError } from './http-error.js';

/** A project a run asked for, checked against the server's settings. */
export type RunProject = { directory: string } | { repository: string; ref: string };

export interface ProjectSettings {
  root: string;
  home: string;
  /** Mirrors and worktrees (`--work-dir`); default `<home>-work`. */
  workDir?: string;
  projectRoots?: readonly string[];
  repositories?: readonly string[];
}

/** A failure to prepare the project (an unknown ref, a clone that failed); the run fails with it. */
export class RunProjectError extends Error {
  readonly code = 'PROJECT_UNAVAILABLE';
}

function inside(parent: string, child: string): boolean {
  const path = relative(parent, child);
  return path === '' || (!path.startsWith('..') && !isAbsolute(path));
}

/** The request's project, or a 400 naming the setting that would allow it. Null: the server's root. */
export async function resolveRunProject(requested: RunProjectRequest | undefined, settings: ProjectSettings): Promise<RunProject | null> {
  if (requested === undefined) return null;
  if (typeof requested !== 'string') {
    if (!(settings.repositories ?? []).includes(requested.repository)) {
      throw new HttpError(400, `repository ${requested.repository} is not in this server's repositories (--repository)`);
    }
    return { repository: requested.repository, ref: requested.ref };
  }
  const refused = new HttpError(400, `project ${requested} is not the server's root or inside one of its project roots (--project-root)`);
  let real: string;
  try {
    real = await realpath(requested);
    if (!(await stat(real)).isDirectory()) throw refused;
  } catch {
    throw refused;
  }
  const roots = [settings.root, ...(settings.projectRoots ?? [])];
  for (const root of roots) {
    const realRoot = await realpath(root).catch(() => null);
    if (realRoot === null) continue;
    if (real === realRoot || (root !== settings.root && inside(realRoot, real))) return { directory: real };
  }
  throw refused;
}

// ----- git ----------------------------------------------------------------------------------------

/** `-c` settings on every git command: nothing the repository's or the host's config names runs. */
const GIT_SAFETY = [
  'core.hooksPath=/dev/null',
  'core.fsmonitor=false',
  'core.attributesFile=/dev/null',
  'core.pager=cat',
  'core.sshCommand=ssh -o BatchMode=yes',
  'core.askPass=',
  'credential.helper=',
  'diff.external=',
  'protocol.ext.allow=never',
  'uploadpack.packObjectsHook=',
  'submodule.recurse=false',
  'fetch.recurseSubmodules=false',
  'advice.detachedHead=false',
].flatMap((setting) => ['-c', setting]);

/** No attribute a path could carry that would start a program or rewrite content. */
// Not -diff or -merge: their drivers need config, which the repository cannot set, and unset they
// would make the agent's `git diff` call every file binary.
const NEUTRAL_ATTRIBUTES = '* -filter -ident -text -working-tree-encoding\n';

/** The whole config of a mirror, written before each git command on it. */
const MIRROR_CONFIG = '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n';

/** Branches and tags, force-updated; a fetch prunes what the repository no longer has. */
const REFSPECS = ['+refs/heads/*:refs/heads/*', '+refs/tags/*:refs/tags/*'];

function gitEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith('GIT_') || key === 'SSH_ASKPASS') continue;
    env[key] = value;
  }
  return {
    ...env,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ATTR_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_TEMPLATE_DIR: '',
    GIT_NO_REPLACE_OBJECTS: '1',
  };
}

function git(args: readonly string[], cwd?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', [...GIT_SAFETY, ...args], { cwd, env: gitEnvironment(), maxBuffer: 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new RunProjectError(`git ${args[0]} failed: ${String(stderr).trim() || error.message}`));
      else resolve(String(stdout));
    });
  });
}

/**
 * Where mirrors and worktrees live: `--work-dir`, or beside the home. Never inside the home, and
 * never overlapping a directory a run may work in: a run there could rewrite another run's
 * worktree or the mirrors.
 */
export function workDirectory(settings: Pick<ProjectSettings, 'home' | 'workDir' | 'root' | 'projectRoots'>): string {
  const work = resolve(settings.workDir ?? `${resolve(settings.home)}-work`);
  if (inside(resolve(settings.home), work)) {
    throw new RunProjectError(
      `the work directory ${work} lies in Glassbox's home ${settings.home}, which the agent may not edit; choose another --work-dir`,
    );
  }
  for (const root of [settings.root, ...(settings.projectRoots ?? [])]) {
    const project = resolve(root);
    if (inside(project, work) || inside(work, project)) {
      throw new RunProjectError(
        `the work directory ${work} overlaps the project directory ${project}, where runs write; choose another --work-dir`,
      );
    }
  }
  return work;
}

/**
 * A directory of ours: made private if missing; refused when it is a symlink, another user's, or
 * writable by others (anyone who can write there can plant refs or objects for the next run).
 */
async function ownDirectory(path: string): Promise<void> {
  await mkdir(path, { recursive: true, mode: 0o700 });
  const info = await lstat(path);
  const uid = process.getuid?.();
  if (!info.isDirectory() || (uid !== undefined && info.uid !== uid) || (info.mode & 0o022) !== 0) {
    throw new RunProjectError(`${path} must be a directory of this user's that no one else can write to (it is ${describe(info, uid)})`);
  }
}

function describe(info: Stats, uid: number | undefined): string {
  if (info.isSymbolicLink()) return 'a symbolic link';
  if (!info.isDirectory()) return 'not a directory';
  if (uid !== undefined && info.uid !== uid) return `owned by uid ${info.uid}`;
  return `mode ${(info.mode & 0o777).toString(8)}`;
}

/** Write a file of the mirror's by rename: a symlink planted in its place is replaced, never followed. */
async function replaceFile(directory: string, name: string, content: string): Promise<void> {
  const info = await lstat(directory).catch(() => null);
  if (info !== null && !info.isDirectory()) await rm(directory, { force: true });
  await mkdir(directory, { recursive: true });
  const temporary = join(directory, `.${name}-${randomUUID()}`);
  await writeFile(temporary, content, { flag: 'wx' });
  await rename(temporary, join(directory, name));
}

/**
 * The commit a ref names: a full commit id, `refs/heads/…` or `refs/tags/…`, or a name that is
 * exactly one branch or one tag. Never git's own lookup, which tries `refs/<name>` first and then
 * a tag before a branch: a tag named `main` (which someone who cannot push to `main` may be able
 * to push) would otherwise pick what a run of `main` checks out.
 */
async function resolveRef(mirror: string, ref: string): Promise<string | null> {
  const verify = (name: string) =>
    git(['--git-dir', mirror, 'rev-parse', '--verify', '--quiet', '--end-of-options', `${name}^{commit}`]).then(
      (out) => out.trim(),
      () => null,
    );
  if (/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(ref)) return verify(ref);
  if (ref.startsWith('refs/heads/') || ref.startsWith('refs/tags/')) {
    return (await refExists(mirror, ref)) ? verify(ref) : null;
  }
  const [branch, tag] = await Promise.all([refExists(mirror, `refs/heads/${ref}`), refExists(mirror, `refs/tags/${ref}`)]);
  if (branch && tag) {
    throw new RunProjectError(`ref ${ref} names both a branch and a tag; write refs/heads/${ref} or refs/tags/${ref}`);
  }
  if (branch) return verify(`refs/heads/${ref}`);
  if (tag) return verify(`refs/tags/${ref}`);
  return null;
}

async function refExists(mirror: string, full: string): Promise<boolean> {
  return git(['--git-dir', mirror, 'show-ref', '--verify', '--quiet', full]).then(
    () => true,
    () => false,
  );
}

export function mirrorPath(work: string, repository: string): string {
  return join(work, 'mirrors', createHash('sha256').update(repository).digest('hex'));
}

export function worktreePath(work: string, runId: string): string {
  return join(work, 'worktrees', runId);
}

/** Put back our config (see the header): nothing a worktree's commands wrote there is used. */
async function resetMirrorConfig(mirror: string): Promise<void> {
  await replaceFile(mirror, 'config', MIRROR_CONFIG);
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

// One update of a mirror at a time in this process; another process is safe because a clone goes
// to a temporary directory and is renamed into place (the loser of a race throws its copy away),
// and git takes its own ref locks for a fetch.
const mirrorQueue = new Map<string, Promise<unknown>>();

async function updateMirror(work: string, repository: string): Promise<string> {
  const mirror = mirrorPath(work, repository);
  const previous = mirrorQueue.get(mirror) ?? Promise.resolve();
  const next = previous
    .catch(() => undefined)
    .then(async () => {
      if (await exists(join(mirror, 'HEAD'))) {
        await resetMirrorConfig(mirror);
        await git([
          '--git-dir',
          mirror,
          'fetch',
          '--prune',
          '--no-recurse-submodules',
          '--no-write-fetch-head',
          '--',
          repository,
          ...REFSPECS,
        ]);
      } else {
        await ownDirectory(join(work, 'mirrors'));
        const temporary = join(work, 'mirrors', `.clone-${randomUUID()}`);
        try {
          await git(['clone', '--bare', '--no-hardlinks', '--template=', '--', repository, temporary]);
          await resetMirrorConfig(temporary);
          await rename(temporary, mirror).catch(async (error: NodeJS.ErrnoException) => {
            if (!(await exists(join(mirror, 'HEAD')))) throw error;
          });
        } finally {
          await rm(temporary, { recursive: true, force: true });
        }
      }
      await replaceFile(join(mirror, 'info'), 'attributes', NEUTRAL_ATTRIBUTES);
    });
  mirrorQueue.set(mirror, next);
  try {
    await next;
  } finally {
    if (mirrorQueue.get(mirror) === next) mirrorQueue.delete(mirror);
  }
  return mirror;
}

export interface PreparedProject {
  root: string;
  /** Removes a run's worktree; a no-op for a directory. Never rejects. */
  cleanup: () => Promise<void>;
}

/** The directory a run works in; a repository is fetched and checked out first (RunProjectError on failure). */
export async function prepareRunProject(project: RunProject | null, settings: ProjectSettings, runId: string): Promise<PreparedProject> {
  if (project === null) return { root: settings.root, cleanup: async () => undefined };
  // Checked again where the run runs: a team worker holds to its own flags, whatever a server queued.
  try {
    await resolveRunProject('directory' in project ? project.directory : project, settings);
  } catch (error) {
    throw error instanceof HttpError ? new RunProjectError(error.message) : error;
  }
  if ('directory' in project) return { root: project.directory, cleanup: async () => undefined };
  const work = workDirectory(settings);
  await ownDirectory(work);
  await ownDirectory(join(work, 'mirrors'));
  await ownDirectory(join(work, 'worktrees'));
  const worktree = worktreePath(work, runId);
  const mirror = mirrorPath(work, project.repository);
  const cleanup = async (): Promise<void> => {
    await resetMirrorConfig(mirror).catch(() => undefined);
    await git(['--git-dir', mirror, 'worktree', 'remove', '--force', worktree]).catch(() => undefined);
    await rm(worktree, { recursive: true, force: true });
    await git(['--git-dir', mirror, 'worktree', 'prune']).catch(() => undefined);
  };
  // A takeover finds the worktree the first attempt made, with the agent's changes in it.
  if (await exists(join(worktree, '.git'))) return { root: worktree, cleanup };
  await updateMirror(work, project.repository);
  const commit = await resolveRef(mirror, project.ref);
  if (commit === null) {
    throw new RunProjectError(`ref ${project.ref} is not a branch, a tag or a full commit id in repository ${project.repository}`);
  }
  try {
    await resetMirrorConfig(mirror);
    await git(['--git-dir', mirror, 'worktree', 'add', '--detach', '--no-checkout', worktree, commit]);
    await git(['checkout', '--force', '--detach', commit], worktree);
  } catch (error) {
    await cleanup();
    throw error;
  }
  return { root: worktree, cleanup };
}
