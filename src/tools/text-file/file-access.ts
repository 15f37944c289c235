// File-system checks shared by the editing tools, so the three of them refuse the same things
// with the same codes and remember what they wrote in the same way.

import { constants, type Stats } from 'node:fs';
import { lstat, open, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ToolError } from '../../agent/index.js';
import type { ToolSessionState } from '../tool-session-state.js';

/** Larger files are not edited through a string in memory; nobody hand-edits them anyway. */
export const MAX_EDITABLE_BYTES = 16 * 1024 * 1024;

export interface LoadedFile {
  bytes: Buffer;
  /** Taken on the same open descriptor the bytes were read from. */
  stats: Stats;
}

/** Read a regular file for editing. `displayPath` is what error messages call it. */
export async function readExistingFile(absolute: string, displayPath: string): Promise<LoadedFile> {
  // Non-blocking: opening a FIFO for reading would otherwise wait for a writer forever (and hold
  // a thread-pool thread); a FIFO is then refused by the regular-file check below.
  const handle = await open(absolute, constants.O_RDONLY | constants.O_NONBLOCK).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') throw new ToolError('PATH_NOT_FOUND', `${displayPath} does not exist.`);
    if (error.code === 'EISDIR') throw isDirectoryError(displayPath);
    throw error;
  });
  try {
    const stats = await handle.stat();
    if (stats.isDirectory()) throw isDirectoryError(displayPath);
    if (!stats.isFile()) throw new ToolError('NOT_A_FILE', `${displayPath} is not a regular file.`);
    if (stats.size > MAX_EDITABLE_BYTES) {
      throw new ToolError(
        'FILE_TOO_LARGE',
        `${displayPath} is ${stats.size} bytes; the editing tools handle files up to ${MAX_EDITABLE_BYTES} bytes.`,
      );
    }
    const bytes = await handle.readFile();
    return { bytes, stats };
  } finally {
    await handle.close();
  }
}

export function isDirectoryError(displayPath: string): ToolError {
  return new ToolError('IS_A_DIRECTORY', `${displayPath} is a directory, not a file.`);
}

/** Stats of `absolute`, or null when nothing is there. */
export async function statOrNull(absolute: string): Promise<Stats | null> {
  try {
    return await lstat(absolute);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw error;
  }
}

/**
 * A new file needs its nearest existing ancestor to be a directory; otherwise creating the parent
 * directories would fail halfway with a confusing ENOTDIR.
 */
export async function assertCanCreate(absolute: string, displayPath: string): Promise<void> {
  for (let ancestor = dirname(absolute); ; ancestor = dirname(ancestor)) {
    const stats = await statOrNull(ancestor);
    if (stats !== null) {
      if (!stats.isDirectory()) {
        throw new ToolError('NOT_A_DIRECTORY', `Cannot create ${displayPath}: ${ancestor} exists and is not a directory.`);
      }
      return;
    }
    if (dirname(ancestor) === ancestor) return;
  }
}

/** A file the agent wrote counts as read: later edits compare against this fingerprint. */
export async function recordFileStamp(state: ToolSessionState, absolute: string): Promise<void> {
  const stats = await stat(absolute);
  state.fileStamps.set(absolute, { mtimeMs: stats.mtimeMs, size: stats.size });
}

export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new ToolError('ABORTED', 'The run was cancelled before anything was written.');
}
