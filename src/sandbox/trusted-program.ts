// Where Glassbox finds the programs it runs itself (bwrap, git, rg, bash, the browser opener).
// Not on PATH: a PATH holds whatever the user's shell put there, an activated virtualenv's `bin`
// or `node_modules/.bin` inside the project included, and a sandboxed command can write those. A
// `bwrap` planted there would be run, unsandboxed, by the next start-up. So a helper comes from an
// absolute path the user configured (an environment variable, which a repository cannot set), or
// from a path the caller vouches for (the ripgrep installed with Glassbox), or from a system
// directory that only root can change; and never from inside the project, which is what a
// sandboxed command can write.

import { constants } from 'node:fs';
import { access, lstat, realpath, stat } from 'node:fs/promises';
import { delimiter, dirname, isAbsolute, join, sep } from 'node:path';
import { isInside } from '../workspace/index.js';

/** The variables that name a helper's absolute path (`GLASSBOX_BWRAP=/opt/bubblewrap/bin/bwrap`). */
export const PROGRAM_VARIABLES: Readonly<Record<string, string>> = {
  bwrap: 'GLASSBOX_BWRAP',
  git: 'GLASSBOX_GIT',
  rg: 'GLASSBOX_RG',
  bash: 'GLASSBOX_BASH',
};

/**
 * Directories a system's packages install into, where they exist: the usual Unix ones, then
 * Homebrew and MacPorts on macOS, NixOS's and Nix's profiles, snaps. A directory counts only if
 * root owns it and every directory above it, and nobody else may write them (`isSystemOwned`):
 * Homebrew's `/opt/homebrew`, owned by the user, does not.
 */
export const SYSTEM_DIRECTORIES: readonly string[] = [
  '/usr/local/sbin',
  '/usr/local/bin',
  '/usr/sbin',
  '/usr/bin',
  '/sbin',
  '/bin',
  '/opt/homebrew/bin',
  '/opt/local/bin',
  '/run/current-system/sw/bin',
  '/nix/var/nix/profiles/default/bin',
  '/snap/bin',
];

export interface TrustedProgramOptions {
  /** Where the configured path (`PROGRAM_VARIABLES`) is read (default: `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** Paths the caller vouches for, tried after the configured one (the ripgrep Glassbox installed). */
  bundled?: readonly string[];
  /** The project (real path): nothing inside it is used, since a sandboxed command can write it. */
  root?: string;
  /** PATH, only to try the system directories in the user's order (default: `process.env.PATH`). */
  searchPath?: string;
  /** The system directories (default `SYSTEM_DIRECTORIES`; tests use others). */
  systemDirectories?: readonly string[];
}

export interface ProgramLookup {
  /** Real path of the program to run, or null. */
  path: string | null;
  /** Where it came from, or why there is none (what was passed over, and how to configure one). */
  reason: string;
}

/** The real path of an executable regular file, or why `path` is not one. */
async function executableFile(path: string): Promise<{ real: string } | { problem: string }> {
  try {
    const real = await realpath(path);
    if (!(await stat(real)).isFile()) return { problem: `${path} is not a regular file` };
    await access(real, constants.X_OK);
    return { real };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { problem: code === 'ENOENT' ? `${path} does not exist` : `${path} is not an executable file (${code ?? 'error'})` };
  }
}

function insideProject(real: string, root: string | undefined): boolean {
  return root !== undefined && isInside(root, real);
}

/**
 * True when root owns `real` (a real path) and every directory above it, and nobody else may change
 * them: no group or other write permission, except on a directory with the sticky bit (`/tmp`,
 * Nix's store), where others cannot rename or remove what root owns. A user who is not root cannot
 * write it either (checked too, for access control lists).
 */
export async function isSystemOwned(real: string): Promise<boolean> {
  const parts = real.split(sep).filter(Boolean);
  const chain = ['/', ...parts.map((_, index) => `/${parts.slice(0, index + 1).join('/')}`)];
  for (const path of chain) {
    const info = await lstat(path).catch(() => null);
    if (info === null || info.uid !== 0 || info.isSymbolicLink()) return false;
    const othersMayWrite = (info.mode & 0o022) !== 0;
    if (othersMayWrite && !(info.isDirectory() && (info.mode & 0o1000) !== 0)) return false;
  }
  if (process.getuid?.() !== 0) {
    const writable = await access(dirname(real), constants.W_OK).then(
      () => true,
      () => false,
    );
    if (writable) return false;
  }
  return true;
}

/** The system directories in the order PATH names them, then the rest. */
function orderedSystemDirectories(searchPath: string, directories: readonly string[]): string[] {
  const listed = searchPath.split(delimiter).filter((directory) => directories.includes(directory));
  return [...new Set([...listed, ...directories])];
}

/**
 * An absolute path the user configured: used as given (no fallback, so a typo is an error, not a
 * silent switch to another program), if it is an executable file outside the project.
 */
export async function checkConfiguredProgram(path: string, what: string, root?: string): Promise<ProgramLookup> {
  if (!isAbsolute(path)) return { path: null, reason: `${what} must be an absolute path, got ${JSON.stringify(path)}` };
  const file = await executableFile(path);
  if ('problem' in file) return { path: null, reason: `${what}: ${file.problem}` };
  if (insideProject(file.real, root)) {
    return { path: null, reason: `${what}: ${file.real} is inside the project, which sandboxed commands can write` };
  }
  return { path: file.real, reason: `${what}=${path}` };
}

/** Finds `name` as described at the top of this file. Never throws. */
export async function findTrustedProgram(name: string, options: TrustedProgramOptions = {}): Promise<ProgramLookup> {
  const env = options.env ?? process.env;
  const variable = PROGRAM_VARIABLES[name];
  const configured = variable === undefined ? undefined : env[variable]?.trim();
  if (variable !== undefined && configured) return checkConfiguredProgram(configured, variable, options.root);

  const passedOver: string[] = [];
  for (const candidate of options.bundled ?? []) {
    const file = await executableFile(candidate);
    if ('problem' in file) continue;
    if (!insideProject(file.real, options.root)) return { path: file.real, reason: `the ${name} installed with Glassbox` };
    passedOver.push(`${file.real} (inside the project, which sandboxed commands can write)`);
  }
  const directories = options.systemDirectories ?? SYSTEM_DIRECTORIES;
  for (const directory of orderedSystemDirectories(options.searchPath ?? process.env.PATH ?? '', directories)) {
    const candidate = join(directory, name);
    const exists = await lstat(candidate).then(
      () => true,
      () => false,
    );
    if (!exists) continue;
    const file = await executableFile(candidate);
    if ('problem' in file) continue;
    if (insideProject(file.real, options.root)) passedOver.push(`${candidate} (inside the project)`);
    else if (!(await isSystemOwned(file.real))) passedOver.push(`${candidate} (not owned by root, or writable by others)`);
    else return { path: file.real, reason: `${candidate}` };
  }
  const skipped = passedOver.length > 0 ? ` (passed over: ${passedOver.join(', ')})` : '';
  const hint = variable === undefined ? '' : `; set ${variable} to its absolute path`;
  return {
    path: null,
    reason: `no ${name} in the system directories (${directories.join(', ')})${skipped}; PATH is not searched, since a sandboxed command can write a directory on it${hint}`,
  };
}
