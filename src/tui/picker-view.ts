// A list to choose from in place of the editor (`/model`, `/resume` without an argument): Up and
// Down move, Enter picks, Esc leaves everything as it was. A long list scrolls in a window that
// keeps the highlighted row on screen, so the frame never outgrows a 24-line terminal.

import { createElement as h, type ReactElement } from 'react';
import { Box, Text, type Key } from 'ink';
import type { Theme } from './theme.js';
import { oneLine } from '../terminal-text/index.js';

export interface PickerItem {
  label: string;
  /** Dim text after the label (a directory, a note). */
  detail?: string;
}

export interface Picker {
  title: string;
  items: readonly PickerItem[];
  selected: number;
  /** Runs with the chosen item's index once the picker is closed. */
  onPick: (index: number) => void;
}

export type PickerStep = { kind: 'move'; selected: number } | { kind: 'pick'; index: number } | { kind: 'cancel' } | { kind: 'none' };

export function pickerKey(picker: Picker, input: string, key: Key): PickerStep {
  const count = picker.items.length;
  if (key.escape || (key.ctrl && input === 'c')) return { kind: 'cancel' };
  if (key.return) return count === 0 ? { kind: 'cancel' } : { kind: 'pick', index: picker.selected };
  if (key.upArrow || (key.ctrl && input === 'p')) return { kind: 'move', selected: (picker.selected + count - 1) % count };
  if (key.downArrow || (key.ctrl && input === 'n')) return { kind: 'move', selected: (picker.selected + 1) % count };
  return { kind: 'none' };
}

/** The rows of the list shown at once: what fits, never fewer than 3. */
function windowSize(picker: Picker, rows: number): number {
  return Math.min(picker.items.length, Math.max(3, rows - 10));
}

/** Rows the picker takes: its top margin, borders, title, the list window and the key line. */
export function pickerRows(picker: Picker, rows: number): number {
  return 5 + windowSize(picker, rows);
}

export function PickerView({ picker, theme, rows, width }: { picker: Picker; theme: Theme; rows: number; width: number }): ReactElement {
  const size = windowSize(picker, rows);
  const first = Math.min(Math.max(0, picker.selected - Math.floor(size / 2)), Math.max(0, picker.items.length - size));
  const shown = picker.items.slice(first, first + size).map((item, i) => {
    const index = first + i;
    const text = `${oneLine(item.label, Math.max(10, width - 8))}${item.detail ? ` ${theme.dim(oneLine(item.detail, 200))}` : ''}`;
    return h(
      Text,
      { key: `i${index}`, wrap: 'truncate-end' },
      index === picker.selected
        ? `${theme.tone('accent', '›')} ${theme.inverse(` ${oneLine(item.label, Math.max(10, width - 8))} `)}${item.detail ? ` ${theme.dim(oneLine(item.detail, 200))}` : ''}`
        : `   ${text}`,
    );
  });
  const more = picker.items.length > size ? ` · ${picker.selected + 1}/${picker.items.length}` : '';
  return h(
    Box,
    { flexDirection: 'column', borderStyle: 'round', paddingX: 1, marginTop: 1 },
    h(Text, { wrap: 'truncate-end' }, theme.bold(oneLine(picker.title, 200))),
    ...shown,
    h(Text, { wrap: 'truncate-end' }, theme.dim(`↑/↓ choose · Enter pick · Esc cancel${more}`)),
  );
}
