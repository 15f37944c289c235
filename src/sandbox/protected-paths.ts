// Finds what the sandbox must hide or freeze before a command runs: the project's `.git` (so a
// command cannot rewrite history or install hooks), secret files such as `.env`, Glassbox's own
// home (config, sessions), the credential stores people keep under $HOME, the system's own secrets
// and the host's runtime directory. The sandbox shows little of the host to begin with
// (host-view.ts); these masks matter where something shown contains them: a project that is the
// home directory, a toolchain directory that holds a credential file, a root that runs Glassbox.
// Only paths that exist are reported, because bubblewrap cannot mount over something missing.

import { readdir, realpath, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, sep } from 'node:path';
import { type DirectoryLister, directoryListings, type ListedEntry, perListing } from './directory-listings.js';
// The permission layer decides with the same matcher, so what needs approval to read is exactly
// what the sandbox hides until it is approved.
import { HOME_SECRET_PATHS, isSecretPath, maySecretFileName } from '../workspace/index.js';

export type ProtectedPathKind = 'file' | 'directory';
export type ProtectionReason = 'git' | 'secret-file' | 'home-secret' | 'glassbox-home' | 'system-secret' | 'host-sockets';

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
  /**
   * Why the scan could not look everywhere (its budget ran out, a directory of ours could not be
   * read, it went deeper than any real tree): a secret file there would not be masked, so the
   * caller must not run a command on this scan. Null when it finished.
   */
  incomplete: string | null;
}

export interface FindProtectedPathsOptions {
  root: string;
  homeDir: string;
  glassboxHome: string;
  /** The host's $XDG_RUNTIME_DIR (session bus, gpg-agent, Wayland, PulseAudio sockets), hidden wherever it lies. */
  runtimeDir?: string;
  /** Directory entries the project scan may visit before it gives up (default 20,000). */
  maxEntries?: number;
  /** How directories are listed (default: the process's cached listings, directory-listings.ts). */
  lister?: DirectoryLister;
}

const DEFAULT_MAX_ENTRIES = 200_000;
/** Not a budget but a sanity bound: deeper than this the scan counts as not finished. */
const MAX_DEPTH = 1_024;

export { HOME_SECRET_PATHS };

/** The system's own secrets: readable only by root, and Glassbox may run as root (CI containers). */
export const SYSTEM_SECRET_PATHS: readonly string[] = [
  '/etc/shadow',
  '/etc/shadow-',
  '/etc/gshadow',
  '/etc/gshadow-',
  '/etc/ssl/private',
  '/etc/NetworkManager/system-connections',
  '/etc/wireguard',
];

/** Directories of host sockets that can lie inside a shown tree. */
export const HOST_SOCKET_PATHS: readonly string[] = ['/nix/var/nix/daemon-socket'];

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

/**
 * A directory's entries; null for one that vanished, or that belongs to another user and may
 * not be read (the sandbox, same user, cannot read it either); 'unreadable' for one of ours that
 * may not be read: a command can `chmod 000` a directory to hide what is in it from the scan,
 * then read it after a `chmod` back.
 */
async function listDirectory(
  dir: string,
  lister: DirectoryLister = directoryListings,
): Promise<readonly ListedEntry[] | null | 'unreadable'> {
  try {
    return await lister.list(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    if (code === 'EACCES' || code === 'EPERM') {
      // One that cannot even be stat-ed lies in a directory that may be listed but not searched
      // (the walk listed it): whoever owns that one can make it searchable again, so a command
      // can `chmod 644` the directory above a secret to hide it. It counts as that owner's.
      const owner = await stat(dir).then(
        (info) => info.uid,
        () =>
          stat(dirname(dir)).then(
            (info) => info.uid,
            () => -1,
          ),
      );
      return owner === (process.getuid?.() ?? -2) ? 'unreadable' : null;
    }
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

interface InterestingEntry {
  /** Its position in the listing (what the entry cap counts). */
  index: number;
  entry: ListedEntry;
  isGit: boolean;
  maySecret: boolean;
}

/** A listing's entries the scan acts on, found once per listing. */
const interestingEntries = perListing((entries): InterestingEntry[] => {
  const found: InterestingEntry[] = [];
  for (const [index, entry] of entries.entries()) {
    const isGit = entry.name === '.git';
    const maySecret = !isGit && maySecretFileName(entry.name);
    if (isGit || maySecret || entry.isDirectory()) found.push({ index, entry, isGit, maySecret });
  }
  return found;
});

async function scanProject(root: string, maxEntries: number, lister: DirectoryLister): Promise<ProtectedPathScan> {
  const found: ProtectedPath[] = [];
  let visited = 0;
  // `rel` is the directory relative to the root with `/` separators, built along the walk: cheaper
  // than `path.relative` per entry, which resolves both paths every time.
  let queue: { dir: string; rel: string; depth: number }[] = [{ dir: root, rel: '', depth: 0 }];
  while (queue.length > 0) {
    const next: { dir: string; rel: string; depth: number }[] = [];
    let listings: Promise<readonly ListedEntry[] | null | 'unreadable'>[] = [];
    for (const [index, { dir, rel, depth }] of queue.entries()) {
      if (index % LISTING_BATCH === 0) {
        listings = queue.slice(index, index + LISTING_BATCH).map((item) => listDirectory(item.dir, lister));
        // A batch abandoned at the cap must not surface as an unhandled rejection.
        for (const listing of listings) listing.catch(() => {});
      }
      const entries = await listings[index % LISTING_BATCH]!;
      if (entries === null) continue;
      if (entries === 'unreadable') return { paths: found, truncated: false, incomplete: `${dir} may not be read` };
      // Only `.git`, possibly secret names and directories matter; the rest only count toward
      // the cap, which cuts the scan at the same entry as counting them one by one would.
      const room = maxEntries - visited;
      for (const { index: position, entry, isGit, maySecret } of interestingEntries(entries)) {
        if (position >= room) break;
        const full = dir.endsWith(sep) ? `${dir}${entry.name}` : `${dir}${sep}${entry.name}`;
        const relativePath = rel === '' ? entry.name : `${rel}/${entry.name}`;
        if (isGit) {
          const described = await describeProtectedPath(full, 'git');
          if (described) found.push(described);
          // The root's own git directory is frozen read-only before every command, so nothing a
          // command moves can be in it. Any other one may be a command's (its quarantine can
          // fail: a name too long to rename, a parent it may not write), with a secret moved in.
          if (rel === '' || !entry.isDirectory()) continue;
          if (depth + 1 >= MAX_DEPTH) return { paths: found, truncated: true, incomplete: `it is deeper than ${MAX_DEPTH} levels` };
          next.push({ dir: full, rel: relativePath, depth: depth + 1 });
          continue;
        }
        if (maySecret && isSecretPath(relativePath)) {
          const described = await describeProtectedPath(full, 'secret-file');
          if (described) found.push(described);
          continue;
        }
        // Symlinked directories are not followed: they may loop or lead out of the project.
        if (entry.isDirectory()) {
          if (depth + 1 >= MAX_DEPTH) return { paths: found, truncated: true, incomplete: `it is deeper than ${MAX_DEPTH} levels` };
          next.push({ dir: full, rel: relativePath, depth: depth + 1 });
        }
      }
      if (entries.length > room) return { paths: found, truncated: true, incomplete: `the project has more than ${maxEntries} entries` };
      visited += entries.length;
    }
    queue = next;
  }
  return { paths: found, truncated: false, incomplete: null };
}

/** The ssh server's private host keys (`/etc/ssh/ssh_host_*_key`); the `.pub` halves stay. */
async function sshHostKeys(): Promise<string[]> {
  const entries = await listDirectory('/etc/ssh');
  if (entries === null || entries === 'unreadable') return [];
  return entries.filter((entry) => /^ssh_host_.*_key$/.test(entry.name)).map((entry) => join('/etc/ssh', entry.name));
}

let systemEntries: Promise<(ProtectedPath | null)[]> | null = null;

/**
 * The system's secrets and socket directories: the same for every command of a process, so looked
 * up once. The secrets matter only to root (they are root's alone); for anyone else each mask
 * would be one more mount for nothing.
 */
function findSystemEntries(): Promise<(ProtectedPath | null)[]> {
  systemEntries ??= (async () => {
    const secrets = process.getuid?.() === 0 ? [...SYSTEM_SECRET_PATHS, ...(await sshHostKeys())] : [];
    return Promise.all([
      ...secrets.map((path) => describeProtectedPath(path, 'system-secret')),
      ...HOST_SOCKET_PATHS.map((path) => describeProtectedPath(path, 'host-sockets')),
    ]);
  })();
  return systemEntries;
}

/**
 * The entries of `relatives` (paths under `base`) that exist, each parent directory listed once:
 * most of a long list of well-known names are absent, and one listing answers for all its names.
 */
export async function presentUnder(base: string, relatives: readonly string[]): Promise<string[]> {
  const listings = new Map<string, Promise<Set<string> | null>>();
  const listing = (dir: string): Promise<Set<string> | null> => {
    let found = listings.get(dir);
    if (found === undefined) {
      found = readdir(join(base, dir)).then(
        (names) => new Set(names),
        () => null,
      );
      listings.set(dir, found);
    }
    return found;
  };
  const present = await Promise.all(
    relatives.map(async (relative) => ((await listing(dirname(relative)))?.has(basename(relative)) ? relative : null)),
  );
  return present.filter((relative) => relative !== null);
}

/** Everything that exists and must be protected, in no particular order. */
export async function findProtectedPaths(options: FindProtectedPathsOptions): Promise<ProtectedPathScan> {
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
  if (!Number.isInteger(maxEntries) || maxEntries < 1) {
    throw new Error(`maxEntries must be a positive integer, got ${maxEntries}.`);
  }
  const outsideFound = (async () => {
    const homeSecrets = await presentUnder(options.homeDir, HOME_SECRET_PATHS);
    return Promise.all([
      describeProtectedPath(options.glassboxHome, 'glassbox-home'),
      ...homeSecrets.map((entry) => describeProtectedPath(join(options.homeDir, entry), 'home-secret')),
      ...(options.runtimeDir === undefined || !isAbsolute(options.runtimeDir)
        ? []
        : [describeProtectedPath(options.runtimeDir, 'host-sockets')]),
    ]);
  })();
  const [project, outside, system] = await Promise.all([
    scanProject(options.root, maxEntries, options.lister ?? directoryListings),
    outsideFound,
    findSystemEntries(),
  ]);
  const seen = new Set<string>();
  const paths: ProtectedPath[] = [];
  // Home and Glassbox entries first: when the project contains the home directory, the same path
  // found by both scans keeps the stricter, never-unmasked reason.
  for (const entry of [...outside, ...system, ...project.paths]) {
    if (entry === null || seen.has(entry.path)) continue;
    seen.add(entry.path);
    paths.push(entry);
  }
  return { paths, truncated: project.truncated, incomplete: project.incomplete };
}
