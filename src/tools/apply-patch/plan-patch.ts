// Dry run of a whole patch against an in-memory view of the files it touches. Every check
// (paths inside the root, targets present or absent, text not binary, every hunk placed) happens
// here, before anything is written; the result is the exact set of file changes to commit.

import { ToolError } from '../../agent/index.js';
import type { FileChange } from '../atomic-write.js';
import { resolveInsideRoot } from '../path-policy.js';
import { assertCanCreate, decodeFile, encodeText, isDirectoryError, readExistingFile, statOrNull } from '../text-file/index.js';
import { applyHunks } from './apply-hunks.js';
import type { PatchOperation } from './parse-patch.js';

interface FileState {
  exists: boolean;
  text: string;
  bom: boolean;
  /** Permission bits to write with; null means the commit's default (keep existing / new-file mode). */
  mode: number | null;
}

interface TrackedFile {
  absolute: string;
  relative: string;
  original: FileState;
  current: FileState;
  /** Why the file cannot be updated or deleted, when it exists but is not editable text. */
  notText: string | null;
}

export type PatchSummaryEntry =
  | { marker: 'A'; path: string; after: string }
  | { marker: 'M'; path: string; before: string; after: string }
  | { marker: 'D'; path: string }
  | { marker: 'R'; path: string; to: string; before: string; after: string };

export interface PatchPlan {
  changes: FileChange[];
  /** One entry per operation, in patch order; texts are LF-normalized for display. */
  summary: PatchSummaryEntry[];
}

export async function planPatch(operations: readonly PatchOperation[], root: string): Promise<PatchPlan> {
  const files = new Map<string, TrackedFile>();
  const summary: PatchSummaryEntry[] = [];

  const track = async (path: string): Promise<TrackedFile> => {
    const resolved = await resolveInsideRoot(root, path);
    const known = files.get(resolved.absolute);
    if (known !== undefined) return known;
    if (resolved.relative === '.') throw isDirectoryError(path);
    const stats = resolved.exists ? await statOrNull(resolved.absolute) : null;
    let original: FileState = { exists: false, text: '', bom: false, mode: null };
    let notText: string | null = null;
    if (stats?.isDirectory()) {
      throw new ToolError('PATCH_FILE_EXISTS', `${resolved.relative} is a directory; a patch can only change files.`);
    }
    if (stats !== null) {
      const decoded = decodeFile((await readExistingFile(resolved.absolute, resolved.relative)).bytes);
      if (decoded.kind === 'binary') notText = decoded.reason;
      const text = decoded.kind === 'text' ? decoded.text : '';
      original = { exists: true, text, bom: decoded.kind === 'text' && decoded.bom, mode: stats.mode & 0o7777 };
    }
    const file: TrackedFile = { absolute: resolved.absolute, relative: resolved.relative, original, current: { ...original }, notText };
    files.set(resolved.absolute, file);
    return file;
  };

  const requireText = (file: TrackedFile, verb: string): void => {
    if (!file.current.exists) {
      const why = file.original.exists ? 'it was already deleted or moved earlier in this patch' : 'it does not exist';
      throw new ToolError('PATCH_FILE_NOT_FOUND', `Cannot ${verb} ${file.relative}: ${why}.`);
    }
    if (file.notText !== null) {
      throw new ToolError('BINARY_FILE', `Cannot ${verb} ${file.relative}: it looks binary (${file.notText}).`);
    }
  };

  const requireAbsent = async (file: TrackedFile, what: string): Promise<void> => {
    if (file.current.exists) {
      const hint = file.original.exists ? "use '*** Update File:' to change an existing file" : 'it is added earlier in this patch';
      throw new ToolError('PATCH_FILE_EXISTS', `Cannot ${what}: ${file.relative} already exists (${hint}).`);
    }
    if (!file.original.exists) await assertCanCreate(file.absolute, file.relative);
  };

  for (const operation of operations) {
    if (operation.kind === 'add') {
      const file = await track(operation.path);
      await requireAbsent(file, `add ${file.relative}`);
      const text = operation.lines.length === 0 ? '' : `${operation.lines.join('\n')}\n`;
      file.current = { exists: true, text, bom: false, mode: null };
      file.notText = null;
      summary.push({ marker: 'A', path: file.relative, after: text });
    } else if (operation.kind === 'delete') {
      const file = await track(operation.path);
      requireText(file, 'delete');
      file.current = { ...file.current, exists: false };
      summary.push({ marker: 'D', path: file.relative });
    } else {
      const source = await track(operation.path);
      requireText(source, 'update');
      const before = source.current.text;
      const after = operation.hunks.length === 0 ? before : applyHunks(before, operation.hunks, source.relative);
      const destination = operation.moveTo === null ? source : await track(operation.moveTo);
      if (destination === source) {
        source.current = { ...source.current, text: after };
        summary.push({ marker: 'M', path: source.relative, before: lf(before), after: lf(after) });
        continue;
      }
      await requireAbsent(destination, `move ${source.relative} to ${destination.relative}`);
      destination.current = { exists: true, text: after, bom: source.current.bom, mode: source.current.mode };
      destination.notText = null;
      source.current = { ...source.current, exists: false };
      summary.push({ marker: 'R', path: source.relative, to: destination.relative, before: lf(before), after: lf(after) });
    }
  }

  const changes: FileChange[] = [];
  for (const file of files.values()) {
    const { original, current } = file;
    if (current.exists) {
      const unchanged = original.exists && original.text === current.text && original.bom === current.bom;
      if (unchanged) continue;
      const content = encodeText(current.text, current.bom);
      changes.push(current.mode === null ? { path: file.absolute, content } : { path: file.absolute, content, mode: current.mode });
    } else if (original.exists) {
      changes.push({ path: file.absolute, content: null });
    }
  }
  return { changes, summary };
}

function lf(text: string): string {
  return text.replace(/\r\n/g, '\n');
}
