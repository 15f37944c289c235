// What an approval will change, shown before anyone approves it. The server works it out against
// the files on disk (`fromServerPreview`: a diff per file, project-relative paths); while that is
// not available (the approval was answered meanwhile, an older server) the card falls back to what
// the arguments alone say (views/'s `requestedChange`, the reading the terminal shows too).

import { requestedChange, type ChangeRow } from '../../views/index.js';
import type { ChangePreview } from '../api/index.js';

export type PreviewLine = ChangeRow;

export interface ApprovalPreview {
  /** Project-relative where possible. */
  paths: string[];
  note: string;
  lines: PreviewLine[];
}

/** The preview of a call's change from its arguments, or null for tools that change no file (shell is its command). */
export function approvalPreview(toolName: string, rawArguments: string, root: string): ApprovalPreview | null {
  const asked = requestedChange(toolName, rawArguments, root);
  return asked === null ? null : { paths: asked.paths, note: asked.note, lines: asked.rows };
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
