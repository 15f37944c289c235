// `/diff`: what changed in the workspace during this session. When the session opens here (start,
// /clear, /resume, /fork) a snapshot of the project's files is taken (workspace-snapshot.ts) and
// a turn waits for it before it starts, so the snapshot is always older than anything the agent
// did. `/diff` compares the files now with it: changes made by shell commands and MCP tools show
// as well as those of the write tools. As a supplement, the first time a write tool names a file
// the snapshot holds no copy of (a skipped folder, over the size budget) its content is kept right
// before the tool runs. The comparison cannot tell who changed a file: edits you make in your
// own editor meanwhile show too, and /diff says so.

import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { structuredPatch } from 'diff';
import { isInside, isSecretPath, resolveRoot } from '../workspace/index.js';
import { argumentsObject, writtenPaths } from '../views/index.js';
import {
  DEFAULT_SNAPSHOT_LIMITS,
  listStamps,
  readContent,
  sameStamp,
  takeSnapshot,
  type FileStamp,
  type SnapshotEntry,
  type SnapshotLimits,
  type WorkspaceSnapshot,
} from './workspace-snapshot.js';

const MAX_BASELINE_BYTES = 1024 * 1024;

/** Unified-diff lines (hunk headers and `+`/`-`/` ` lines) from one text to another. */
export function diffLines(oldText: string, newText: string, context = 3): string[] {
  const patch = structuredPatch('a', 'b', oldText, newText, undefined, undefined, { context, maxEditLength: 4000 });
  if (patch === undefined) return ['(diff too large to preview)'];
  const lines: string[] = [];
  for (const hunk of patch.hunks) {
    lines.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`);
    for (const line of hunk.lines) if (!line.startsWith('\\')) lines.push(line);
  }
  return lines;
}

type Baseline = { kind: 'absent' } | { kind: 'text'; text: string } | { kind: 'unreadable'; why: string };

export interface FileChange {
  path: string;
  /** Unified diff lines; empty when there is nothing to show (see `note`). */
  lines: string[];
  status: 'added' | 'modified' | 'deleted' | 'unknown';
  /** Why no diff is shown: a secret file, a binary file, no copy from the start. */
  note: string | null;
}

export interface ChangeReport {
  files: FileChange[];
  /** When the snapshot was taken; null when it failed. */
  since: Date | null;
  /** The project had more files than the snapshot walks. */
  truncated: boolean;
  /** Paths written in turns before this process opened the session: no baseline for those. */
  earlierPaths: string[];
}

const UNCOPIED_NOTE: Record<Exclude<SnapshotEntry['uncopied'], null>, string> = {
  secret: 'a secret file: contents not shown',
  large: 'no copy from the start: larger than 1 MiB',
  budget: 'no copy from the start: the snapshot kept 32 MiB of copies',
  unreadable: 'no copy from the start: it could not be read',
};

export class WorkspaceChanges {
  private snapshot: WorkspaceSnapshot | null = null;
  private taking: Promise<void> | null = null;
  private readonly baselines = new Map<string, Baseline>();
  private earlier = new Set<string>();

  constructor(
    private readonly root: string,
    private readonly limits: SnapshotLimits = DEFAULT_SNAPSHOT_LIMITS,
  ) {}

  private realRootPath: string | null = null;

  /** The project's real path, for the containment check of baselines (the root as given if it is gone). */
  private realRoot(): string {
    if (this.realRootPath === null) {
      try {
        this.realRootPath = resolveRoot(this.root);
      } catch {
        this.realRootPath = this.root;
      }
    }
    return this.realRootPath;
  }

  /** Starts over: a new snapshot is taken now (in the background; `ready` waits for it). */
  reset(earlierPaths: Iterable<string> = []): void {
    this.baselines.clear();
    this.earlier = new Set(earlierPaths);
    this.snapshot = null;
    const taking = takeSnapshot(this.root, this.limits).then(
      (snapshot) => {
        if (this.taking === taking) this.snapshot = snapshot;
      },
      () => {},
    );
    this.taking = taking;
  }

  /** Resolves once the snapshot is taken (or failed; taken now if none was): await before a turn may change files. */
  ready(): Promise<void> {
    if (this.taking === null) this.reset();
    return this.taking!;
  }

  /** Call at `tool_requested`, before the tool can run. */
  noteToolCall(name: string, rawArguments: string): void {
    // The files the tool's presentation says the call writes (views/); none for other tools.
    for (const path of writtenPaths(name, argumentsObject(rawArguments))) {
      const absolute = resolve(this.root, path);
      const rel = relative(this.root, absolute);
      const key = rel.split(sep).join('/');
      // A secret file's content is never copied; the snapshot still reports that it changed.
      if (rel.startsWith('..') || isAbsolute(rel) || this.baselines.has(key) || isSecretPath(key)) continue;
      const fromSnapshot = this.snapshot?.files.get(key);
      if (fromSnapshot && (fromSnapshot.content !== null || fromSnapshot.uncopied === 'secret')) continue;
      // Not in the snapshot at all: a new file unless a skipped folder hid it, so look now.
      this.baselines.set(key, readBaseline(this.realRoot(), absolute));
    }
  }

  async changes(): Promise<ChangeReport> {
    await this.ready();
    const snapshot = this.snapshot;
    const files = new Map<string, FileChange>();
    if (snapshot !== null) {
      const { stamps } = await listStamps(this.root, this.limits.maxFiles, this.limits.excluded);
      const paths = new Set([...snapshot.files.keys(), ...stamps.keys()]);
      for (const path of paths) {
        const change = await this.compare(path, snapshot.files.get(path) ?? null, stamps.get(path) ?? null, snapshot.truncated);
        if (change !== null) files.set(path, change);
      }
    }
    for (const [path, baseline] of this.baselines) {
      const known = files.get(path);
      if (known && known.note === null) continue;
      const change = compareBaseline(path, baseline, readBaseline(this.realRoot(), resolve(this.root, path)));
      if (change !== null) files.set(path, change);
      else files.delete(path);
    }
    const sorted = [...files.values()].sort((a, b) => a.path.localeCompare(b.path));
    const earlierPaths = [...this.earlier].filter((p) => !files.has(p)).sort();
    return { files: sorted, since: snapshot?.takenAt ?? null, truncated: snapshot?.truncated ?? false, earlierPaths };
  }

  private async compare(path: string, before: SnapshotEntry | null, now: FileStamp | null, truncated: boolean): Promise<FileChange | null> {
    if (before !== null && now !== null && sameStamp(before, now)) return null;
    // Past the walk's cap, a file missing from one side may just be past the cap on the other.
    if (truncated && (before === null || now === null)) return null;
    const secret = isSecretPath(path);
    const after = now === null || secret || now.size > this.limits.maxFileBytes ? null : await readContent(this.root, path, now);
    if (before === null) {
      if (secret) return { path, status: 'added', lines: [], note: UNCOPIED_NOTE.secret };
      return withDiff(
        path,
        'added',
        Buffer.alloc(0),
        after,
        now !== null && now.size > this.limits.maxFileBytes ? 'larger than 1 MiB' : null,
      );
    }
    if (before.content === null) {
      const note = UNCOPIED_NOTE[before.uncopied ?? 'unreadable'];
      return { path, status: now === null ? 'deleted' : 'modified', lines: [], note };
    }
    if (now === null) return withDiff(path, 'deleted', before.content, Buffer.alloc(0), null);
    if (after?.equals(before.content)) return null; // written back as it was, or only touched
    return withDiff(path, 'modified', before.content, after, after === null ? 'larger than 1 MiB now' : null);
  }
}

function isBinary(bytes: Buffer): boolean {
  return bytes.subarray(0, 8000).includes(0);
}

function withDiff(path: string, status: FileChange['status'], before: Buffer, after: Buffer | null, missing: string | null): FileChange {
  if (after === null) return { path, status, lines: [], note: missing ?? 'it could not be read' };
  if (isBinary(before) || isBinary(after)) return { path, status, lines: [], note: 'a binary file' };
  const text = (bytes: Buffer): string => bytes.toString('utf8').replace(/\r\n/g, '\n');
  return { path, status, lines: diffLines(text(before), text(after)), note: null };
}

function compareBaseline(path: string, baseline: Baseline, now: Baseline): FileChange | null {
  if (baseline.kind === 'unreadable' || now.kind === 'unreadable')
    return { path, status: 'unknown', lines: [], note: 'it could not be read' };
  const before = baseline.kind === 'text' ? baseline.text : null;
  const after = now.kind === 'text' ? now.text : null;
  if (before === after) return null;
  const status = before === null ? 'added' : after === null ? 'deleted' : 'modified';
  return { path, status, lines: diffLines(before ?? '', after ?? ''), note: null };
}

/**
 * The file as it is before a write tool runs. This runs at `tool_requested`, before the permission
 * decision, on a path the model chose: so it is resolved to its real location and must stay in
 * the project (a committed `d -> /dev` symlink must not make it read `/dev/zero`), is opened
 * non-blocking (a FIFO would block the whole terminal), must be a regular file, and is read only
 * up to the cap.
 */
function readBaseline(realRoot: string, absolute: string): Baseline {
  let real: string;
  try {
    real = realpathSync.native(absolute);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? { kind: 'absent' } : { kind: 'unreadable', why: code ?? 'unreadable' };
  }
  if (!isInside(realRoot, real)) return { kind: 'unreadable', why: 'outside the project' };
  let fd: number;
  try {
    fd = openSync(real, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    return { kind: 'unreadable', why: (error as NodeJS.ErrnoException).code ?? 'unreadable' };
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return { kind: 'unreadable', why: 'not a regular file' };
    if (stats.size > MAX_BASELINE_BYTES) return { kind: 'unreadable', why: 'too large' };
    const buffer = Buffer.alloc(MAX_BASELINE_BYTES + 1);
    let length = 0;
    for (;;) {
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
      if (length > MAX_BASELINE_BYTES) return { kind: 'unreadable', why: 'too large' };
    }
    return { kind: 'text', text: buffer.subarray(0, length).toString('utf8').replace(/\r\n/g, '\n') };
  } catch (error) {
    return { kind: 'unreadable', why: (error as NodeJS.ErrnoException).code ?? 'unreadable' };
  } finally {
    closeSync(fd);
  }
}
