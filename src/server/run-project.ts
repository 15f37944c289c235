// Where a run works. A request may name a directory or a repository at a ref, but never more than
// the person who started the server allowed: a directory only inside its project roots (after
// realpath, so a symlink cannot lead out), a repository only from its allowlist, compared as
// written. A repository run gets a worktree of its own, `<home>/worktrees/<runId>` (the same path
// for a takeover, which reuses it), from a bare mirror `<home>/mirrors/<sha256 of repository>`.
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

import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join, relative, isAbsolute } from 'node:path';
import type { RunProjectRequest } from '../protocol/index.js';
import { HttpError } from './http-error.js';

/** A project a run asked for, checked against the server's settings. */
export type RunProject = { directory: string } | { repository: string; ref: string };

export interface ProjectSettings {
  root: string;
  home: string;
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
const NEUTRAL_ATTRIBUTES = '* -filter -ident -text -working-tree-encoding -diff -merge\n';

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

export function mirrorPath(home: string, repository: string): string {
  return join(home, 'mirrors', createHash('sha256').update(repository).digest('hex'));
}

export function worktreePath(home: string, runId: string): string {
  return join(home, 'worktrees', runId);
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

async function updateMirror(home: string, repository: string): Promise<string> {
  const mirror = mirrorPath(home, repository);
  const previous = mirrorQueue.get(mirror) ?? Promise.resolve();
  const next = previous
    .catch(() => undefined)
    .then(async () => {
      if (await exists(join(mirror, 'HEAD'))) {
        await git(['--git-dir', mirror, 'fetch', '--prune', '--no-recurse-submodules', 'origin']);
      } else {
        await mkdir(join(home, 'mirrors'), { recursive: true });
        const temporary = join(home, 'mirrors', `.clone-${randomUUID()}`);
        try {
          await git(['clone', '--mirror', '--no-hardlinks', '--template=', '--', repository, temporary]);
          await rename(temporary, mirror).catch(async (error: NodeJS.ErrnoException) => {
            if (!(await exists(join(mirror, 'HEAD')))) throw error;
          });
        } finally {
          await rm(temporary, { recursive: true, force: true });
        }
      }
      await mkdir(join(mirror, 'info'), { recursive: true });
      await writeFile(join(mirror, 'info', 'attributes'), NEUTRAL_ATTRIBUTES);
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
  const worktree = worktreePath(settings.home, runId);
  const mirror = mirrorPath(settings.home, project.repository);
  const cleanup = async (): Promise<void> => {
    await git(['--git-dir', mirror, 'worktree', 'remove', '--force', worktree]).catch(() => undefined);
    await rm(worktree, { recursive: true, force: true });
    await git(['--git-dir', mirror, 'worktree', 'prune']).catch(() => undefined);
  };
  // A takeover finds the worktree the first attempt made, with the agent's changes in it.
  if (await exists(join(worktree, '.git'))) return { root: worktree, cleanup };
  await updateMirror(settings.home, project.repository);
  let commit: string;
  try {
    commit = (await git(['--git-dir', mirror, 'rev-parse', '--verify', '--end-of-options', `${project.ref}^{commit}`])).trim();
  } catch {
    throw new RunProjectError(`ref ${project.ref} is not a commit in repository ${project.repository}`);
  }
  await mkdir(join(settings.home, 'worktrees'), { recursive: true });
  try {
    await git(['--git-dir', mirror, 'worktree', 'add', '--detach', '--no-checkout', worktree, commit]);
    await git(['checkout', '--force', '--detach', commit], worktree);
  } catch (error) {
    await cleanup();
    throw error;
  }
  return { root: worktree, cleanup };
}
