// What a tool call changed in the project, found without git: the project's files are stamped
// (size, times, inode: workspace/'s walk, the one `/diff` uses) right before and right after every
// call that may write, and each file whose stamp moved becomes a `file_checkpoint` record with its
// state before and after. Comparing stamps rather than trusting a tool's declared paths catches
// what a shell command did (`sed -i`, `rm`, a generator) the same way as a write tool.
//
// The bytes of "before" must have been read before the call, so the checkpointer keeps a copy of
// each file it has seen (capped per file and in all) and refreshes the copies whose stamp moved
// since, outside Glassbox included. Copies go to the blob store only when a record needs them.
// Secret files are stamped, never copied: a rewind reports them and leaves them alone.

import { lstat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { FileState } from '../protocol/index.js';
import {
  isGitMetadataName,
  isInside,
  isSecretPath,
  listStamps,
  readContent,
  readContentSync,
  sameStamp,
  stampOf,
  type FileStamp,
} from '../workspace/index.js';
import type { BlobStore } from './blob-store.js';

/** A file over this size has no copy (a declared write target: `MAX_DECLARED_BYTES`). */
const MAX_COPY_BYTES = 8 * 1024 * 1024;
const MAX_DECLARED_BYTES = 32 * 1024 * 1024;
/** What the kept copies may hold in memory in all; past it, files are stamped only. */
const MAX_MEMORY_BYTES = 64 * 1024 * 1024;
const MAX_FILES = 20_000;
/** Files copied between two turns of the event loop (the first call that may write copies the project). */
const READS_PER_SLICE = 64;

type UncopiedWhy = Extract<FileState, { kind: 'uncopied' }>['why'];

interface Known {
  stamp: FileStamp;
  content: Buffer | null;
  why: UncopiedWhy | null;
}

/** One file a call changed. */
export interface FileChangeRecord {
  path: string;
  before: FileState;
  after: FileState;
}

/** The project's stamps right before a call. */
export interface CallMark {
  stamps: Map<string, FileStamp>;
  /** Declared targets outside the walk (a skipped folder), stamped one by one. */
  extras: string[];
}

export class FileCheckpointer {
  private known = new Map<string, Known>();
  private memory = 0;

  constructor(
    private readonly root: string,
    private readonly blobs: BlobStore,
    /** Project-relative folders not walked (Glassbox's home inside the project). */
    private readonly excluded: readonly string[] = [],
  ) {}

  /** Stamp the project (and `declared`, the paths a write tool names) and refresh stale copies. */
  async before(declared: readonly string[]): Promise<CallMark> {
    const extras = declared.map((path) => this.relativeOf(path)).filter((rel): rel is string => rel !== null);
    const stamps = await this.stampAll(extras);
    const declaredSet = new Set(extras);
    const stale: Array<[string, FileStamp, boolean]> = [];
    for (const [rel, stamp] of stamps) {
      const known = this.known.get(rel);
      if (known !== undefined && sameStamp(known.stamp, stamp) && (known.why !== 'large' || !declaredSet.has(rel))) continue;
      stale.push([rel, stamp, declaredSet.has(rel)]);
    }
    await this.captureAll(stale);
    // Gone since the last look (removed outside Glassbox): its "before" is absent now.
    for (const rel of [...this.known.keys()]) if (!stamps.has(rel)) this.forget(rel);
    return { stamps, extras };
  }

  /** The files whose stamp moved during the call, with their states; the copies are updated. */
  async after(mark: CallMark): Promise<FileChangeRecord[]> {
    const stamps = await this.stampAll(mark.extras);
    const declared = new Set(mark.extras);
    const changed = new Set<string>();
    for (const [rel, stamp] of stamps) {
      const previous = mark.stamps.get(rel);
      if (previous === undefined || !sameStamp(previous, stamp)) changed.add(rel);
    }
    for (const rel of mark.stamps.keys()) if (!stamps.has(rel)) changed.add(rel);
    const records: FileChangeRecord[] = [];
    for (const rel of [...changed].sort()) {
      const before = await this.stateOf(this.known.get(rel));
      const stamp = stamps.get(rel);
      if (stamp === undefined) this.forget(rel);
      else this.keep(rel, await this.capture(rel, stamp, declared.has(rel)));
      const after = await this.stateOf(this.known.get(rel));
      // A file without a copy is recorded whenever its stamp moved: a rewind must name what it cannot restore.
      const uncopied = before.kind === 'uncopied' || after.kind === 'uncopied';
      if (uncopied || JSON.stringify(before) !== JSON.stringify(after)) records.push({ path: rel, before, after });
    }
    return records;
  }

  private relativeOf(path: string): string | null {
    const absolute = resolve(this.root, path);
    if (!isInside(this.root, absolute)) return null;
    const rel = relative(this.root, absolute).split(sep).join('/');
    if (rel === '' || rel.split('/').some(isGitMetadataName)) return null;
    return rel;
  }

  private async stampAll(extras: readonly string[]): Promise<Map<string, FileStamp>> {
    const { stamps } = await listStamps(this.root, MAX_FILES, this.excluded);
    for (const rel of extras) {
      if (stamps.has(rel)) continue;
      const info = await lstat(resolve(this.root, rel)).catch(() => null);
      if (info === null || !(info.isFile() || info.isSymbolicLink())) continue;
      stamps.set(rel, stampOf(info));
    }
    return stamps;
  }

  /**
   * `capture` for many files, with synchronous reads in slices of READS_PER_SLICE: the first
   * call that may write copies the whole project (1,034 files here: ~0.4 s with one awaited
   * read after another, before the command could start; ~0.2 s with 32 reads in flight). What
   * to copy is decided first, in order, against the memory budget as if each copy were as large
   * as its stamp (a read that comes back shorter or fails only leaves room).
   */
  private async captureAll(files: ReadonlyArray<[string, FileStamp, boolean]>): Promise<void> {
    let projected = this.memory;
    const decided: Array<{ rel: string; stamp: FileStamp; known: Known | null }> = [];
    for (const [rel, stamp, declared] of files) {
      const previous = this.known.get(rel)?.content?.length ?? 0;
      const why = this.uncopiedWhy(rel, stamp, declared, projected - previous);
      if (why !== null) {
        projected -= previous;
        decided.push({ rel, stamp, known: { stamp, content: null, why } });
      } else {
        projected += stamp.size - previous;
        decided.push({ rel, stamp, known: null });
      }
    }
    for (const [index, { rel, stamp, known }] of decided.entries()) {
      if (known !== null) {
        this.keep(rel, known);
        continue;
      }
      const content = readContentSync(this.root, rel, stamp);
      this.keep(rel, content === null ? { stamp, content: null, why: 'unreadable' } : { stamp, content, why: null });
      // Streaming and timers go on between slices of a large project's first copy.
      if ((index + 1) % READS_PER_SLICE === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  /** Why `rel` gets no copy, or null; `memory` is what the other copies hold without this file's. */
  private uncopiedWhy(rel: string, stamp: FileStamp, declared: boolean, memory: number): UncopiedWhy | null {
    if (stamp.symlink) return 'not-a-file';
    if (isSecretPath(rel)) return 'secret';
    if (stamp.size > (declared ? MAX_DECLARED_BYTES : MAX_COPY_BYTES)) return 'large';
    if (!declared && memory + stamp.size > MAX_MEMORY_BYTES) return 'large';
    return null;
  }

  private async capture(rel: string, stamp: FileStamp, declared: boolean): Promise<Known> {
    const previous = this.known.get(rel)?.content?.length ?? 0;
    const why = this.uncopiedWhy(rel, stamp, declared, this.memory - previous);
    if (why !== null) return { stamp, content: null, why };
    const content = await readContent(this.root, rel, stamp);
    return content === null ? { stamp, content: null, why: 'unreadable' } : { stamp, content, why: null };
  }

  private keep(rel: string, entry: Known): void {
    this.forget(rel);
    this.known.set(rel, entry);
    this.memory += entry.content?.length ?? 0;
  }

  private forget(rel: string): void {
    this.memory -= this.known.get(rel)?.content?.length ?? 0;
    this.known.delete(rel);
  }

  private async stateOf(entry: Known | undefined): Promise<FileState> {
    if (entry === undefined) return { kind: 'absent' };
    if (entry.content === null) return { kind: 'uncopied', why: entry.why ?? 'unreadable' };
    const sha256 = await this.blobs.put(entry.content);
    return { kind: 'file', sha256, size: entry.content.length, mode: entry.stamp.mode };
  }
}

/** Glassbox's home as a folder of the project not to walk, when it is inside the project. */
export function excludedHome(root: string, home: string): string[] {
  const rel = relative(root, home).split(sep).join('/');
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? [] : [rel];
}
