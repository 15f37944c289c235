// Directory listings for the walks every sandboxed command waits for (the protected-path scan,
// and the git-metadata walks before and after a workspace-write command): in a real project
// (30k entries, 2k directories) the three walks listed every directory each time, ~0.1 s per
// command. A listing is reused only when the directory provably has the same entries: adding,
// removing or renaming an entry changes the directory's ctime, which no unprivileged process can
// set back (unlike the mtime, `touch -d` cannot touch it). So each directory is lstat-ed (cheap)
// and listed again unless its device, inode and ctime are those seen before the last listing.
//
// Two limits keep that sound. Timestamps are coarse (a clock tick): a change in the same tick as
// the directory's previous change, made just after it was listed, would leave the ctime equal.
// So a listing is trusted only when the ctime it was taken under is older than the listing by
// more than RACY_MARGIN_MS (git's "racily clean" rule): a directory changed recently is listed
// every time until it has aged. And only local file systems are trusted (network ones stamp with
// another machine's clock and cache attributes); a directory elsewhere is always listed.
//
// A new process starts with nothing to reuse, and its first walk (a new session's `git status`
// in the sandbox, before the first model request) listed all of a 30k-entry project: ~0.15 s. So
// the listings of a project are kept in Glassbox's home (which the sandbox hides) when the process
// exits and read back by the next one; they are checked exactly like listings made in-process.

import { projectDigest } from './project-digest.js';
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statfsSync,
  writeFileSync,
} from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { isAbsolute, join, resolve, sep } from 'node:path';
import { isInside } from '../workspace/index.js';

/**
 * Two seconds: past any clock tick, and past one whole second where a file system keeps no more
 * (ext4 with 128-byte inodes), where the coarse clock the kernel stamps with, a few milliseconds
 * behind the wall clock, could otherwise stamp a change just after a listing with the kept second.
 */
export const RACY_MARGIN_MS = 2_000;
/** Entries kept at most across all directories; past it the cache starts over (memory bound). */
const MAX_ENTRIES = 300_000;

/**
 * statfs `f_type` of the local file systems whose ctime is kept by this kernel, and where no two
 * directories a command can make share a device, inode and ctime. Not btrfs or bcachefs: each
 * subvolume numbers its inodes alike (the first directory in each is 257), two directories made in
 * one tick share a ctime, and a removed subvolume's device number goes to the next one made, so a
 * command can put a snapshot's directory where a listed one was with the same three
 * (test/sandbox/directory-listings-attack.test.ts).
 */
const LOCAL_FILE_SYSTEMS = new Set<number>([
  0xef53, // ext2/3/4
  0x58465342, // xfs
  0x01021994, // tmpfs
  0x794c7630, // overlayfs
  0x2fc12fc1, // zfs
  0xf2f52010, // f2fs
  0x858458f6, // ramfs
]);

/** Larger than any project's listings file (30k entries: ~1 MB); a larger one is not read. */
const MAX_STORED_BYTES = 64 * 2 ** 20;
const STORE_VERSION = 1;

/** One entry of a listing: what the walks need of a `Dirent`. */
export class ListedEntry {
  constructor(
    readonly name: string,
    private readonly directory: boolean,
  ) {}

  /** A directory itself, not a symlink to one (as `Dirent.isDirectory`). */
  isDirectory(): boolean {
    return this.directory;
  }
}

/** What the walks list directories with: `readdir(path, { withFileTypes: true })`, or a cache of it. */
export interface DirectoryLister {
  list(path: string): Promise<readonly ListedEntry[]>;
}

/**
 * `derive`, worked out once per listing: reused listings are the same (frozen) array while their
 * directory is unchanged, so what a walk derives from one (the names worth a look) is kept with
 * it, and an unchanged directory costs a walk one `lstat`.
 */
export function perListing<T>(derive: (entries: readonly ListedEntry[]) => T): (entries: readonly ListedEntry[]) => T {
  const derived = new WeakMap<readonly ListedEntry[], T>();
  return (entries) => {
    if (derived.has(entries)) return derived.get(entries) as T;
    const value = derive(entries);
    derived.set(entries, value);
    return value;
  };
}

/** Where a project's listings are kept between processes: one file per project, by a digest of its real path. */
function storedListingsPath(glassboxHome: string, root: string): string {
  return join(glassboxHome, 'cache', 'listings', `${projectDigest(root)}.json`);
}

/**
 * The real path of a home whose store no sandboxed command of `root` can have written, or null.
 * The sandbox masks the home only where it exists: one not made yet inside the project (a project
 * that is the home directory, a fresh install) could be made by a command with a store in it whose
 * listings match the directories and leave out their `.env`. And a home named through a link
 * inside the project could be re-pointed by one. So the home must exist, and neither its name nor
 * its real path may lie in the project; otherwise listings are not kept between processes at all.
 */
function storeHome(root: string, glassboxHome: string): string | null {
  try {
    const real = realpathSync(glassboxHome);
    if (!lstatSync(real).isDirectory()) return null;
    if (isInside(root, resolve(glassboxHome)) || isInside(root, real)) return null;
    return real;
  } catch {
    return null;
  }
}

/** Throws unless `path` is a directory of ours, not a link (read and written only through such). */
function assertOwnDirectory(path: string): void {
  const info = lstatSync(path);
  const uid = process.getuid?.();
  if (!info.isDirectory() || (uid !== undefined && info.uid !== uid)) throw new Error(`${path} is not a directory of ours.`);
}

/** `path` made (0700) if missing, and checked to be a directory of ours, not a link to one elsewhere. */
function ownDirectory(path: string): void {
  try {
    mkdirSync(path, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  assertOwnDirectory(path);
}

interface Listing {
  dev: number;
  ino: number;
  /**
   * Milliseconds as a double: ~0.25 µs apart at today's dates. Two ctimes closer than that are
   * within one change of each other, which the racy rule already refuses to trust; a change after
   * the listing is stamped more than RACY_MARGIN_MS after the kept one.
   */
  ctimeMs: number;
  /** The wall clock when the directory was lstat-ed for this listing. */
  listedAtMs: number;
  entries: readonly ListedEntry[];
}

export interface DirectoryListingsOptions {
  /** The wall clock in milliseconds (tests move it to age what they just made). */
  now?: () => number;
  /** Counts real listings (tests). */
  onList?: (path: string) => void;
}

type StoredListing = [
  relative: string,
  dev: number,
  ino: number,
  ctimeMs: number,
  listedAtMs: number,
  names: string[],
  directories: number[],
];

/** The listings under `root`, as `[path relative to root, dev, ino, ctime, listed at, names, indexes of directories]`. */
function writeStore(file: string, root: string, listings: ReadonlyMap<string, Listing>): void {
  const stored: StoredListing[] = [];
  for (const [path, listing] of listings) {
    if (path !== root && !path.startsWith(`${root}${sep}`)) continue;
    const directories: number[] = [];
    for (const [index, entry] of listing.entries.entries()) if (entry.isDirectory()) directories.push(index);
    stored.push([
      path === root ? '' : path.slice(root.length + 1),
      listing.dev,
      listing.ino,
      listing.ctimeMs,
      listing.listedAtMs,
      listing.entries.map((entry) => entry.name),
      directories,
    ]);
  }
  // Not through a link anywhere below the home (the home is a real path, storeHome): neither a
  // linked `cache` directory nor a temporary name planted as a link to a file to overwrite.
  const dir = join(file, '..');
  ownDirectory(join(dir, '..'));
  ownDirectory(dir);
  const temporary = `${file}.${process.pid}.tmp`;
  rmSync(temporary, { force: true });
  writeFileSync(temporary, JSON.stringify({ version: STORE_VERSION, root, listings: stored }), { mode: 0o600, flag: 'wx' });
  renameSync(temporary, file);
}

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** A name a directory can hold: not empty, no separator, not `.` or `..`. */
const isEntryName = (value: unknown): value is string =>
  typeof value === 'string' && value !== '' && value !== '.' && value !== '..' && !value.includes('/') && !value.includes('\0');

function readStore(file: string, root: string): Array<[string, Listing]> {
  if (!isAbsolute(root)) return [];
  let text: string;
  try {
    // Not through a symlink, and not a file of unbounded size.
    assertOwnDirectory(join(file, '..', '..'));
    assertOwnDirectory(join(file, '..'));
    const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const info = fstatSync(fd);
      if (!info.isFile() || info.size > MAX_STORED_BYTES) return [];
      text = readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return [];
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return [];
  }
  const record = data as { version?: unknown; root?: unknown; listings?: unknown };
  if (record?.version !== STORE_VERSION || record.root !== root || !Array.isArray(record.listings)) return [];
  const found: Array<[string, Listing]> = [];
  for (const item of record.listings as unknown[]) {
    if (!Array.isArray(item) || item.length !== 7) return [];
    const [relative, dev, ino, ctimeMs, listedAtMs, names, directories] = item as unknown[];
    if (typeof relative !== 'string' || !isNumber(dev) || !isNumber(ino) || !isNumber(ctimeMs) || !isNumber(listedAtMs)) return [];
    if (relative !== '' && !relative.split(sep).every(isEntryName)) return [];
    if (!Array.isArray(names) || !names.every(isEntryName)) return [];
    if (!Array.isArray(directories) || !directories.every((index) => Number.isInteger(index) && index >= 0 && index < names.length))
      return [];
    const isDirectory = new Set(directories as number[]);
    const entries = Object.freeze((names as string[]).map((name, index) => new ListedEntry(name, isDirectory.has(index))));
    found.push([relative === '' ? root : `${root}${sep}${relative}`, { dev, ino, ctimeMs, listedAtMs, entries }]);
  }
  return found;
}

function onLocalFileSystem(path: string): boolean {
  try {
    return LOCAL_FILE_SYSTEMS.has(Number(statfsSync(path).type));
  } catch {
    return false;
  }
}

export class DirectoryListings implements DirectoryLister {
  private readonly listings = new Map<string, Listing>();
  /** Projects whose listings are kept in a file: root → the file, and whether it is behind. */
  private readonly stores = new Map<string, { file: string; home: string; dirty: boolean }>();
  /** Projects whose listings are not kept (storeHome): checked once per process, like a store. */
  private readonly unstored = new Set<string>();
  private exitHook = false;
  private entryCount = 0;
  private readonly now: () => number;
  private readonly onList: ((path: string) => void) | undefined;

  constructor(options: DirectoryListingsOptions = {}) {
    this.now = options.now ?? Date.now;
    this.onList = options.onList;
  }

  /**
   * `readdir(path, { withFileTypes: true })`, failing as it does (ENOENT, ENOTDIR, EACCES, …):
   * the cached entries when the directory cannot have changed since they were read.
   */
  async list(path: string): Promise<readonly ListedEntry[]> {
    const cached = this.listings.get(path);
    if (cached !== undefined) {
      // Synchronous: a few microseconds, where a thread-pool round trip costs several times that.
      const info = lstatSync(path, { throwIfNoEntry: false });
      if (
        info?.isDirectory() &&
        info.dev === cached.dev &&
        info.ino === cached.ino &&
        info.ctimeMs === cached.ctimeMs &&
        cached.ctimeMs + RACY_MARGIN_MS < cached.listedAtMs
      )
        return cached.entries;
      this.forget(path, cached);
    }
    // The ctime is read before the listing: a change between the two leaves a ctime newer than
    // the one kept, so the next call lists again.
    const listedAtMs = this.now();
    const info = await lstat(path).catch(() => null);
    this.onList?.(path);
    const entries = Object.freeze(
      (await readdir(path, { withFileTypes: true })).map((entry) => new ListedEntry(entry.name, entry.isDirectory())),
    );
    if (info?.isDirectory() && onLocalFileSystem(path))
      this.keep(path, { dev: info.dev, ino: info.ino, ctimeMs: info.ctimeMs, listedAtMs, entries });
    return entries;
  }

  /**
   * Reads the listings kept for `root` in Glassbox's home (once per root), and keeps this process's for
   * it there when the process exits; not when the home is missing or in the project (storeHome). A
   * file that is missing, too large, a symlink, or not exactly what `save` writes is ignored whole:
   * the walks then list everything, as without it.
   */
  keepBetweenProcesses(root: string, glassboxHome: string): void {
    if (this.stores.has(root) || this.unstored.has(root)) return;
    const home = storeHome(root, glassboxHome);
    if (home === null) {
      // A home not made yet is asked about again (the first command makes one inside the project);
      // one that exists and may not keep listings stays so for the process.
      if (lstatSync(glassboxHome, { throwIfNoEntry: false }) !== undefined) this.unstored.add(root);
      return;
    }
    const file = storedListingsPath(home, root);
    this.stores.set(root, { file, home, dirty: false });
    if (!this.exitHook) {
      this.exitHook = true;
      process.once('exit', () => this.saveAll());
    }
    for (const [path, listing] of readStore(file, root)) {
      // What this process listed itself is newer than what the file says.
      if (!this.listings.has(path)) this.keep(path, listing, false);
    }
  }

  /** Writes the listings of every root with a store that changed since it was read. */
  saveAll(): void {
    for (const [root, store] of this.stores) {
      if (!store.dirty) continue;
      store.dirty = false;
      try {
        // A home that is gone (a test's, removed) is not made again for a cache.
        if (!lstatSync(store.home, { throwIfNoEntry: false })?.isDirectory()) continue;
        writeStore(store.file, root, this.listings);
      } catch {
        // A cache: a home that cannot be written costs the next process a full walk, nothing else.
      }
    }
  }

  private keep(path: string, listing: Listing, fresh = true): void {
    const previous = this.listings.get(path);
    if (previous !== undefined) this.entryCount -= previous.entries.length;
    if (this.entryCount + listing.entries.length > MAX_ENTRIES) this.clear();
    this.listings.set(path, listing);
    this.entryCount += listing.entries.length;
    if (fresh) for (const [root, store] of this.stores) if (path === root || path.startsWith(`${root}${sep}`)) store.dirty = true;
  }

  /**
   * A lister for walks that look at one moment (a command's protected-path scan and git walk,
   * both taken before it starts): each directory is checked and listed once for all of them.
   */
  snapshot(): DirectoryLister {
    const seen = new Map<string, Promise<readonly ListedEntry[]>>();
    return {
      list: (path) => {
        let listing = seen.get(path);
        if (listing === undefined) {
          listing = this.list(path);
          seen.set(path, listing);
        }
        return listing;
      },
    };
  }

  clear(): void {
    this.listings.clear();
    this.entryCount = 0;
  }

  private forget(path: string, listing: Listing): void {
    this.listings.delete(path);
    this.entryCount -= listing.entries.length;
    for (const [root, store] of this.stores) if (path === root || path.startsWith(`${root}${sep}`)) store.dirty = true;
  }
}

/** The process's listings, shared by the sandbox's walks. */
export const directoryListings = new DirectoryListings();
