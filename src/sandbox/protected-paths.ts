// Finds what the sandbox must hide or freeze before a command runs: the project's `.git` (so a
// command cannot rewrite history or install hooks), secret files such as `.env`, Glassbox's own
// home (config, sessions) and the credential stores people keep under $HOME. Only paths that
// exist are reported, because bubblewrap cannot mount over something missing on a read-only `/`.

import type { Dirent } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
// The permission layer decides with the same matcher, so what needs approval to read is exactly
// what the sandbox hides until it is approved.
import { isSecretPath } from '../workspace/index.js';

export type ProtectedPathKind = 'file' | 'directory';
export type ProtectionReason = 'git' | 'secret-file' | 'home-secret' | 'glassbox-home';

export interface ProtectedPath {
  /** Absolute real path. */
  path: string;
  kind: ProtectedPathKind;
  reason: ProtectionReason;
}

export interface ProtectedPathScan {
  paths: ProtectedPath[];
  /** The project scan stopped at its entry cap: deeper secret files may be left unmasked. */
  truncated: boolean;
}

export interface FindProtectedPathsOptions {
  root: string;
  homeDir: string;
  glassboxHome: string;
  /** Directory entries the project scan may visit before it gives up (default 20,000). */
  maxEntries?: number;
}

const DEFAULT_MAX_ENTRIES = 20_000;
const MAX_DEPTH = 24;

/** Directories never scanned for secret files: huge, and not where a project keeps its own secrets. */
const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set(['node_modules', '.git']);

/** Credential stores relative to $HOME, masked whenever they exist. */
export const HOME_SECRET_PATHS: readonly string[] = [
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.kube',
  '.config/gcloud',
  '.config/gh',
  '.config/hub',
  '.docker/config.json',
  '.netrc',
  '.npmrc',
  '.yarnrc.yml',
  '.pypirc',
  '.git-credentials',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.terraform.d/credentials.tfrc.json',
  '.password-store',
  '.local/share/keyrings',
  '.vault-token',
];

/** The protected entry for `path` (real path and kind), or null when it does not exist. */
export async function describeProtectedPath(path: string, reason: ProtectionReason): Promise<ProtectedPath | null> {
  try {
    const real = await realpath(path);
    const info = await stat(real);
    if (info.isDirectory()) return { path: real, kind: 'directory', reason };
    // Sockets, fifos and devices cannot sit under a /dev/null bind in a useful way either; files only.
    if (info.isFile()) return { path: real, kind: 'file', reason };
    return null;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP') return null;
    throw error;
  }
}

/** A directory's entries, or null for one that vanished or may not be read. */
async function listDirectory(dir: string): Promise<Dirent[] | null> {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'ENOENT' || code === 'ENOTDIR' || code === 'EPERM') return null;
    throw error;
  }
}

/**
 * Directories listed at once. Every sandboxed command (and a new session's `git status`) waits for
 * this scan, and listing a level's directories one after another cost one thread-pool round trip
 * each: ~400 ms for this repository on a loaded machine (docs/benchmarks.md). Entries are still
 * visited in the same order, so the cap cuts the scan at the same place.
 */
const LISTING_BATCH = 32;

async function scanProject(root: string, maxEntries: number): Promise<ProtectedPathScan> {
  const found: ProtectedPath[] = [];
  let visited = 0;
  // `rel` is the directory relative to the root with `/` separators, built along the walk: cheaper
  // than `path.relative` per entry, which resolves both paths every time.
  let queue: { dir: string; rel: string; depth: number }[] = [{ dir: root, rel: '', depth: 0 }];
  while (queue.length > 0) {
    const next: { dir: string; rel: string; depth: number }[] = [];
    let listings: Promise<Dirent[] | null>[] = [];
    for (const [index, { dir, rel, depth }] of queue.entries()) {
      if (index % LISTING_BATCH === 0) {
        listings = queue.slice(index, index + LISTING_BATCH).map((item) => listDirectory(item.dir));
        // A batch abandoned at the cap must not surface as an unhandled rejection.
        for (const listing of listings) listing.catch(() => {});
      }
      const entries = await listings[index % LISTING_BATCH]!;
      if (entries === null) continue;
      for (const entry of entries) {
        visited += 1;
        if (visited > maxEntries) return { paths: found, truncated: true };
        const full = dir.endsWith(sep) ? `${dir}${entry.name}` : `${dir}${sep}${entry.name}`;
        const relativePath = rel === '' ? entry.name : `${rel}/${entry.name}`;
        if (entry.name === '.git') {
          const described = await describeProtectedPath(full, 'git');
          if (described) found.push(described);
          continue;
        }
        if (isSecretPath(relativePath)) {
          const described = await describeProtectedPath(full, 'secret-file');
          if (described) found.push(described);
          continue;
        }
        // Symlinked directories are not followed: they may loop or lead out of the project.
        if (entry.isDirectory() && !SKIPPED_DIRECTORIES.has(entry.name) && depth + 1 < MAX_DEPTH) {
          next.push({ dir: full, rel: relativePath, depth: depth + 1 });
        }
      }
    }
    queue = next;
  }
  return { paths: found, truncated: false };
}

/** Everything that exists and must be protected, in no particular order. */
export async function findProtectedPaths(options: FindProtectedPathsOptions): Promise<ProtectedPathScan> {
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
  if (!Number.isInteger(maxEntries) || maxEntries < 1) {
    throw new Error(`maxEntries must be a positive integer, got ${maxEntries}.`);
  }
  const project = await scanProject(options.root, maxEntries);
  const outside = await Promise.all([
    describeProtectedPath(options.glassboxHome, 'glassbox-home'),
    ...HOME_SECRET_PATHS.map((entry) => describeProtectedPath(join(options.homeDir, entry), 'home-secret')),
  ]);
  const seen = new Set<string>();
  const paths: ProtectedPath[] = [];
  // Home and Glassbox entries first: when the project contains the home directory, the same path
  // found by both scans keeps the stricter, never-unmasked reason.
  for (const entry of [...outside, ...project.paths]) {
    if (entry === null || seen.has(entry.path)) continue;
    seen.add(entry.path);
    paths.push(entry);
  }
  return { paths, truncated: project.truncated };
}
