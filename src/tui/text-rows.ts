// How many terminal rows text takes once wrapped, so the running part of the screen can be kept
// shorter than the terminal. That matters beyond looks: once ink's live frame reaches the
// terminal's height it redraws through a path that miscounts its own last line by one, and the
// next frame then erases the last line of what was already printed above it (the end of an
// answer). Counting rows rather than lines, with ink's wrapping rule (words, long words cut),
// keeps the frame under that height.

import { stripAnsi } from './theme.js';

/** Columns a character takes: 2 for East Asian wide and emoji ranges, else 1 (combining marks: 0). */
function charWidth(code: number): number {
  if (code >= 0x300 && code <= 0x36f) return 0;
  if (
    (code >= 0x1100 && code <= 0x115f) ||
    (code >= 0x2e80 && code <= 0xa4cf) ||
    (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) ||
    (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x1f300 && code <= 0x1faff) ||
    (code >= 0x20000 && code <= 0x3fffd)
  )
    return 2;
  return 1;
}

export function displayWidth(text: string): number {
  let width = 0;
  for (const char of stripAnsi(text)) width += charWidth(char.codePointAt(0)!);
  return width;
}

/** Rows one line (no newline in it) takes at `width` columns, wrapped at spaces. */
export function lineRows(line: string, width: number): number {
  const columns = Math.max(1, width);
  let rows = 1;
  let used = 0;
  for (const word of stripAnsi(line).split(' ')) {
    const w = displayWidth(word);
    const needed = used === 0 ? w : used + 1 + w;
    if (needed <= columns) {
      used = needed;
      continue;
    }
    if (used > 0) rows += 1;
    // A word longer than the row is cut across rows.
    rows += Math.max(0, Math.ceil(w / columns) - 1);
    used = w % columns === 0 && w > 0 ? columns : w % columns;
  }
  return rows;
}

export function textRows(text: string, width: number): number {
  return text.split('\n').reduce((sum, line) => sum + lineRows(line, width), 0);
}

/** The last lines of `text` that fit in `maxRows` rows, and how many lines were left out. */
export function lastRows(text: string, maxRows: number, width: number): { lines: string[]; hidden: number } {
  const lines = text.split('\n');
  let rows = 0;
  let start = lines.length;
  while (start > 0) {
    const next = rows + lineRows(lines[start - 1]!, width);
    if (next > maxRows) break;
    rows = next;
    start -= 1;
  }
  // At least the last line, even when it alone is taller than the budget.
  if (start === lines.length && lines.length > 0) start = lines.length - 1;
  return { lines: lines.slice(start), hidden: start };
}
