// Applying the hunks of one Update File section to a file's text. Hunks are found by their
// context and removed lines, each searching forward from where the previous one ended, with
// progressively looser line comparison (line-matcher.ts). Context lines are taken from the file,
// not the patch, so a loose match never rewrites lines the patch did not mean to change.

import { ToolError } from '../../agent/index.js';
import { dominantLineEnding, findClosestWindow, formatNumberedLines } from '../text-file/index.js';
import { isSecretPath } from '../../workspace/index.js';
import { createLineMatcher, type LineMatcher } from './line-matcher.js';
import type { HunkLine, PatchHunk } from './parse-patch.js';

interface FileLine {
  text: string;
  ending: '' | '\n' | '\r\n';
}

interface Placement {
  start: number;
  lines: HunkLine[];
}

const MAX_QUOTED_LINES = 12;

/**
 * Apply `hunks` to `original` (the file's text with its own line endings). Returns the new text,
 * which always ends with a line ending unless it is empty; throws PATCH_HUNK_FAILED naming the hunk
 * when one cannot be placed.
 */
export function applyHunks(original: string, hunks: readonly PatchHunk[], shownPath: string): string {
  const lines = splitFileLines(original);
  const texts = lines.map((line) => line.text);
  const matcher = createLineMatcher(texts);
  const placements: Placement[] = [];
  let cursor = 0;

  hunks.forEach((hunk, index) => {
    const ordinal = index + 1;
    let searchFrom = cursor;
    let anchorLine: number | null = null;
    for (const anchor of hunk.anchors) {
      const from = anchorLine === null ? searchFrom : anchorLine + 1;
      const found = matcher.findAnchor(anchor, from);
      if (found === -1) throw hunkError(shownPath, hunk, ordinal, `its '@@ ${anchor}' line was not found${after(from)}.`);
      anchorLine = found;
    }
    // The anchor line may itself be the hunk's first context line, so the search includes it.
    if (anchorLine !== null) searchFrom = anchorLine;

    let body = hunk.lines;
    let start = placeHunk(matcher, texts.length, body, searchFrom, hunk.endOfFile, anchorLine);
    if (start === null) {
      // Trailing empty context usually stands for the file's final newline, which is no line here.
      const trimmed = withoutTrailingBlankContext(body);
      if (trimmed.length !== body.length && trimmed.some((line) => line.kind !== 'context')) {
        start = placeHunk(matcher, texts.length, trimmed, searchFrom, hunk.endOfFile, anchorLine);
        if (start !== null) body = trimmed;
      }
    }
    if (start === null) throw notFoundError(shownPath, hunk, ordinal, texts, matcher, searchFrom, cursor);
    placements.push({ start, lines: body });
    const removed = oldSide(body).length;
    // Text appended to the end leaves the search where it was, as in Codex: a patch may append first
    // and then change lines above. After an anchor, the search goes on below it.
    if (removed > 0) cursor = start + removed;
    else if (anchorLine !== null) cursor = anchorLine + 1;
  });

  // Appending hunks may come before hunks above them; stable, so insertions at one place keep patch order.
  placements.sort((left, right) => left.start - right.start);
  return rebuild(lines, placements, dominantLineEnding(original))
    .map((line) => line.text + line.ending)
    .join('');
}

function placeHunk(
  matcher: LineMatcher,
  lineCount: number,
  body: HunkLine[],
  from: number,
  endOfFile: boolean,
  anchorLine: number | null,
): number | null {
  const expected = oldSide(body);
  if (expected.length === 0) {
    // Pure insertion: right after the anchor, or at the end of the file.
    return anchorLine !== null && !endOfFile ? anchorLine + 1 : lineCount;
  }
  return matcher.findLines(expected, from, { atEnd: endOfFile });
}

function oldSide(body: readonly HunkLine[]): string[] {
  return body.filter((line) => line.kind !== 'add').map((line) => line.text);
}

function withoutTrailingBlankContext(body: HunkLine[]): HunkLine[] {
  let end = body.length;
  const blankContext = (line: HunkLine | undefined): boolean => line !== undefined && line.kind === 'context' && line.text.trim() === '';
  while (blankContext(body[end - 1])) end -= 1;
  return body.slice(0, end);
}

/**
 * The file's lines with the placements applied. Every line ends with a line ending — also the last,
 * as Codex writes updated files: a patch cannot say "no newline at end of file", and tools that read
 * the file line by line expect one.
 */
function rebuild(lines: FileLine[], placements: Placement[], ending: '\n' | '\r\n'): FileLine[] {
  const result: FileLine[] = [];
  let next = 0;
  for (const placement of placements) {
    result.push(...lines.slice(next, placement.start));
    let fileIndex = placement.start;
    for (const line of placement.lines) {
      if (line.kind === 'context') result.push(lines[fileIndex]!);
      else if (line.kind === 'add') result.push({ text: line.text, ending });
      if (line.kind !== 'add') fileIndex += 1;
    }
    next = fileIndex;
  }
  result.push(...lines.slice(next));
  return result.map((line) => (line.ending === '' ? { text: line.text, ending } : line));
}

function splitFileLines(text: string): FileLine[] {
  if (text === '') return [];
  const parts = text.split('\n');
  const endsWithNewline = parts[parts.length - 1] === '';
  if (endsWithNewline) parts.pop();
  return parts.map((part, index): FileLine => {
    if (index === parts.length - 1 && !endsWithNewline) return { text: part, ending: '' };
    return part.endsWith('\r') ? { text: part.slice(0, -1), ending: '\r\n' } : { text: part, ending: '\n' };
  });
}

function notFoundError(
  shownPath: string,
  hunk: PatchHunk,
  ordinal: number,
  texts: string[],
  matcher: LineMatcher,
  searchFrom: number,
  cursor: number,
): ToolError {
  const expected = oldSide(hunk.lines);
  const parts = [`these lines were not found${hunk.endOfFile ? ' at the end of the file' : after(searchFrom)}:`];
  parts.push(quotePatchLines(expected));
  if (searchFrom > 0 && !hunk.endOfFile) {
    const earlier = matcher.findLines(expected, 0, { maxStart: searchFrom - 1 });
    if (earlier !== null) {
      parts.push(
        `They do occur at line ${earlier + 1}, before line ${searchFrom + 1} where the search started ` +
          `(${cursor === searchFrom ? 'the end of the previous hunk' : "the hunk's @@ line"}); hunks for one file must be in file order.`,
      );
    }
  }
  if (isSecretPath(shownPath)) {
    // The near misses below quote the file: never a secret file's lines.
    parts.push(`${shownPath} is a secret file: no lines of it are quoted.`);
  } else if (hunk.endOfFile && texts.length > 0) {
    const count = Math.min(expected.length || 1, MAX_QUOTED_LINES);
    parts.push(`The file ends with:\n${formatNumberedLines(texts.slice(-count), texts.length - count + 1)}`);
  } else {
    // Past the search start is where the hunk was meant to go, but a near miss may also sit earlier.
    const ahead = findClosestWindow(texts.slice(searchFrom), expected);
    const anywhere = findClosestWindow(texts, expected);
    const closest =
      ahead !== null && (anywhere === null || ahead.score >= anywhere.score) ? { ...ahead, start: ahead.start + searchFrom } : anywhere;
    if (closest !== null && closest.score >= 0.3) {
      const start = closest.start;
      const count = Math.min(closest.count, MAX_QUOTED_LINES);
      const where = count === 1 ? `line ${start + 1}` : `lines ${start + 1}-${start + count}`;
      parts.push(`Closest match in the file (${where}):\n${formatNumberedLines(texts.slice(start, start + count), start + 1)}`);
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
  if (lines.length > MAX_QUOTED_LINES) shown.push(`  ... (${lines.length - MAX_QUOTED_LINES} more lines)`);
  return shown.join('\n');
}
