// Every file Glassbox reads on its own from a project (AGENTS.md, `.glassbox/config.json`, the
// `.gitignore` files of the search tools, git's HEAD) goes through here, because a repository
// chooses what those names are: a symlink to `/proc/self/environ` would put the harness's API keys
// into the prompt, a FIFO would hang start-up for good, `/dev/zero` would fill memory. So a file is
// read only when its real path stays inside the project root, it is a regular file (opened
// non-blocking, so a FIFO cannot block the open itself), and it is no larger than a cap, counted
// while reading (a kernel file says it has 0 bytes). Files in Glassbox's own home that a hostile
// environment could have replaced (the prompt history, the user's config) are read the same way,
// without the root check.

import { constants } from 'node:fs';
import { open, readlink, realpath, type FileHandle } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { homedir } from 'node:os';
import { join, relative } from 'node:path';
import { isInside } from './path-containment.js';
import { HOME_SECRET_PATHS, isSecretPath } from './secret-paths.js';

export const MAX_PROJECT_FILE_BYTES = 1024 * 1024;

export interface ReadProjectFileOptions {
  /**
   * The project root the file must stay inside once symlinks are followed; null only for a file
   * that is not the project's (Glassbox's home, git's own directory, which may lie above the root).
   */
  root: string | null;
  /** Default {@link MAX_PROJECT_FILE_BYTES}. */
  maxBytes?: number;
  /** Refuse a symlink in the last component (a file Glassbox writes itself, in its home). */
  noFollow?: boolean;
  /** The home directory whose credential stores are never read (default: the user's). */
  homeDir?: string;
}

/** The file exists but is not read; `reason` completes a sentence that starts with the path. */
export class RefusedFileError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path} ${reason}`);
    this.name = 'RefusedFileError';
  }
}

const READ_CHUNK_BYTES = 64 * 1024;

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function kindOf(stats: Stats): string {
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isSocket()) return 'a socket';
  if (stats.isDirectory()) return 'a directory';
  return 'not a plain file';
}

function outside(path: string, real: string): RefusedFileError {
  return new RefusedFileError(path, `leads outside the project (to ${real}), so it is not read`);
}

/** The real path of `path`, checked against the real root; null when it does not exist. */
async function realInsideRoot(path: string, root: string): Promise<{ real: string; realRoot: string } | null> {
  let real: string;
  try {
    // The file first: most files asked for (a `.gitignore` per directory) do not exist.
    real = await realpath(path);
  } catch (error) {
    if (isMissing(error)) return null;
    throw new RefusedFileError(path, `cannot be read: ${(error as Error).message}`);
  }
  const realRoot = await realpath(root).catch(() => root);
  if (!isInside(realRoot, real)) throw outside(path, real);
  return { real, realRoot };
}

/**
 * On Linux the descriptor's own link names the file really opened, so a directory swapped for a
 * symlink between `realpath` and `open` is caught too. Without /proc the check before stands.
 */
async function openedInsideRoot(handle: FileHandle, path: string, realRoot: string): Promise<void> {
  const opened = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => null);
  if (opened !== null && !isInside(realRoot, opened)) throw outside(path, opened);
}

/** At most `maxBytes` from the start; more than that is a refusal, whatever the size said. */
async function readCapped(handle: FileHandle, path: string, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(Math.min(READ_CHUNK_BYTES, maxBytes + 1 - total));
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
    if (bytesRead === 0) break;
    chunks.push(chunk.subarray(0, bytesRead));
    total += bytesRead;
    if (total > maxBytes) throw new RefusedFileError(path, `is larger than ${maxBytes} bytes, so it is not read`);
  }
  return Buffer.concat(chunks, total).toString('utf8');
}

/** The entry of HOME_SECRET_PATHS whose store holds `real` (a real path), or null. */
async function credentialStoreHolding(real: string, home: string): Promise<string | null> {
  const realHome = await realpath(home).catch(() => home);
  for (const entry of HOME_SECRET_PATHS) {
    const places = [join(home, entry), join(realHome, entry)];
    const resolved = await realpath(places[1]!).catch(() => null);
    if (resolved !== null) places.push(resolved);
    if (places.some((place) => isInside(place, real))) return entry;
  }
  return null;
}

/**
 * The file's text, or null when it does not exist. Rejects with a {@link RefusedFileError} saying
 * why otherwise (outside the root, not a regular file, too large, unreadable).
 */
export async function readProjectFile(path: string, options: ReadProjectFileOptions): Promise<string | null> {
  const maxBytes = options.maxBytes ?? MAX_PROJECT_FILE_BYTES;
  const { root } = options;
  const checked = root === null ? { real: path, realRoot: null } : await realInsideRoot(path, root);
  if (checked === null) return null;
  // A file the sandbox masks (`.env`, `*.pem`…) is not read into a prompt or a setting either, by
  // whatever name leads to it: `AGENTS.md -> .env` would hand the model the secret.
  if (checked.realRoot !== null && isSecretPath(relative(checked.realRoot, checked.real))) {
    throw new RefusedFileError(path, 'leads to a secret file, so it is not read');
  }
  // Nor one inside a credential store of the home directory (a project that is, or contains,
  // the home directory: `AGENTS.md -> .config/gh/hosts.yml`), found by name and by where each
  // store really is (a store that is a link, as dotfile managers make).
  if (checked.realRoot !== null) {
    const store = await credentialStoreHolding(checked.real, options.homeDir ?? homedir());
    if (store !== null) throw new RefusedFileError(path, `is in the credential store ~/${store}, so it is not read`);
  }
  // The real path has no symlink left; O_NOFOLLOW keeps one from being swapped in at the end.
  const noFollow = options.noFollow === true || root !== null;
  let handle: FileHandle;
  try {
    handle = await open(checked.real, constants.O_RDONLY | constants.O_NONBLOCK | (noFollow ? constants.O_NOFOLLOW : 0));
  } catch (error) {
    if (isMissing(error)) return null;
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new RefusedFileError(path, 'is a symbolic link, so it is not read');
    throw new RefusedFileError(path, `cannot be read: ${(error as Error).message}`);
  }
  try {
    if (checked.realRoot !== null) await openedInsideRoot(handle, path, checked.realRoot);
    const stats = await handle.stat();
    if (!stats.isFile()) throw new RefusedFileError(path, `is not a regular file (${kindOf(stats)}), so it is not read`);
    if (stats.size > maxBytes) throw new RefusedFileError(path, `is larger than ${maxBytes} bytes, so it is not read`);
    return await readCapped(handle, path, maxBytes);
  } catch (error) {
    if (error instanceof RefusedFileError) throw error;
    throw new RefusedFileError(path, `cannot be read: ${(error as Error).message}`);
  } finally {
    await handle.close();
  }
}
