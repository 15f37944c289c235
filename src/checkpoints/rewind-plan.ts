// What a rewind to before turn N would do to the project, worked out before anything is touched:
// for each file a checkpoint of turn N or later names, the state it had before its first such
// change (the target), what it holds now, and whether it was changed outside Glassbox since —
// its bytes or mode are no longer what Glassbox last wrote or saw (the last checkpoint's `after`,
// or what an earlier rewind put there). A plan with conflicts is refused as a whole.

import { lstat, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { structuredPatch } from 'diff';
import type { FileState, SessionRecord } from '../protocol/index.js';
import { isGitMetadataName, isInside, realLocation } from '../workspace/index.js';
import { sha256 } from './blob-store.js';

/** A file as it is now on disk. */
export type CurrentFile =
  | { kind: 'absent' }
  | { kind: 'file'; bytes: Buffer; sha256: string; mode: number }
  | { kind: 'other'; what: string };

export interface PlannedRestore {
  path: string;
  /** Absolute path, checked: inside the root after realpath, not in `.git` or the home. */
  absolute: string;
  target: Extract<FileState, { kind: 'absent' | 'file' }>;
  current: CurrentFile;
  /** The turn whose change this undoes first. */
  since: number;
}

export interface RewindProblem {
  path: string;
  why: string;
}

export interface RewindPlan {
  toTurn: number;
  restores: PlannedRestore[];
  /** Files changed outside Glassbox since, or that may not be restored here: the rewind is refused. */
  conflicts: RewindProblem[];
  /** Files a checkpoint has no copy of (secret files, too large): reported, left as they are. */
  skipped: RewindProblem[];
}

export interface PlanOptions {
  /** Real path of the project root. */
  root: string;
  home: string;
}

const UNCOPIED_WHY: Record<Extract<FileState, { kind: 'uncopied' }>['why'], string> = {
  secret: 'a secret file: Glassbox keeps no copy of it',
  large: 'it was too large to copy',
  unreadable: 'it could not be read when the checkpoint was taken',
  'not-a-file': 'it was not a regular file (a symlink)',
};

/** The turns a session has, for picking one: number and prompt. */
export function sessionTurns(records: readonly SessionRecord[]): Array<{ turn: number; prompt: string }> {
  return records.flatMap((record) => (record.type === 'turn_started' ? [{ turn: record.turn, prompt: record.prompt }] : []));
}

/**
 * Where `rel` may be restored: the absolute path, or why not. Never outside the root after
 * realpath, never through a symlink (one swapped in after the checkpoint must not redirect the
 * write), never into `.git` or Glassbox's home.
 */
export async function restoreLocation(rel: string, options: PlanOptions): Promise<{ absolute: string } | { why: string }> {
  const segments = rel.split('/');
  if (rel.includes('\0') || rel.startsWith('/') || segments.some((segment) => segment === '' || segment === '.' || segment === '..')) {
    return { why: 'not a plain project-relative path' };
  }
  if (segments.some(isGitMetadataName)) return { why: 'inside a .git directory' };
  const absolute = join(options.root, ...segments);
  if (isInside(options.home, absolute)) return { why: "inside Glassbox's home" };
  const real = await realLocation(absolute);
  if (!isInside(options.root, real.absolute)) return { why: `resolves to ${real.absolute}, outside the project root` };
  if (real.absolute !== absolute) return { why: `a symlink on its path now leads to ${real.absolute}` };
  return { absolute };
}

export async function readCurrent(absolute: string): Promise<CurrentFile> {
  const info = await lstat(absolute).catch(() => null);
  if (info === null) return { kind: 'absent' };
  if (info.isSymbolicLink()) return { kind: 'other', what: 'a symlink' };
  if (info.isDirectory()) return { kind: 'other', what: 'a directory' };
  if (!info.isFile()) return { kind: 'other', what: 'not a regular file' };
  const bytes = await readFile(absolute);
  return { kind: 'file', bytes, sha256: sha256(bytes), mode: info.mode & 0o7777 };
}

/** Whether `current` is exactly `state` (bytes and mode); null when `state` cannot be compared. */
export function matches(current: CurrentFile, state: FileState): boolean | null {
  if (state.kind === 'uncopied') return null;
  if (state.kind === 'absent') return current.kind === 'absent';
  return current.kind === 'file' && current.sha256 === state.sha256 && current.mode === state.mode;
}

export async function planRewind(records: readonly SessionRecord[], toTurn: number, options: PlanOptions): Promise<RewindPlan> {
  const targets = new Map<string, { state: FileState; since: number }>();
  const lastSeen = new Map<string, FileState>();
  for (const record of records) {
    if (record.type === 'file_checkpoint') {
      if (record.turn >= toTurn && !targets.has(record.path)) targets.set(record.path, { state: record.before, since: record.turn });
      lastSeen.set(record.path, record.after);
    } else if (record.type === 'rewind' && record.files !== null) {
      for (const file of record.files) lastSeen.set(file.path, file.state);
    }
  }
  const plan: RewindPlan = { toTurn, restores: [], conflicts: [], skipped: [] };
  for (const [path, { state: target, since }] of [...targets].sort(([a], [b]) => a.localeCompare(b))) {
    if (target.kind === 'uncopied') {
      plan.skipped.push({ path, why: UNCOPIED_WHY[target.why] });
      continue;
    }
    const location = await restoreLocation(path, options);
    if ('why' in location) {
      plan.conflicts.push({ path, why: `may not be restored: ${location.why}` });
      continue;
    }
    const current = await readCurrent(location.absolute);
    const seen = lastSeen.get(path) ?? { kind: 'absent' };
    const unchanged = matches(current, seen);
    if (unchanged === null) {
      if (seen.kind === 'uncopied' && seen.why === 'secret') plan.skipped.push({ path, why: UNCOPIED_WHY.secret });
      else plan.conflicts.push({ path, why: 'Glassbox kept no copy of its last state, so an outside change cannot be ruled out' });
      continue;
    }
    if (!unchanged) {
      plan.conflicts.push({ path, why: `changed outside Glassbox since (${describeCurrent(current)}, not what Glassbox last wrote)` });
      continue;
    }
    if (matches(current, target) === true) continue;
    plan.restores.push({ path, absolute: location.absolute, target, current, since });
  }
  return plan;
}

function describeCurrent(current: CurrentFile): string {
  switch (current.kind) {
    case 'absent':
      return 'it is gone';
    case 'other':
      return `it is now ${current.what}`;
    case 'file':
      return `${current.bytes.length} bytes, mode ${octal(current.mode)}`;
  }
}

function octal(mode: number): string {
  return mode.toString(8).padStart(4, '0');
}

function isText(bytes: Buffer): boolean {
  if (bytes.includes(0)) return false;
  return Buffer.from(bytes.toString('utf8'), 'utf8').equals(bytes);
}

/**
 * The diff of one restore, from now to the target, as unified-diff lines (`--- `/`+++ ` headers,
 * hunks); binary content and mode changes are said in words.
 */
export function restoreDiff(restore: PlannedRestore, targetBytes: Buffer | null): string[] {
  const { path, current, target } = restore;
  const now = current.kind === 'file' ? current.bytes : null;
  const lines: string[] = [];
  if (target.kind === 'absent') lines.push(`delete ${path} (created in turn ${restore.since} or later)`);
  else if (now === null) lines.push(`recreate ${path} (deleted in turn ${restore.since} or later)`);
  else lines.push(`restore ${path} (changed in turn ${restore.since} or later)`);
  const beforeMode = current.kind === 'file' ? current.mode : null;
  const afterMode = target.kind === 'file' ? target.mode : null;
  if (beforeMode !== null && afterMode !== null && beforeMode !== afterMode) lines.push(`mode ${octal(beforeMode)} → ${octal(afterMode)}`);
  const oldBytes = now ?? Buffer.alloc(0);
  const newBytes = targetBytes ?? Buffer.alloc(0);
  if (oldBytes.equals(newBytes)) return lines;
  if (!isText(oldBytes) || !isText(newBytes)) {
    lines.push(`binary content: ${oldBytes.length} bytes → ${newBytes.length} bytes`);
    return lines;
  }
  const patch = structuredPatch(`a/${path}`, `b/${path}`, oldBytes.toString('utf8'), newBytes.toString('utf8'), undefined, undefined, {
    context: 3,
  });
  lines.push(now === null ? '--- /dev/null' : `--- a/${path}`, target.kind === 'absent' ? '+++ /dev/null' : `+++ b/${path}`);
  for (const hunk of patch.hunks) {
    lines.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`);
    for (const line of hunk.lines) if (!line.startsWith('\\')) lines.push(line);
  }
  return lines;
}
