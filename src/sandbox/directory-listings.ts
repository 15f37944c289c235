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

import type { Dirent } from 'node:fs';
import { lstatSync, statfsSync } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';

/** Well past any file system's timestamp granularity (FAT's 2 s is not local-trusted anyway). */
export const RACY_MARGIN_MS = 1_000;
/** Entries kept at most across all directories; past it the cache starts over (memory bound). */
const MAX_ENTRIES = 300_000;

/** statfs `f_type` of the local file systems whose ctime is kept by this kernel. */
const LOCAL_FILE_SYSTEMS = new Set<number>([
  0xef53, // ext2/3/4
  0x58465342, // xfs
  0x9123683e, // btrfs
  0x01021994, // tmpfs
  0x794c7630, // overlayfs
  0x2fc12fc1, // zfs
  0xf2f52010, // f2fs
  0xca451a4e, // bcachefs
  0x858458f6, // ramfs
]);

/** What the walks list directories with: `readdir(path, { withFileTypes: true })`, or a cache of it. */
export interface DirectoryLister {
  list(path: string): Promise<readonly Dirent[]>;
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
  entries: readonly Dirent[];
}

export interface DirectoryListingsOptions {
  /** The wall clock in milliseconds (tests move it to age what they just made). */
  now?: () => number;
  /** Counts real listings (tests). */
  onList?: (path: string) => void;
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
  async list(path: string): Promise<readonly Dirent[]> {
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
    const entries = Object.freeze(await readdir(path, { withFileTypes: true }));
    if (info?.isDirectory() && onLocalFileSystem(path)) {
      if (this.entryCount + entries.length > MAX_ENTRIES) this.clear();
      this.listings.set(path, { dev: info.dev, ino: info.ino, ctimeMs: info.ctimeMs, listedAtMs, entries });
      this.entryCount += entries.length;
    }
    return entries;
  }

  /**
   * A lister for walks that look at one moment (a command's protected-path scan and git walk,
   * both taken before it starts): each directory is checked and listed once for all of them.
   */
  snapshot(): DirectoryLister {
    const seen = new Map<string, Promise<readonly Dirent[]>>();
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
  }
}

/** The process's listings, shared by the sandbox's walks. */
export const directoryListings = new DirectoryListings();
