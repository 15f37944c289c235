// One writer per session. Two processes appending to the same file would interleave turns and
// corrupt the history, so a writer first creates `<id>.lock` exclusively (O_EXCL) and records who
// it is. A lock left behind by a crashed process on this host is recognised (its pid is gone) and
// taken over; a lock held by a live process, or by another host we cannot check, fails fast.

import { readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { unlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { SessionLockedError, type LockOwner } from './session-errors.js';

/** A lock file with unreadable content younger than this may still be being written. */
const UNREADABLE_LOCK_GRACE_MS = 2000;
const TAKEOVER_ATTEMPTS = 3;

export interface HeldLock {
  readonly path: string;
  readonly owner: LockOwner;
  release(): Promise<void>;
}

// Locks this process holds, removed synchronously if the process exits without closing them.
const heldLockPaths = new Set<string>();

function releaseAllOnExit(): void {
  for (const path of heldLockPaths) {
    try {
      unlinkSync(path);
    } catch {
      // best effort: the process is exiting anyway
    }
  }
  heldLockPaths.clear();
}

function track(path: string): void {
  if (heldLockPaths.size === 0) process.on('exit', releaseAllOnExit);
  heldLockPaths.add(path);
}

function untrack(path: string): void {
  heldLockPaths.delete(path);
  if (heldLockPaths.size === 0) process.off('exit', releaseAllOnExit);
}

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function parseOwner(text: string): LockOwner | null {
  try {
    const value = JSON.parse(text) as Partial<LockOwner> | null;
    if (
      value !== null &&
      typeof value === 'object' &&
      Number.isInteger(value.pid) &&
      (value.pid as number) > 0 &&
      typeof value.host === 'string' &&
      typeof value.startedAt === 'string'
    ) {
      return { pid: value.pid as number, host: value.host, startedAt: value.startedAt };
    }
  } catch {
    // unreadable content is handled by the caller
  }
  return null;
}

interface ExistingLock {
  text: string;
  owner: LockOwner | null;
  ageMs: number;
}

async function readExisting(path: string): Promise<ExistingLock | null> {
  try {
    const [text, info] = await Promise.all([readFile(path, 'utf8'), stat(path)]);
    return { text, owner: parseOwner(text), ageMs: Date.now() - info.mtimeMs };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

function isStale(lock: ExistingLock, host: string): boolean {
  if (lock.owner === null) return lock.ageMs > UNREADABLE_LOCK_GRACE_MS;
  return lock.owner.host === host && !isProcessAlive(lock.owner.pid);
}

export async function acquireSessionLock(path: string, sessionId: string): Promise<HeldLock> {
  const owner: LockOwner = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
  const content = `${JSON.stringify(owner)}\n`;
  let lastSeen: LockOwner | null = null;
  for (let attempt = 0; attempt < TAKEOVER_ATTEMPTS; attempt += 1) {
    try {
      await writeFile(path, content, { flag: 'wx', mode: 0o600 });
      track(path);
      return createHeldLock(path, owner);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const existing = await readExisting(path);
    if (existing === null) continue; // released between our attempt and the read: try again
    lastSeen = existing.owner;
    if (!isStale(existing, owner.host)) throw new SessionLockedError(sessionId, existing.owner);
    // Remove the stale lock only if it is still the one we judged, so a lock another process
    // has just taken over is not deleted from under it.
    const again = await readExisting(path);
    if (again !== null && again.text === existing.text) await unlinkIfPresent(path);
  }
  throw new SessionLockedError(sessionId, lastSeen);
}

async function unlinkIfPresent(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

function createHeldLock(path: string, owner: LockOwner): HeldLock {
  let released = false;
  return {
    path,
    owner,
    async release() {
      if (released) return;
      released = true;
      untrack(path);
      await unlinkIfPresent(path);
    },
  };
}
