// Parser for the patch envelope: `*** Begin Patch`, then Add/Update/Delete File sections, then
// `*** End Patch`. It only checks the shape; whether hunks fit the files is decided later, against
// the files themselves. Errors carry the 1-based line number in the patch text.

import { ToolError } from '../../agent/index.js';
import { patchPaths } from '../../views/index.js';

export type HunkLineKind = 'context' | 'remove' | 'add';

export interface HunkLine {
  kind: HunkLineKind;
  text: string;
}

export interface PatchHunk {
  /** `@@ text` lines before the hunk, located in order to narrow where the hunk applies. */
  anchors: string[];
  lines: HunkLine[];
  /** `*** End of File`: the hunk must apply at the end of the file. */
  endOfFile: boolean;
  /** Line in the patch where the hunk starts, for error messages. */
  patchLine: number;
}

export type PatchOperation =
  | { kind: 'add'; path: string; lines: string[]; patchLine: number }
  | { kind: 'delete'; path: string; patchLine: number }
  | { kind: 'update'; path: string; moveTo: string | null; hunks: PatchHunk[]; patchLine: number };

const BEGIN = '*** Begin Patch';
const END = '*** End Patch';
const ADD = '*** Add File:';
const DELETE = '*** Delete File:';
const UPDATE = '*** Update File:';
const MOVE = '*** Move to:';
const END_OF_FILE = '*** End of File';
// Line-range headers like `@@ -12,5 +12,6 @@` carry no usable text: the envelope locates hunks by
// content, so the numbers are dropped and only a trailing section heading is kept.
const RANGE_HEADER = /^-\d+(?:,\d+)?\s+\+\d+(?:,\d+)?\s*@@\s?(.*)$/;

interface NumberedLine {
  text: string;
  number: number;
}

export function parsePatch(patch: string): PatchOperation[] {
  const lines = envelopeLines(patch);
  const operations: PatchOperation[] = [];
  let index = 1;
  while (index < lines.length - 1) {
    const line = lines[index]!;
    const header = line.text.trim();
    if (header === '') {
      index += 1;
      continue;
    }
    if (header.startsWith(ADD)) {
      index = parseAdd(lines, index, operations);
    } else if (header.startsWith(DELETE)) {
      operations.push({ kind: 'delete', path: headerPath(line, DELETE), patchLine: line.number });
      index += 1;
    } else if (header.startsWith(UPDATE)) {
      index = parseUpdate(lines, index, operations);
    } else if (header === END) {
      throw parseError(line.number, `'${END}' must be the last line of the patch.`);
    } else {
      throw parseError(
        line.number,
        `expected a file header ('${ADD} ...', '${UPDATE} ...' or '${DELETE} ...'), found: ${quoteLine(line.text)}`,
      );
    }
  }
  if (operations.length === 0) throw parseError(lines[0]!.number, 'the patch contains no file operations.');
  return operations;
}

/**
 * Paths the patch names, found by a lenient scan: used to declare access when the patch does not
 * parse, so the permission layer still sees every file it would touch. The same reading the faces
 * show (views/'s `patchPaths`).
 */
export function scanPatchPaths(patch: string): string[] {
  return patchPaths(patch);
}

/** Lines between and including the Begin/End markers, numbered as in the original text. */
function envelopeLines(patch: string): NumberedLine[] {
  let lines = patch.split(/\r?\n/).map((text, index) => ({ text, number: index + 1 }));
  const isBlank = (line: NumberedLine | undefined): boolean => line !== undefined && line.text.trim() === '';
  while (isBlank(lines[0])) lines = lines.slice(1);
  while (isBlank(lines.at(-1))) lines = lines.slice(0, -1);
  // Models sometimes paste the patch as a shell heredoc body; the wrapper is unambiguous to strip.
  const heredoc = lines.length > 2 ? /^<<-?\s*['"]?(\w+)['"]?$/.exec(lines[0]!.text.trim()) : null;
  if (heredoc !== null && lines.at(-1)?.text.trim() === heredoc[1]) lines = lines.slice(1, -1);

  const first = lines[0];
  if (first === undefined) throw parseError(1, `the patch is empty; it must start with '${BEGIN}'.`);
  if (first.text.trim() !== BEGIN) {
    throw parseError(first.number, `the patch must start with '${BEGIN}', found: ${quoteLine(first.text)}`);
  }
  const last = lines[lines.length - 1]!;
  if (lines.length < 2 || last.text.trim() !== END) {
    throw parseError(last.number, `the patch must end with '${END}', found: ${quoteLine(last.text)}`);
  }
  return lines;
}

function parseAdd(lines: NumberedLine[], headerIndex: number, operations: PatchOperation[]): number {
  const header = lines[headerIndex]!;
  const path = headerPath(header, ADD);
  const content: string[] = [];
  let index = headerIndex + 1;
  for (; index < lines.length - 1; index += 1) {
    const line = lines[index]!;
    if (line.text.startsWith('+')) {
      content.push(line.text.slice(1));
      continue;
    }
    if (isSectionStart(line.text)) break;
    if (line.text.trim() === '' && onlyBlankUntilSection(lines, index)) break;
    throw parseError(
      line.number,
      `every line of an added file must start with '+' (use a lone '+' for an empty line); in ${path} found: ${quoteLine(line.text)}`,
    );
  }
  operations.push({ kind: 'add', path, lines: content, patchLine: header.number });
  return index;
}

function parseUpdate(lines: NumberedLine[], headerIndex: number, operations: PatchOperation[]): number {
  const header = lines[headerIndex]!;
  const path = headerPath(header, UPDATE);
  let index = headerIndex + 1;
  let moveTo: string | null = null;
  const moveLine = lines[index];
  if (index < lines.length - 1 && moveLine !== undefined && moveLine.text.trim().startsWith(MOVE)) {
    moveTo = headerPath(moveLine, MOVE);
    index += 1;
  }

  const hunks: PatchHunk[] = [];
  let current: PatchHunk | null = null;
  // After `*** End of File` a hunk is closed: only a new `@@` (or the next file) may follow.
  let closed = false;
  const finish = (): void => {
    if (current === null) return;
    validateHunk(current, hunks.length + 1, path);
    hunks.push(current);
    current = null;
  };

  for (; index < lines.length - 1; index += 1) {
    const line = lines[index]!;
    const trimmed = line.text.trim();
    if (isSectionStart(line.text)) break;
    if (line.text.startsWith('@@')) {
      const anchor = anchorText(line.text);
      if (current === null || current.lines.length > 0) {
        finish();
        current = { anchors: [], lines: [], endOfFile: false, patchLine: line.number };
      }
      if (anchor !== '') current.anchors.push(anchor);
      closed = false;
      continue;
    }
    if (trimmed === END_OF_FILE) {
      if (current === null || current.lines.length === 0) {
        throw parseError(line.number, `'${END_OF_FILE}' must follow the lines of a hunk (in ${path}).`);
      }
      current.endOfFile = true;
      finish();
      closed = true;
      continue;
    }
    // Blank lines before the next section are spacing, not empty context.
    if (trimmed === '' && onlyBlankUntilSection(lines, index)) break;
    const kind = lineKind(line.text);
    if (kind === null) {
      throw parseError(
        line.number,
        `lines of a hunk must start with ' ' (context), '-' (remove) or '+' (add); in ${path} found: ${quoteLine(line.text)}`,
      );
    }
    if (closed) {
      throw parseError(line.number, `a hunk line follows '${END_OF_FILE}' in ${path}; start a new hunk with '@@'.`);
    }
    if (current === null) current = { anchors: [], lines: [], endOfFile: false, patchLine: line.number };
    // A completely empty line is read as empty context: editors and models often strip the space.
    current.lines.push({ kind, text: line.text === '' ? '' : line.text.slice(1) });
  }
  finish();
  if (hunks.length === 0 && moveTo === null) {
    throw parseError(header.number, `'${UPDATE} ${path}' has no hunks; add at least one '@@' hunk or a '${MOVE}' line.`);
  }
  operations.push({ kind: 'update', path, moveTo, hunks, patchLine: header.number });
  return index;
}

function validateHunk(hunk: PatchHunk, ordinal: number, path: string): void {
  if (hunk.lines.length === 0) {
    throw parseError(hunk.patchLine, `hunk ${ordinal} of ${path} has no lines after its '@@' header.`);
  }
  if (hunk.lines.every((line) => line.kind === 'context')) {
    throw parseError(hunk.patchLine, `hunk ${ordinal} of ${path} has only context lines; it changes nothing.`);
  }
}

function lineKind(text: string): HunkLineKind | null {
  if (text === '' || text.startsWith(' ')) return 'context';
  if (text.startsWith('-')) return 'remove';
  if (text.startsWith('+')) return 'add';
  return null;
}

function anchorText(line: string): string {
  const rest = line.slice(2).trim();
  const range = RANGE_HEADER.exec(rest);
  return range === null ? rest : range[1]!.trim();
}

function isSectionStart(text: string): boolean {
  const trimmed = text.trim();
  return trimmed.startsWith(ADD) || trimmed.startsWith(DELETE) || trimmed.startsWith(UPDATE) || trimmed === END;
}

function onlyBlankUntilSection(lines: NumberedLine[], from: number): boolean {
  for (let index = from; index < lines.length; index += 1) {
    const line = lines[index]!;
    if (isSectionStart(line.text)) return true;
    if (line.text.trim() !== '') return false;
  }
  return true;
}

function headerPath(line: NumberedLine, prefix: string): string {
  const path = line.text.trim().slice(prefix.length).trim();
  if (path === '') throw parseError(line.number, `'${prefix}' needs a file path.`);
  return path;
}

function quoteLine(text: string): string {
  return JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}...` : text);
}

function parseError(lineNumber: number, message: string): ToolError {
  return new ToolError('PATCH_PARSE_ERROR', `Patch line ${lineNumber}: ${message}`);
}
