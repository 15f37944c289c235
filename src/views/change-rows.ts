// The rows of a change read from a call's arguments (the model's text as added, removed and
// context rows, a patch's own lines under a row per file), for the tools' presentations.

import type { ChangeRow } from './tool-presentation.js';

/** Rows beyond this are summarised, so one huge write cannot freeze a card or a panel. */
const MAX_ROWS = 400;

/** A path as the project names it: inside `root`, relative to it; `./` dropped. */
export function projectRelative(path: string, root: string): string {
  const base = root.replace(/\/+$/, '');
  if (base !== '' && path.startsWith(`${base}/`)) return path.slice(base.length + 1);
  if (path === base) return '.';
  return path.replace(/^\.\//, '');
}

export function rowsOf(text: string, kind: ChangeRow['kind']): ChangeRow[] {
  if (text === '') return [];
  return text
    .replace(/\r\n/g, '\n')
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => ({ kind, text: line }));
}

export function capped(rows: ChangeRow[]): ChangeRow[] {
  if (rows.length <= MAX_ROWS) return rows;
  return [...rows.slice(0, MAX_ROWS), { kind: 'hunk', text: `… ${rows.length - MAX_ROWS} more lines` }];
}

const FILE_HEADER = /^\*\*\* (Add|Update|Delete) File:\s*(.+)$/;
const MOVE_HEADER = /^\*\*\* Move to:\s*(.+)$/;
const FILE_WORDS = { Add: 'new file', Update: 'update', Delete: 'delete' } as const;

/** A patch's own lines as rows, under a row per file it names (the files in patch order). */
export function patchRows(patch: string, root: string): { paths: string[]; rows: ChangeRow[] } {
  const paths: string[] = [];
  const rows: ChangeRow[] = [];
  for (const raw of patch.replace(/\r\n/g, '\n').split('\n')) {
    const file = FILE_HEADER.exec(raw.trim());
    if (file !== null) {
      const path = projectRelative(file[2]!.trim(), root);
      paths.push(path);
      rows.push({ kind: 'file', text: `${FILE_WORDS[file[1] as keyof typeof FILE_WORDS]} ${path}` });
      continue;
    }
    const move = MOVE_HEADER.exec(raw.trim());
    if (move !== null) rows.push({ kind: 'file', text: `move to ${projectRelative(move[1]!.trim(), root)}` });
    else if (raw.startsWith('*** ')) continue;
    else if (raw.startsWith('@@')) rows.push({ kind: 'hunk', text: raw });
    else if (raw.startsWith('+')) rows.push({ kind: 'add', text: raw.slice(1) });
    else if (raw.startsWith('-')) rows.push({ kind: 'del', text: raw.slice(1) });
    else if (raw.trim() !== '') rows.push({ kind: 'ctx', text: raw.startsWith(' ') ? raw.slice(1) : raw });
  }
  return { paths, rows };
}
