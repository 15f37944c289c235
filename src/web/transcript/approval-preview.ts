// What an approval will change, shown before anyone approves it. The server works it out against
// the files on disk (`fromServerPreview`: a diff per file, project-relative paths); while that is
// not available (the approval was answered meanwhile, an older server) the card falls back to what
// the arguments alone say: for write_file the new content, for edit_file the replaced text as a
// diff, for apply_patch the patch's own hunks — each under its path relative to the project root.

import { diffLines } from 'diff';
import { argumentsObject } from '../../views/index.js';
import type { ChangePreview } from '../api/index.js';

export type PreviewLine = { kind: 'add' | 'del' | 'ctx' | 'hunk' | 'file'; text: string };

export interface ApprovalPreview {
  /** Project-relative where possible. */
  paths: string[];
  note: string;
  lines: PreviewLine[];
}

/** Lines beyond this are summarised, so one huge write cannot freeze the card. */
const MAX_LINES = 400;

export function projectRelative(path: string, root: string): string {
  const base = root.replace(/\/+$/, '');
  if (base !== '' && path.startsWith(`${base}/`)) return path.slice(base.length + 1);
  if (path === base) return '.';
  return path.replace(/^\.\//, '');
}

function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function capped(lines: PreviewLine[]): PreviewLine[] {
  if (lines.length <= MAX_LINES) return lines;
  return [...lines.slice(0, MAX_LINES), { kind: 'hunk', text: `… ${lines.length - MAX_LINES} more lines` }];
}

function patchLines(patch: string, root: string): { paths: string[]; lines: PreviewLine[] } {
  const paths: string[] = [];
  const lines: PreviewLine[] = [];
  for (const raw of patch.split('\n')) {
    const file = /^\*\*\* (Add|Update|Delete) File:\s*(.+)$/.exec(raw.trim());
    if (file !== null) {
      const path = projectRelative(file[2]!, root);
      paths.push(path);
      lines.push({ kind: 'file', text: `${file[1] === 'Add' ? 'new file' : file[1] === 'Delete' ? 'delete' : 'update'} ${path}` });
      continue;
    }
    const move = /^\*\*\* Move to:\s*(.+)$/.exec(raw.trim());
    if (move !== null) {
      lines.push({ kind: 'file', text: `move to ${projectRelative(move[1]!, root)}` });
      continue;
    }
    if (raw.startsWith('*** ')) continue;
    if (raw.startsWith('@@')) lines.push({ kind: 'hunk', text: raw });
    else if (raw.startsWith('+')) lines.push({ kind: 'add', text: raw.slice(1) });
    else if (raw.startsWith('-')) lines.push({ kind: 'del', text: raw.slice(1) });
    else if (raw.trim() !== '') lines.push({ kind: 'ctx', text: raw.startsWith(' ') ? raw.slice(1) : raw });
  }
  return { paths, lines };
}

/** The preview of a call's change, or null for tools that change no file (shell is its command). */
export function approvalPreview(toolName: string, rawArguments: string, root: string): ApprovalPreview | null {
  const args = argumentsObject(rawArguments);
  if (args === null) return null;
  const path = typeof args.path === 'string' ? projectRelative(args.path, root) : null;
  if (toolName === 'write_file' && path !== null && typeof args.content === 'string') {
    const lines = splitLines(args.content).map((text): PreviewLine => ({ kind: 'add', text }));
    return {
      paths: [path],
      note: `Writes the whole file (${lines.length} line${lines.length === 1 ? '' : 's'}); an existing file is replaced.`,
      lines: capped(lines),
    };
  }
  if (toolName === 'edit_file' && path !== null && typeof args.old_string === 'string' && typeof args.new_string === 'string') {
    const lines: PreviewLine[] = [];
    for (const part of diffLines(args.old_string, args.new_string)) {
      const kind = part.added ? 'add' : part.removed ? 'del' : 'ctx';
      for (const text of splitLines(part.value)) lines.push({ kind, text });
    }
    const note = args.replace_all === true ? 'Replaces every occurrence of the old text.' : 'Replaces the one occurrence of the old text.';
    return { paths: [path], note, lines: capped(lines) };
  }
  if (toolName === 'apply_patch' && typeof args.patch === 'string') {
    const { paths, lines } = patchLines(args.patch, root);
    return { paths, note: `Patches ${paths.length} file${paths.length === 1 ? '' : 's'}.`, lines: capped(lines) };
  }
  return null;
}

const CHANGE_WORDS = { add: 'new file', update: 'update', delete: 'delete', move: 'move' } as const;

/** The server's dry run as the card shows it: a header line per file, then its diff. */
export function fromServerPreview(preview: ChangePreview): ApprovalPreview {
  const lines: PreviewLine[] = [];
  const paths: string[] = [];
  for (const file of preview.files) {
    paths.push(file.to === null ? file.path : `${file.path} → ${file.to}`);
    lines.push({ kind: 'file', text: `${CHANGE_WORDS[file.change]} ${file.path}${file.to === null ? '' : ` → ${file.to}`}` });
    lines.push(...file.lines);
    if (file.omittedLines > 0) lines.push({ kind: 'hunk', text: `… ${file.omittedLines} more lines` });
  }
  const counted = `${preview.files.length} file${preview.files.length === 1 ? '' : 's'}`;
  const note =
    preview.problem !== null
      ? preview.files.length === 0
        ? `As it stands the call will fail: ${preview.problem}`
        : `Not all of it can be shown: ${preview.problem}`
      : `Against the file${preview.files.length === 1 ? '' : 's'} on disk now (${counted}).`;
  return { paths, note, lines };
}
