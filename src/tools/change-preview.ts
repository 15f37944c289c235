// What a write_file, edit_file or apply_patch call would change, worked out before it runs (for
// the person asked to approve it): a dry run against the files as they are on disk now, through
// the same path resolution and patch planning the tools use, shown as a diff per file under its
// project-relative path. Nothing is written. A call that would fail says why instead.

import { realpath } from 'node:fs/promises';
import { structuredPatch } from 'diff';
import { ToolError } from '../agent/index.js';
import { argumentsObject, patchPaths } from '../views/index.js';
import { isSecretPath } from '../workspace/index.js';
import { parsePatch, planPatch } from './apply-patch/index.js';
import { resolveInsideRoot } from './path-policy.js';
import { decodeFile, readExistingFile } from './text-file/index.js';

export type PreviewLineKind = 'add' | 'del' | 'ctx' | 'hunk';

export interface PreviewLine {
  kind: PreviewLineKind;
  text: string;
}

export interface FilePreview {
  /** Relative to the project root, `/`-separated. */
  path: string;
  change: 'add' | 'update' | 'delete' | 'move';
  /** The destination of a move. */
  to: string | null;
  /** Unified-diff lines (three lines of context), at most `MAX_PREVIEW_LINES`. */
  lines: PreviewLine[];
  /** Diff lines left out past the cap. */
  omittedLines: number;
}

export interface ChangePreview {
  files: FilePreview[];
  /** Why the call would fail as it stands (its error), or why no diff can be shown; null when fine. */
  problem: string | null;
}

const MAX_PREVIEW_LINES = 400;
// Texts beyond this are not diffed: an approval card should come up at once.
const MAX_PREVIEW_CHARS = 2 * 1024 * 1024;
const MAX_EDIT_LENGTH = 4_000;
const PREVIEWED_TOOLS = new Set(['write_file', 'edit_file', 'apply_patch']);

function lf(text: string): string {
  return text.replace(/\r\n/g, '\n');
}

/** The diff lines from `before` to `after` (LF texts), or a problem when they are too big to diff. */
function diffLines(before: string, after: string): { lines: PreviewLine[]; omittedLines: number } | string {
  if (before.length > MAX_PREVIEW_CHARS || after.length > MAX_PREVIEW_CHARS) return 'the file is too large to preview';
  const patch = structuredPatch('a', 'b', before, after, undefined, undefined, { context: 3, maxEditLength: MAX_EDIT_LENGTH });
  if (patch === undefined) return 'too many changed lines to preview';
  const lines: PreviewLine[] = [];
  for (const hunk of patch.hunks) {
    lines.push({ kind: 'hunk', text: `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@` });
    for (const line of hunk.lines) {
      if (line.startsWith('\\')) continue; // "\ No newline at end of file"
      const kind: PreviewLineKind = line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : 'ctx';
      lines.push({ kind, text: line.slice(1) });
    }
  }
  return { lines: lines.slice(0, MAX_PREVIEW_LINES), omittedLines: Math.max(0, lines.length - MAX_PREVIEW_LINES) };
}

async function currentText(root: string, path: string): Promise<{ relative: string; text: string | null }> {
  const target = await resolveInsideRoot(root, path);
  if (!target.exists) return { relative: target.relative, text: null };
  const decoded = decodeFile((await readExistingFile(target.absolute, target.relative)).bytes);
  if (decoded.kind === 'binary') throw new ToolError('BINARY_FILE', `${target.relative} looks binary (${decoded.reason}).`);
  return { relative: target.relative, text: lf(decoded.text) };
}

/** The lines of a text as preview lines of one kind. */
function textLines(text: string, kind: PreviewLineKind): PreviewLine[] {
  if (text === '') return [];
  return text
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => ({ kind, text: line }));
}

/**
 * One file's diff. For a secret file only what the call itself writes is shown: what the file
 * holds now (context, removed lines, and the rest of a line an edit changes) is a secret the model
 * has not been allowed to read, and the approver's screen no more. `ownText`: what the call writes
 * when that is not simply the added lines (an edit: its new string).
 */
function fileDiff(
  path: string,
  change: FilePreview['change'],
  to: string | null,
  before: string,
  after: string,
  problems: string[],
  ownText?: PreviewLine[],
): FilePreview {
  const diff = diffLines(before, after);
  if (typeof diff === 'string') {
    problems.push(`${path}: ${diff}`);
    return { path, change, to, lines: [], omittedLines: 0 };
  }
  if (isSecretPath(path) || (to !== null && isSecretPath(to))) {
    problems.push(`${path} is a secret file: only the lines the call adds are shown, not what it holds now`);
    // A write's or a patch's added lines are lines the model wrote (a whole file, a patch's `+`
    // lines); an edit's are not (the rest of each line it changes is the file's): it shows its
    // new string instead.
    const own = ownText ?? diff.lines.filter((line) => line.kind === 'add' || line.kind === 'hunk');
    return { path, change, to, lines: own.slice(0, MAX_PREVIEW_LINES), omittedLines: Math.max(0, own.length - MAX_PREVIEW_LINES) };
  }
  return { path, change, to, ...diff };
}

function occurrences(text: string, needle: string): number {
  let count = 0;
  for (let found = text.indexOf(needle); found !== -1; found = text.indexOf(needle, found + needle.length)) count += 1;
  return count;
}

async function previewWrite(args: Record<string, unknown>, root: string, problems: string[]): Promise<FilePreview[]> {
  if (typeof args.path !== 'string' || typeof args.content !== 'string') throw new ToolError('INVALID_ARGUMENTS', 'no path or content');
  const { relative, text } = await currentText(root, args.path);
  return [fileDiff(relative, text === null ? 'add' : 'update', null, text ?? '', lf(args.content), problems)];
}

async function previewEdit(args: Record<string, unknown>, root: string, problems: string[]): Promise<FilePreview[]> {
  if (typeof args.path !== 'string' || typeof args.old_string !== 'string' || typeof args.new_string !== 'string') {
    throw new ToolError('INVALID_ARGUMENTS', 'no path, old_string or new_string');
  }
  const { relative, text } = await currentText(root, args.path);
  if (text === null) throw new ToolError('PATH_NOT_FOUND', `${relative} does not exist.`);
  const oldString = lf(args.old_string);
  const newString = lf(args.new_string);
  const count = oldString === '' ? 0 : occurrences(text, oldString);
  if (count === 0) throw new ToolError('EDIT_TARGET_NOT_FOUND', `old_string is not in ${relative} as given; the edit will fail.`);
  if (count > 1 && args.replace_all !== true) {
    throw new ToolError('EDIT_TARGET_NOT_UNIQUE', `old_string occurs ${count} times in ${relative}; the edit will fail.`);
  }
  const after = args.replace_all === true ? text.split(oldString).join(newString) : text.replace(oldString, () => newString);
  const ownText = textLines(newString, 'add');
  return [fileDiff(relative, 'update', null, text, after, problems, ownText)];
}

async function previewPatch(args: Record<string, unknown>, root: string, problems: string[]): Promise<FilePreview[]> {
  if (typeof args.patch !== 'string') throw new ToolError('INVALID_ARGUMENTS', 'no patch');
  const plan = await planPatch(parsePatch(args.patch), root);
  const files: FilePreview[] = [];
  for (const entry of plan.summary) {
    if (entry.marker === 'A') files.push(fileDiff(entry.path, 'add', null, '', entry.after, problems));
    else if (entry.marker === 'M') files.push(fileDiff(entry.path, 'update', null, entry.before, entry.after, problems));
    else if (entry.marker === 'R') files.push(fileDiff(entry.path, 'move', entry.to, entry.before, entry.after, problems));
    else {
      const { text } = await currentText(root, entry.path);
      files.push(fileDiff(entry.path, 'delete', null, text ?? '', '', problems));
    }
  }
  return files;
}

/** The secret file among those a patch names (as given, and where they really lead), if any. */
async function secretTarget(patch: string, root: string): Promise<string | null> {
  for (const path of patchPaths(patch)) {
    if (isSecretPath(path)) return path;
    const real = await resolveInsideRoot(root, path).then(
      (target) => target.relative,
      () => null,
    );
    if (real !== null && isSecretPath(real)) return real;
  }
  return null;
}

/**
 * The change a file-writing call would make if it ran now, or null for a tool that writes no
 * file through its arguments (a shell command shows its command instead). The one preview of an
 * approval: the server sends it to the workbench, and the terminal renders it (tui/).
 */
export async function previewChange(toolName: string, rawArguments: string, root: string): Promise<ChangePreview | null> {
  if (!PREVIEWED_TOOLS.has(toolName)) return null;
  const args = argumentsObject(rawArguments);
  if (args === null) return { files: [], problem: 'the arguments are not a JSON object; the call will fail' };
  const problems: string[] = [];
  try {
    // Paths are checked after realpath against the real root, whichever form the caller holds.
    root = await realpath(root);
    const files =
      toolName === 'write_file'
        ? await previewWrite(args, root, problems)
        : toolName === 'edit_file'
          ? await previewEdit(args, root, problems)
          : await previewPatch(args, root, problems);
    return { files, problem: problems.length > 0 ? problems.join('; ') : null };
  } catch (error) {
    // The tool's own error (a path outside the root, a hunk that does not fit…) is what would happen.
    // A patch's may quote the file (a hunk's closest match, the lines a file ends with), which the
    // tool leaves out only for a path that is secret by its own name: where a patch touches a
    // secret file by any name, only the error's code is shown, as the diff shows only what it writes.
    if (error instanceof ToolError) {
      const secret = toolName === 'apply_patch' ? await secretTarget(String(args.patch), root).catch(() => null) : null;
      if (secret === null) return { files: [], problem: error.message };
      return {
        files: [],
        problem: `the call will fail (${error.code}) on ${secret}, a secret file: why is not shown, since it may quote what the file holds`,
      };
    }
    // An unreadable file (permissions, a race with a delete) costs the preview, never the card.
    return { files: [], problem: `no preview: ${(error as Error).message}` };
  }
}
