// Applying the hunks of one Update File section to a file's text. Hunks are found by their
// context and removed lines, each searching forward from where the previous one ended, with
// progressively looser line comparison. Context lines are taken from the file, not the patch, so
// a loose match never rewrites lines the patch did not mean to change.

import { ToolError } from '../../agent/index.js';
import { dominantLineEnding, findClosestWindow, formatNumberedLines } from '../text-file/index.js';
import type { HunkLine, PatchHunk } from './parse-patch.js';

interface FileLine {
  text: string;
  ending: '' | '\n' | '\r\n';
}

interface Placement {
  start: number;
  lines: HunkLine[];
}

type LineComparison = (fileLine: string, patchLine: string) => boolean;

// Exact first; then tolerant of trailing whitespace; then of any surrounding whitespace.
const COMPARISONS: readonly LineComparison[] = [
  (fileLine, patchLine) => fileLine === patchLine,
  (fileLine, patchLine) => fileLine.trimEnd() === patchLine.trimEnd(),
  (fileLine, patchLine) => fileLine.trim() === patchLine.trim(),
];

const MAX_QUOTED_LINES = 12;

/**
 * Apply `hunks` to `original` (the file's text with its own line endings). Returns the new text;
 * throws PATCH_HUNK_FAILED naming the hunk when one cannot be placed.
 */
export function applyHunks(original: string, hunks: readonly PatchHunk[], shownPath: string): string {
  const { lines, endsWithNewline } = splitFileLines(original);
  const texts = lines.map((line) => line.text);
  const placements: Placement[] = [];
  let cursor = 0;

  hunks.forEach((hunk, index) => {
    const ordinal = index + 1;
    let searchFrom = cursor;
    let anchorLine: number | null = null;
    for (const anchor of hunk.anchors) {
      const found = findAnchor(texts, anchor, anchorLine === null ? searchFrom : anchorLine + 1);
      if (found === -1) {
        throw hunkError(shownPath, hunk, ordinal, `its '@@ ${anchor}' line was not found${after(anchorLine === null ? searchFrom : anchorLine + 1)}.`);
      }
      anchorLine = found;
    }
    // The anchor line may itself be the hunk's first context line, so the search includes it.
    if (anchorLine !== null) searchFrom = anchorLine;

    let body = hunk.lines;
    let start = placeHunk(texts, body, searchFrom, hunk.endOfFile, anchorLine);
    if (start === null) {
      // Trailing empty context usually stands for the file's final newline, which is no line here.
      const trimmed = withoutTrailingBlankContext(body);
      if (trimmed.length !== body.length && trimmed.some((line) => line.kind !== 'context')) {
        start = placeHunk(texts, trimmed, searchFrom, hunk.endOfFile, anchorLine);
        if (start !== null) body = trimmed;
      }
    }
    if (start === null) throw notFoundError(shownPath, hunk, ordinal, texts, searchFrom, cursor);
    placements.push({ start, lines: body });
    cursor = start + oldSide(body).length;
  });

  const ending = dominantLineEnding(original);
  return joinFileLines(rebuild(lines, placements, ending), endsWithNewline, ending);
}

function placeHunk(
  texts: string[],
  body: HunkLine[],
  from: number,
  endOfFile: boolean,
  anchorLine: number | null,
): number | null {
  const expected = oldSide(body);
  if (expected.length === 0) {
    // Pure insertion: right after the anchor, or at the end of the file.
    return anchorLine !== null && !endOfFile ? anchorLine + 1 : texts.length;
  }
  const last = texts.length - expected.length;
  for (const same of COMPARISONS) {
    if (endOfFile) {
      if (last >= from && matchesAt(texts, expected, last, same)) return last;
      continue;
    }
    for (let start = from; start <= last; start += 1) {
      if (matchesAt(texts, expected, start, same)) return start;
    }
  }
  return null;
}

function matchesAt(texts: string[], expected: string[], start: number, same: LineComparison): boolean {
  for (let offset = 0; offset < expected.length; offset += 1) {
    if (!same(texts[start + offset], expected[offset])) return false;
  }
  return true;
}

function findAnchor(texts: string[], anchor: string, from: number): number {
  const wanted = anchor.trim();
  for (let index = from; index < texts.length; index += 1) {
    if (texts[index].trim() === wanted) return index;
  }
  return -1;
}

function oldSide(body: readonly HunkLine[]): string[] {
  return body.filter((line) => line.kind !== 'add').map((line) => line.text);
}

function withoutTrailingBlankContext(body: HunkLine[]): HunkLine[] {
  let end = body.length;
  while (end > 0 && body[end - 1].kind === 'context' && body[end - 1].text.trim() === '') end -= 1;
  return body.slice(0, end);
}

function rebuild(lines: FileLine[], placements: Placement[], ending: '\n' | '\r\n'): FileLine[] {
  const result: FileLine[] = [];
  let next = 0;
  for (const placement of placements) {
    result.push(...lines.slice(next, placement.start));
    let fileIndex = placement.start;
    for (const line of placement.lines) {
      if (line.kind === 'context') result.push(lines[fileIndex]);
      else if (line.kind === 'add') result.push({ text: line.text, ending });
      if (line.kind !== 'add') fileIndex += 1;
    }
    next = fileIndex;
  }
  result.push(...lines.slice(next));
  // A line that lost its place at the end (text appended after it) needs an ending now.
  return result.map((line, index) =>
    line.ending === '' && index < result.length - 1 ? { text: line.text, ending } : line,
  );
}

function splitFileLines(text: string): { lines: FileLine[]; endsWithNewline: boolean } {
  // An empty file counts as newline-terminated, so text added to it ends with a newline.
  if (text === '') return { lines: [], endsWithNewline: true };
  const parts = text.split('\n');
  const endsWithNewline = parts[parts.length - 1] === '';
  if (endsWithNewline) parts.pop();
  const lines = parts.map((part, index): FileLine => {
    const isLast = index === parts.length - 1;
    if (isLast && !endsWithNewline) return { text: part, ending: '' };
    return part.endsWith('\r') ? { text: part.slice(0, -1), ending: '\r\n' } : { text: part, ending: '\n' };
  });
  return { lines, endsWithNewline };
}

/** Keep the file's convention for its last line: with or without a final newline. */
function joinFileLines(lines: FileLine[], endsWithNewline: boolean, ending: '\n' | '\r\n'): string {
  if (lines.length === 0) return '';
  const lastIndex = lines.length - 1;
  let text = '';
  for (let index = 0; index < lastIndex; index += 1) text += lines[index].text + lines[index].ending;
  const last = lines[lastIndex];
  return text + last.text + (endsWithNewline ? last.ending || ending : '');
}

function notFoundError(
  shownPath: string,
  hunk: PatchHunk,
  ordinal: number,
  texts: string[],
  searchFrom: number,
  cursor: number,
): ToolError {
  const expected = oldSide(hunk.lines);
  const parts = [`these lines were not found${hunk.endOfFile ? ' at the end of the file' : after(searchFrom)}:`];
  parts.push(quotePatchLines(expected));
  if (searchFrom > 0 && !hunk.endOfFile) {
    const earlier = placeHunk(texts.slice(0, searchFrom + expected.length - 1), hunk.lines, 0, false, null);
    if (earlier !== null) {
      parts.push(
        `They do occur at line ${earlier + 1}, before line ${searchFrom + 1} where the search started ` +
          `(${cursor === searchFrom ? 'the end of the previous hunk' : "the hunk's @@ line"}); hunks for one file must be in file order.`,
      );
    }
  }
  if (hunk.endOfFile && texts.length > 0) {
    const count = Math.min(expected.length || 1, MAX_QUOTED_LINES);
    parts.push(`The file ends with:\n${formatNumberedLines(texts.slice(-count), texts.length - count + 1)}`);
  } else {
    // Past the search start is where the hunk was meant to go, but a near miss may also sit earlier.
    const ahead = findClosestWindow(texts.slice(searchFrom), expected);
    const anywhere = findClosestWindow(texts, expected);
    const closest =
      ahead !== null && (anywhere === null || ahead.score >= anywhere.score)
        ? { ...ahead, start: ahead.start + searchFrom }
        : anywhere;
    if (closest !== null && closest.score >= 0.3) {
      const start = closest.start;
      const count = Math.min(closest.count, MAX_QUOTED_LINES);
      const where = count === 1 ? `line ${start + 1}` : `lines ${start + 1}-${start + count}`;
      parts.push(
        `Closest match in the file (${where}):\n${formatNumberedLines(texts.slice(start, start + count), start + 1)}`,
      );
    }
  }
  parts.push("Re-read the file and make the context (' ') and removed ('-') lines match it exactly.");
  return hunkError(shownPath, hunk, ordinal, parts.join('\n'));
}

function hunkError(shownPath: string, hunk: PatchHunk, ordinal: number, detail: string): ToolError {
  return new ToolError('PATCH_HUNK_FAILED', `${shownPath}: hunk ${ordinal} (patch line ${hunk.patchLine}) did not apply: ${detail}`);
}

function after(lineIndex: number): string {
  return lineIndex > 0 ? ` after line ${lineIndex}` : '';
}

function quotePatchLines(lines: string[]): string {
  const shown = lines.slice(0, MAX_QUOTED_LINES).map((line) => `  | ${line}`);
  if (lines.length > MAX_QUOTED_LINES) shown.push(`  … (${lines.length - MAX_QUOTED_LINES} more lines)`);
  return shown.join('\n');
}
