// All-or-nothing file writes. Every new content goes to a temp file beside its target (same
// directory, so the final rename is atomic on one file system) and is fsynced; only then are the
// temp files renamed in. If one rename fails, the ones already done are undone from hard-link
// backups, so a multi-file change either lands whole or leaves the tree as it was.

import type { Stats } from 'node:fs';
import { constants } from 'node:fs';
import { copyFile, link, mkdir, open, rename, rmdir, unlink } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { ToolError } from '../agent/index.js';
import { statOrNull, throwIfAborted } from './text-file/index.js';

export interface FileChange {
  /** Absolute path, already checked against the project root. */
  path: string;
  /** New bytes, or null to delete the file. */
  content: Uint8Array | string | null;
  /** Permission bits; default: the existing file's, or 0o644 less the umask for a new file. */
  mode?: number;
}

/** The operations that put staged changes in place. */
export interface CommitFileSystem {
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
}

export interface CommitOptions {
  /** Checked before anything is written and again right before the first rename. */
  signal?: AbortSignal;
  /** Seam for tests to make a rename fail midway; rollback always uses the real file system. */
  fileSystem?: Partial<CommitFileSystem>;
}

interface StagedChange {
  change: FileChange;
  existing: Stats | null;
  tempPath: string | null;
  backupPath: string | null;
  applied: boolean;
}

const DEFAULT_NEW_FILE_MODE = 0o644;

export async function writeFileAtomic(
  path: string,
  content: Uint8Array | string,
  options: CommitOptions & { mode?: number } = {},
): Promise<void> {
  const { mode, ...commitOptions } = options;
  await commitFileChanges([mode === undefined ? { path, content } : { path, content, mode }], commitOptions);
}

export async function commitFileChanges(changes: readonly FileChange[], options: CommitOptions = {}): Promise<void> {
  const seen = new Set<string>();
  for (const change of changes) {
    if (seen.has(change.path)) throw new Error(`commitFileChanges: ${change.path} appears twice`);
    seen.add(change.path);
  }
  const fileSystem: CommitFileSystem = {
    rename: options.fileSystem?.rename ?? rename,
    unlink: options.fileSystem?.unlink ?? unlink,
  };
  const createdDirectories: string[] = [];
  const staged: StagedChange[] = [];

  try {
    if (options.signal) throwIfAborted(options.signal);
    for (const change of changes) {
      const existing = await statOrNull(change.path);
      if (existing?.isDirectory()) {
        throw new ToolError('IS_A_DIRECTORY', `${change.path} is a directory, not a file.`);
      }
      const entry: StagedChange = { change, existing, tempPath: null, backupPath: null, applied: false };
      staged.push(entry);
      if (change.content === null) continue;
      createdDirectories.push(...(await makeParentDirectories(change.path)));
      entry.tempPath = siblingPath(change.path, 'tmp');
      await writeTempFile(entry.tempPath, change.content, change.mode, existing);
    }
    if (options.signal) throwIfAborted(options.signal);
  } catch (error) {
    await discardStaged(staged, createdDirectories);
    throw error;
  }

  try {
    for (const entry of staged) {
      if (entry.existing === null) continue;
      entry.backupPath = siblingPath(entry.change.path, 'backup');
      await link(entry.change.path, entry.backupPath).catch(() =>
        copyFile(entry.change.path, entry.backupPath as string, constants.COPYFILE_EXCL),
      );
    }
    for (const entry of staged) {
      if (entry.tempPath !== null) await fileSystem.rename(entry.tempPath, entry.change.path);
      else if (entry.existing !== null) await fileSystem.unlink(entry.change.path);
      entry.applied = true;
    }
  } catch (error) {
    const unrestored = await rollBack(staged);
    await discardStaged(staged, createdDirectories);
    const reason = error instanceof Error ? error.message : String(error);
    if (unrestored.length > 0) {
      throw new ToolError('WRITE_FAILED', `Writing failed (${reason}) and these files could not be restored: ${unrestored.join(', ')}.`);
    }
    throw new ToolError('WRITE_FAILED', `Writing failed (${reason}); no file was changed.`);
  }

  for (const entry of staged) {
    if (entry.backupPath !== null) await unlink(entry.backupPath).catch(() => undefined);
  }
  await syncDirectories(new Set(changes.map((change) => dirname(change.path))));
}

/** Undo applied changes newest first; returns the paths that could not be put back. */
async function rollBack(staged: StagedChange[]): Promise<string[]> {
  const unrestored: string[] = [];
  for (const entry of [...staged].reverse()) {
    if (!entry.applied) continue;
    try {
      if (entry.backupPath !== null) {
        await rename(entry.backupPath, entry.change.path);
        entry.backupPath = null;
      } else {
        await unlink(entry.change.path);
      }
      entry.applied = false;
    } catch {
      // Keep its backup on disk: it is the only copy of the old content now.
      if (entry.backupPath !== null) unrestored.push(`${entry.change.path} (old content kept at ${entry.backupPath})`);
      else unrestored.push(entry.change.path);
      entry.backupPath = null;
    }
  }
  return unrestored;
}

async function discardStaged(staged: StagedChange[], createdDirectories: string[]): Promise<void> {
  for (const entry of staged) {
    if (entry.tempPath !== null && !entry.applied) await unlink(entry.tempPath).catch(() => undefined);
    if (entry.backupPath !== null) await unlink(entry.backupPath).catch(() => undefined);
  }
  // Deepest first; a directory that something else has filled in the meantime stays.
  for (const directory of [...createdDirectories].sort((a, b) => b.length - a.length)) {
    await rmdir(directory).catch(() => undefined);
  }
}

/** Create the parent directories of `path`; returns the ones that did not exist before. */
async function makeParentDirectories(path: string): Promise<string[]> {
  const parent = dirname(path);
  const firstCreated = await mkdir(parent, { recursive: true });
  if (firstCreated === undefined) return [];
  const created: string[] = [];
  for (let directory = parent; directory.length >= firstCreated.length; directory = dirname(directory)) {
    created.push(directory);
    if (directory === firstCreated) break;
  }
  return created;
}

async function writeTempFile(
  tempPath: string,
  content: Uint8Array | string,
  mode: number | undefined,
  existing: Stats | null,
): Promise<void> {
  // Only a regular file passes on its mode and owner; a dangling symlink's 0o777 must not.
  const previous = existing?.isFile() ? existing : null;
  const targetMode = mode ?? (previous === null ? undefined : previous.mode & 0o7777);
  const handle = await open(tempPath, 'wx', targetMode ?? DEFAULT_NEW_FILE_MODE);
  try {
    await handle.writeFile(content);
    if (previous !== null && (previous.uid !== process.getuid?.() || previous.gid !== process.getgid?.())) {
      // Only root may give a file away; elsewhere the new file simply belongs to us.
      await handle.chown(previous.uid, previous.gid).catch(() => undefined);
    }
    // open() applied the umask; an explicit or inherited mode must come through exactly.
    if (targetMode !== undefined) await handle.chmod(targetMode);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function siblingPath(path: string, purpose: 'tmp' | 'backup'): string {
  // Keep well under NAME_MAX even for long names.
  const name = basename(path).slice(0, 120);
  return join(dirname(path), `.${name}.${randomBytes(6).toString('hex')}.glassbox-${purpose}`);
}

/** Make the renames durable; failure here loses nothing that is already visible, so it is ignored. */
async function syncDirectories(directories: Set<string>): Promise<void> {
  for (const directory of directories) {
    try {
      const handle = await open(directory, 'r');
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
    } catch {
      // Some file systems refuse fsync on directories.
    }
  }
}
