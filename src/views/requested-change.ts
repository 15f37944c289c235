// What a file-writing call asks for, read from its arguments alone: no file is read, so it shows
// only the model's own text (the new content, the replaced and the replacing text, the patch).
// The faces show it where the runner's dry run (tools/'s `previewChange`) cannot say more: the
// terminal under a call that would fail, the workbench while the server's preview is not there.

import { argumentsObject } from './tool-arguments.js';

export interface ChangeRow {
  kind: 'add' | 'del' | 'ctx' | 'hunk' | 'file';
  text: string;
}

export interface RequestedChange {
  /** The files it names, project-relative where the root is known. */
  paths: string[];
  /** What kind of change it is, in a sentence. */
  note: string;
  rows: ChangeRow[];
}

/** Rows beyond this are summarised, so one huge write cannot freeze a card or a panel. */
const MAX_ROWS = 400;

/** A path as the project names it: inside `root`, relative to it; `./` dropped. */
export function projectRelative(path: string, root: string): string {
  const base = root.replace(/\/+$/, '');
  if (base !== '' && path.startsWith(`${base}/`)) return path.slice(base.length + 1);
  if (path === base) return '.';
  return path.replace(/^\.\//, '');
}

function rowsOf(text: string, kind: ChangeRow['kind']): ChangeRow[] {
  if (text === '') return [];
  return text
    .replace(/\r\n/g, '\n')
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => ({ kind, text: line }));
}

function capped(rows: ChangeRow[]): ChangeRow[] {
  if (rows.length <= MAX_ROWS) return rows;
  return [...rows.slice(0, MAX_ROWS), { kind: 'hunk', text: `… ${rows.length - MAX_ROWS} more lines` }];
}

const FILE_HEADER = /^\*\*\* (Add|Update|Delete) File:\s*(.+)$/;
const MOVE_HEADER = /^\*\*\* Move to:\s*(.+)$/;
const FILE_WORDS = { Add: 'new file', Update: 'update', Delete: 'delete' } as const;

/** A patch's own lines as rows, under a row per file it names (the files in patch order). */
function patchRows(patch: string, root: string): { paths: string[]; rows: ChangeRow[] } {
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

/** What the call asks for, or null for a call that writes no file through its arguments. */
export function requestedChange(toolName: string, rawArguments: string, root = ''): RequestedChange | null {
  const args = argumentsObject(rawArguments);
  if (args === null) return null;
  const path = typeof args.path === 'string' ? projectRelative(args.path, root) : null;
  if (toolName === 'write_file' && path !== null && typeof args.content === 'string') {
    const rows = rowsOf(args.content, 'add');
    const lines = `${rows.length} line${rows.length === 1 ? '' : 's'}`;
    return { paths: [path], note: `Writes the whole file (${lines}); an existing file is replaced.`, rows: capped(rows) };
  }
  if (toolName === 'edit_file' && path !== null && typeof args.old_string === 'string' && typeof args.new_string === 'string') {
    const note = args.replace_all === true ? 'Replaces every occurrence of the old text.' : 'Replaces the one occurrence of the old text.';
    return { paths: [path], note, rows: capped([...rowsOf(args.old_string, 'del'), ...rowsOf(args.new_string, 'add')]) };
  }
  if (toolName === 'apply_patch' && typeof args.patch === 'string') {
    const { paths, rows } = patchRows(args.patch, root);
    return { paths, note: `Patches ${paths.length} file${paths.length === 1 ? '' : 's'}.`, rows: capped(rows) };
  }
  return null;
}
