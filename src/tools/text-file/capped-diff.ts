// Diffs shown to the model after an edit. They confirm what changed, so they are capped: a huge
// rewrite should not flood the context with text the model just wrote itself.

import { structuredPatch } from 'diff';
import { countLines } from './text-content.js';

export const DIFF_CHARACTER_LIMIT = 8_000;

// Beyond this many changed lines the diff would be truncated anyway, and bounding the edit
// length keeps the Myers search cheap on large, completely rewritten files.
const MAX_EDIT_LENGTH = 4_000;
const CONTEXT_LINES = 3;

/**
 * A unified diff of two LF texts. `null` names stand for a file that does not exist on that side
 * (`/dev/null`, as in git). Returns '' when nothing changed. `writtenOnly` (a secret file): only
 * the hunk headers and the added lines, what the call itself wrote; what the file held (removed
 * and context lines) is a secret the model has not been allowed to read.
 */
export function unifiedDiff(
  oldName: string | null,
  newName: string | null,
  oldText: string,
  newText: string,
  { writtenOnly = false }: { writtenOnly?: boolean } = {},
): string {
  if (oldText === newText && oldName === newName) return '';
  const header = `--- ${oldName === null ? '/dev/null' : `a/${oldName}`}\n+++ ${newName === null ? '/dev/null' : `b/${newName}`}\n`;
  if (oldText === newText) return header;
  const patch = structuredPatch('a', 'b', oldText, newText, undefined, undefined, {
    context: CONTEXT_LINES,
    maxEditLength: MAX_EDIT_LENGTH,
  });
  if (patch === undefined) {
    return `${header}(diff omitted: too many changed lines; the file went from ${countLines(oldText)} to ${countLines(newText)} lines)\n`;
  }
  let body = '';
  for (const hunk of patch.hunks) {
    // An empty range names the line before it, as GNU diff and git print it.
    const oldStart = hunk.oldLines === 0 ? hunk.oldStart - 1 : hunk.oldStart;
    const newStart = hunk.newLines === 0 ? hunk.newStart - 1 : hunk.newStart;
    body += `@@ -${oldStart},${hunk.oldLines} +${newStart},${hunk.newLines} @@\n`;
    for (const line of hunk.lines) if (!writtenOnly || line.startsWith('+')) body += `${line}\n`;
  }
  return header + body;
}

/**
 * Cut `text` at a line boundary to at most `limit` characters and say how much was left out.
 * A final newline is dropped: the result is embedded in a tool's output.
 */
export function capText(text: string, limit: number = DIFF_CHARACTER_LIMIT): string {
  if (text.length <= limit) return text.replace(/\n$/, '');
  let cut = text.lastIndexOf('\n', limit);
  if (cut <= 0) cut = limit;
  const kept = text.slice(0, cut);
  const rest = text.slice(cut).replace(/^\n/, '');
  const hiddenLines = rest === '' ? 0 : rest.replace(/\n$/, '').split('\n').length;
  return `${kept}\n[diff truncated: ${hiddenLines} more lines (${rest.length} characters) not shown]`;
}
