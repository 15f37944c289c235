// A Markdown table as terminal lines: every column as wide as its widest cell, measured in
// display columns (styles stripped, East Asian wide characters and emoji counted as two), so the
// separators line up. A table wider than the room it has gives its widest columns up first and
// wraps their cells onto more lines; it never leaves the room to ink's wrapping, which would cut
// rows at arbitrary points and break every column below.

import { displayWidth } from './text-rows.js';
import { stripAnsi, type Theme } from './theme.js';

export interface TableCells {
  header: string[];
  rows: string[][];
  align: Array<'left' | 'right' | 'center' | null>;
}

const SEPARATOR = ' │ ';
/** Narrowest a column is squeezed to before the table is simply let run wider. */
const MIN_COLUMN = 3;

/** Cuts plain text into pieces of at most `width` columns, at spaces where it can. */
function wrapCell(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  const push = (): void => {
    lines.push(line);
    line = '';
  };
  for (const word of text.split(' ')) {
    let rest = word;
    if (line !== '' && displayWidth(line) + 1 + displayWidth(rest) <= width) {
      line += ` ${rest}`;
      continue;
    }
    if (line !== '') push();
    // A word longer than the column is cut, character by character.
    while (displayWidth(rest) > width) {
      let piece = '';
      for (const char of rest) {
        if (displayWidth(piece + char) > width) break;
        piece += char;
      }
      if (piece === '') piece = [...rest][0]!;
      lines.push(piece);
      rest = rest.slice(piece.length);
    }
    line = rest;
  }
  push();
  return lines;
}

/** Column widths that fit `room`: the widest column gives up a column at a time. */
function fitWidths(natural: number[], room: number): number[] {
  const widths = [...natural];
  const budget = room - SEPARATOR.length * (widths.length - 1);
  let total = widths.reduce((sum, w) => sum + w, 0);
  while (total > budget) {
    let widest = 0;
    for (let i = 1; i < widths.length; i += 1) if (widths[i]! > widths[widest]!) widest = i;
    if (widths[widest]! <= MIN_COLUMN) break;
    widths[widest]! -= 1;
    total -= 1;
  }
  return widths;
}

function pad(text: string, width: number, align: TableCells['align'][number]): string {
  const gap = Math.max(0, width - displayWidth(text));
  if (align === 'right') return ' '.repeat(gap) + text;
  if (align === 'center') return ' '.repeat(Math.floor(gap / 2)) + text + ' '.repeat(gap - Math.floor(gap / 2));
  return text + ' '.repeat(gap);
}

export function tableLines(table: TableCells, theme: Theme, room: number): string[] {
  const columns = Math.max(table.header.length, ...table.rows.map((row) => row.length));
  const cell = (row: string[], c: number) => (row[c] ?? '').replace(/\n/g, ' ');
  const all = [table.header, ...table.rows];
  const natural = Array.from({ length: columns }, (_, c) => Math.max(1, ...all.map((row) => displayWidth(cell(row, c)))));
  const widths = fitWidths(natural, room);
  const sep = theme.dim(SEPARATOR);
  const render = (row: string[], style: (text: string) => string): string[] => {
    // A cell that fits keeps its styles; one that must wrap is wrapped as plain text.
    const cells = widths.map((w, c) => {
      const text = cell(row, c);
      return displayWidth(text) <= w ? [text] : wrapCell(stripAnsi(text), w);
    });
    const height = Math.max(...cells.map((lines) => lines.length));
    return Array.from({ length: height }, (_, i) =>
      cells
        .map((lines, c) => style(pad(lines[i] ?? '', widths[c]!, table.align[c] ?? null)))
        .join(sep)
        .trimEnd(),
    );
  };
  const rule = theme.dim(widths.map((w) => '─'.repeat(w)).join('─┼─'));
  return [...render(table.header, (text) => theme.bold(text)), rule, ...table.rows.flatMap((row) => render(row, (text) => text))];
}
