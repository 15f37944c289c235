// What a file-writing call changed, read back from the result the model got: the tools end their
// report with the unified diff of what they wrote (tools/text-file/capped-diff.ts; only the written
// lines of a secret file, none for an edit of one), so a face can keep each applied change on
// screen, as it was applied, without reading the file again.

import type { ChangeRow } from './tool-presentation.js';
import { presentationOf } from './tool-presentations.js';

const OLD_NAME = /^--- (?:a\/(.+)|\/dev\/null)$/;
const NEW_NAME = /^\+\+\+ (?:b\/(.+)|\/dev\/null)$/;

function fileRow(oldName: string | undefined, newName: string | undefined): ChangeRow {
  if (oldName === undefined) return { kind: 'file', text: `new file ${newName ?? '?'}` };
  if (newName === undefined) return { kind: 'file', text: `deleted ${oldName}` };
  return { kind: 'file', text: oldName === newName ? oldName : `${oldName} → ${newName}` };
}

/**
 * The rows of the diff a writing tool's result ends with, a row per file before its lines (left
 * out when there is one file: the call's line names it). Empty for a tool that writes no file
 * through its arguments, or a result without a diff.
 */
export function appliedDiff(toolName: string, output: string): ChangeRow[] {
  if (presentationOf(toolName).writes === undefined) return [];
  const lines = output.split('\n');
  const rows: ChangeRow[] = [];
  let files = 0;
  let inDiff = false;
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index]!;
    const oldName = OLD_NAME.exec(line);
    const newName = oldName === null ? null : NEW_NAME.exec(lines[index + 1] ?? '');
    if (oldName !== null && newName !== null) {
      rows.push(fileRow(oldName[1], newName[1]));
      files += 1;
      inDiff = true;
      index += 1;
      continue;
    }
    if (!inDiff) continue;
    if (line.startsWith('@@')) rows.push({ kind: 'hunk', text: line });
    else if (line.startsWith('+')) rows.push({ kind: 'add', text: line.slice(1) });
    else if (line.startsWith('-')) rows.push({ kind: 'del', text: line.slice(1) });
    else if (line.startsWith(' ')) rows.push({ kind: 'ctx', text: line.slice(1) });
    // The cap's note ("[diff truncated: …]") or a diff too large to compute, in the tool's words.
    else if (line !== '') rows.push({ kind: 'hunk', text: line });
  }
  return files === 1 ? rows.filter((row) => row.kind !== 'file') : rows;
}
