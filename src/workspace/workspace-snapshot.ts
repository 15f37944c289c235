// A picture of the project's files: taken when a session opens, so `/diff` can later say what
// changed in the workspace whatever changed it: a write tool, a shell command (`sed -i`, a code
// generator, `rm`), an MCP server. It is git-independent on purpose: running git on the host
// would let the repository name programs to run (core.fsmonitor, filters), and a snapshot also
// works outside a repository and sees uncommitted starting points exactly.
//
// Each file's stamp (size, mtime, ctime, inode) is kept, and a copy of its bytes while it is at
// most 1 MiB and the copies stay under 32 MiB in all, so a changed file can be shown as a diff.
// Secret files (.env, keys: workspace/'s list) are stamped but never copied or shown. Dependency,
// build and VCS folders are not walked; symlinks are recorded, never followed.

import {
  closeSync,
  constants,
  type Dirent,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  type Stats,
} from 'node:fs';
import { open, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { isSecretPath } from './secret-paths.js';

/** Folder names not walked: dependencies, build output, VCS metadata, caches. */
export const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set([
  '.git',
  '.hg',
  '.svn',
  'node_modules',
  'dist',
  'build',
  'target',
  '.venv',
  'venv',
  '__pycache__',
  '.next',
  '.cache',
]);

export interface SnapshotLimits {
  /** Project-relative folders not walked either (Glassbox's own home when it is inside the project). */
  excluded?: readonly string[];
  maxFiles: number;
  maxFileBytes: number;
  maxTotalBytes: number;
}

export const DEFAULT_SNAPSHOT_LIMITS: SnapshotLimits = { maxFiles: 20_000, maxFileBytes: 1024 * 1024, maxTotalBytes: 32 * 1024 * 1024 };

export interface FileStamp {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  symlink: boolean;
  /** Permission bits (a chmod changes ctime too, so `sameStamp` need not compare them). */
  mode: number;
}

export interface SnapshotEntry extends FileStamp {
  /** The bytes (a symlink: its target) when copied; null when not (see `uncopied`). */
  content: Buffer | null;
  uncopied: 'secret' | 'large' | 'budget' | 'unreadable' | null;
}

export interface WorkspaceSnapshot {
  takenAt: Date;
  files: Map<string, SnapshotEntry>;
  /** The walk stopped at `maxFiles`: files past it are not compared. */
  truncated: boolean;
}

const PARALLEL = 32;
/** Entries stamped between two turns of the event loop (~10 ms of synchronous calls). */
const ENTRIES_PER_SLICE = 2_000;

/** The stamp of an entry from its `lstat`. */
export function stampOf(info: Stats): FileStamp {
  return {
    size: info.size,
    mtimeMs: info.mtimeMs,
    ctimeMs: info.ctimeMs,
    ino: info.ino,
    symlink: info.isSymbolicLink(),
    mode: info.mode & 0o7777,
  };
}

/**
 * Project-relative paths ('/'-separated) of the files and symlinks under `root`, with their stamps.
 * Every exec or write tool call stamps the project twice (checkpoints), so this is on a call's
 * critical path: listing and stamping synchronously costs a few microseconds an entry, where a
 * thread-pool round trip per `lstat` cost ~80 µs (1,034 files: 85 ms a walk, docs/benchmarks.md).
 * The walk yields to the event loop every ENTRIES_PER_SLICE entries, so a large project does not
 * hold up streaming and timers.
 */
export async function listStamps(
  root: string,
  maxFiles: number,
  excluded: readonly string[] = [],
): Promise<{ stamps: Map<string, FileStamp>; truncated: boolean }> {
  const stamps = new Map<string, FileStamp>();
  const pending: string[] = [''];
  let truncated = false;
  let slice = 0;
  while (pending.length > 0 && !truncated) {
    const dir = pending.pop()!;
    let entries: Dirent[];
    try {
      entries = readdirSync(join(root, dir), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const rel = dir === '' ? entry.name : `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRECTORIES.has(entry.name) && !excluded.includes(rel)) pending.push(rel);
        continue;
      }
      if (!entry.isFile() && !entry.isSymbolicLink()) continue;
      let info: Stats | undefined;
      try {
        info = lstatSync(join(root, rel), { throwIfNoEntry: false });
      } catch {
        info = undefined;
      }
      if (info === undefined) continue;
      if (stamps.size >= maxFiles) {
        truncated = true;
        break;
      }
      stamps.set(rel, stampOf(info));
    }
    slice += entries.length;
    if (slice >= ENTRIES_PER_SLICE) {
      slice = 0;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  return { stamps, truncated };
}

/**
 * `readContent` with synchronous calls, for copying many files at once (checkpoints): one file
 * costs tens of microseconds here against four thread-pool round trips there. The same guards:
 * not followed if swapped for a symlink, never blocking on a FIFO, read within its stamp's size.
 */
export function readContentSync(root: string, rel: string, stamp: FileStamp): Buffer | null {
  const path = join(root, rel);
  try {
    if (stamp.symlink) return Buffer.from(`symlink → ${readlinkSync(path)}\n`);
    const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    try {
      const stats = fstatSync(fd);
      if (!stats.isFile() || stats.size > stamp.size) return null;
      const buffer = Buffer.alloc(stats.size);
      const bytesRead = stats.size === 0 ? 0 : readSync(fd, buffer, 0, stats.size, 0);
      return buffer.subarray(0, bytesRead);
    } finally {
      closeSync(fd);
    }
  } catch {
    return null;
  }
}

/** The content kept for a file: a symlink's target, or the bytes of a readable file. */
export async function readContent(root: string, rel: string, stamp: FileStamp): Promise<Buffer | null> {
  const path = join(root, rel);
  try {
    if (stamp.symlink) return Buffer.from(`symlink → ${await readlink(path)}\n`);
    // The entry was a regular file when listed; it may have been swapped since (for a FIFO, a
    // symlink, a bigger file): opened without following or blocking, checked, read within its size.
    const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    try {
      const stats = await handle.stat();
      if (!stats.isFile() || stats.size > stamp.size) return null;
      const buffer = Buffer.alloc(stats.size);
      const { bytesRead } = await handle.read(buffer, 0, stats.size, 0);
      return buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  } catch {
    return null;
  }
}

export async function takeSnapshot(root: string, limits: SnapshotLimits = DEFAULT_SNAPSHOT_LIMITS): Promise<WorkspaceSnapshot> {
  const takenAt = new Date();
  const { stamps, truncated } = await listStamps(root, limits.maxFiles, limits.excluded);
  const files = new Map<string, SnapshotEntry>();
  let budget = limits.maxTotalBytes;
  const toRead: Array<[string, FileStamp]> = [];
  // Smallest first, so the budget covers as many files as it can.
  for (const [rel, stamp] of [...stamps].sort(([, a], [, b]) => a.size - b.size)) {
    let uncopied: SnapshotEntry['uncopied'] = null;
    if (isSecretPath(rel)) uncopied = 'secret';
    else if (stamp.size > limits.maxFileBytes) uncopied = 'large';
    else if (stamp.size > budget) uncopied = 'budget';
    else {
      budget -= stamp.size;
      toRead.push([rel, stamp]);
    }
    files.set(rel, { ...stamp, content: null, uncopied });
  }
  for (let i = 0; i < toRead.length; i += PARALLEL) {
    const batch = toRead.slice(i, i + PARALLEL);
    const contents = await Promise.all(batch.map(([rel, stamp]) => readContent(root, rel, stamp)));
    batch.forEach(([rel], index) => {
      const entry = files.get(rel)!;
      const content = contents[index] ?? null;
      files.set(rel, { ...entry, content, uncopied: content === null ? 'unreadable' : null });
    });
  }
  return { takenAt, files, truncated };
}

/** Same stamp: the file was not written since (a write changes mtime and ctime; a rename, the inode). */
export function sameStamp(a: FileStamp, b: FileStamp): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino && a.symlink === b.symlink;
}
