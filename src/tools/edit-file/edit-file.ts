// edit_file: replace an exact string in a file the agent has read. Matching happens on the text
// with CRLF normalized to LF (the model writes `\n`); the replacement is spliced into the original
// text through an offset map, so lines the edit does not touch keep their own endings.

import { resolve } from 'node:path';
import { z } from 'zod';
import { builtInSchema, ToolError, loadToolDescription, type Tool, type ToolContext, type ToolResult } from '../../agent/index.js';
import { writeFileAtomic } from '../atomic-write.js';
import { resolveInsideRoot } from '../path-policy.js';
import {
  capText,
  decodeFile,
  dominantLineEnding,
  encodeText,
  findClosestWindow,
  findIgnoringWhitespace,
  formatNumberedLines,
  lineNumbersAt,
  normalizeLineEndings,
  readExistingFile,
  recordFileStamp,
  throwIfAborted,
  toOriginalOffset,
  unifiedDiff,
  type NormalizedText,
} from '../text-file/index.js';
import { toolSessionState } from '../tool-session-state.js';
import { isSecretPath } from '../../workspace/index.js';

const editFileSchema = builtInSchema(
  'edit_file',
  z.object({
    path: z.string().min(1).describe('Relative to the project root.'),
    // edit-file.md says what these three mean; a second description here cost bytes on every request.
    old_string: z.string(),
    new_string: z.string(),
    replace_all: z.boolean().optional(),
  }),
);

export type EditFileArgs = z.infer<typeof editFileSchema>;

const MAX_LISTED_MATCHES = 20;
const MAX_QUOTED_LINES = 12;
// Below this similarity the "closest" lines are noise and would only mislead.
const MIN_CANDIDATE_SCORE = 0.3;

export function createEditFileTool(): Tool<EditFileArgs> {
  return {
    name: 'edit_file',
    description: loadToolDescription(new URL('./edit-file.md', import.meta.url)),
    schema: editFileSchema,
    readOnly: false,
    strict: false,
    access(args, context) {
      return { kind: 'write', paths: [resolve(context.root, args.path)] };
    },
    execute: editFile,
  };
}

async function editFile(args: EditFileArgs, context: ToolContext): Promise<ToolResult> {
  throwIfAborted(context.signal);
  const oldString = args.old_string.replace(/\r\n/g, '\n');
  const newString = args.new_string.replace(/\r\n/g, '\n');
  if (oldString === '') {
    throw new ToolError('EDIT_EMPTY_TARGET', 'old_string is empty. To create a file or replace all of its content, use write_file.');
  }
  if (oldString === newString) {
    throw new ToolError('EDIT_NO_CHANGE', 'old_string and new_string are identical; there is nothing to change.');
  }

  const target = await resolveInsideRoot(context.root, args.path);
  const shown = target.relative;
  if (!target.exists) {
    throw new ToolError('PATH_NOT_FOUND', `${shown} does not exist. To create a new file, use write_file.`);
  }
  const { bytes, stats } = await readExistingFile(target.absolute, shown);
  const editorFiles = toolSessionState(context).editorFiles;
  // With an editor, the text to edit is its buffer (unsaved changes included), not the disk's.
  const decoded = editorFiles?.read
    ? ({ kind: 'text', text: await editorFiles.read(target.absolute, context.signal), bom: false } as const)
    : decodeFile(bytes);
  if (decoded.kind === 'binary') {
    throw new ToolError('BINARY_FILE', `${shown} looks binary (${decoded.reason}); edit_file only edits text files.`);
  }

  const stamp = toolSessionState(context).fileStamps.get(target.absolute);
  if (stamp === undefined) {
    throw new ToolError('EDIT_REQUIRES_READ', `${shown} has not been read in this session. Read it with read_file first, then edit it.`);
  }
  if (stamp.mtimeMs !== stats.mtimeMs || stamp.size !== stats.size) {
    throw new ToolError(
      'FILE_CHANGED_SINCE_READ',
      `${shown} changed on disk since you last read it. Read it again with read_file, then redo the edit against its current content.`,
    );
  }

  const normalized = normalizeLineEndings(decoded.text);
  const matches = findOccurrences(normalized.text, oldString);
  if (matches.length === 0) throw notFoundError(shown, normalized.text, oldString);
  if (matches.length > 1 && args.replace_all !== true) {
    const lines = lineNumbersAt(normalized.text, matches.slice(0, MAX_LISTED_MATCHES));
    const more = matches.length > MAX_LISTED_MATCHES ? ` and ${matches.length - MAX_LISTED_MATCHES} more` : '';
    throw new ToolError(
      'EDIT_TARGET_NOT_UNIQUE',
      `old_string occurs ${matches.length} times in ${shown} (starting at lines ${lines.join(', ')}${more}). ` +
        'Include more surrounding lines so it matches exactly once, or set replace_all to true to change every occurrence.',
    );
  }

  const updated = spliceReplacements(decoded.text, normalized, matches, oldString.length, newString);
  throwIfAborted(context.signal);
  if (editorFiles?.write) await editorFiles.write(target.absolute, updated, context.signal);
  else await writeFileAtomic(target.absolute, encodeText(updated, decoded.bom), { signal: context.signal });
  await recordFileStamp(toolSessionState(context), target.absolute);

  const lineNumbers = lineNumbersAt(normalized.text, matches.slice(0, MAX_LISTED_MATCHES));
  const where =
    matches.length === 1
      ? `1 occurrence at line ${lineNumbers[0]}`
      : `${matches.length} occurrences (lines ${lineNumbers.slice(0, MAX_LISTED_MATCHES).join(', ')}${matches.length > MAX_LISTED_MATCHES ? ', …' : ''})`;
  // An edit's added lines hold the rest of each line it changed: of a secret file, no diff at all.
  if (isSecretPath(shown)) return { output: `Edited ${shown}: replaced ${where}. It is a secret file: no diff is shown.` };
  const diff = unifiedDiff(shown, shown, normalized.text, updated.replace(/\r\n/g, '\n'));
  return { output: `Edited ${shown}: replaced ${where}.\n\n${capText(diff)}` };
}

/** Start offsets of non-overlapping occurrences, left to right. */
function findOccurrences(text: string, needle: string): number[] {
  const offsets: number[] = [];
  for (let found = text.indexOf(needle); found !== -1; found = text.indexOf(needle, found + needle.length)) {
    offsets.push(found);
  }
  return offsets;
}

/**
 * Replace each match in the original text. New line breaks take the ending of the text they
 * replace when it has one, else the file's dominant ending, so a CRLF file stays CRLF.
 */
function spliceReplacements(
  original: string,
  normalized: NormalizedText,
  matches: number[],
  matchLength: number,
  replacement: string,
): string {
  const fileEnding = dominantLineEnding(original);
  let result = '';
  let copiedUpTo = 0;
  for (const offset of matches) {
    const start = toOriginalOffset(normalized, offset);
    const end = toOriginalOffset(normalized, offset + matchLength);
    const replaced = original.slice(start, end);
    const ending = replaced.includes('\r\n') ? '\r\n' : replaced.includes('\n') ? '\n' : fileEnding;
    result += original.slice(copiedUpTo, start) + (ending === '\n' ? replacement : replacement.replace(/\n/g, '\r\n'));
    copiedUpTo = end;
  }
  return result + original.slice(copiedUpTo);
}

function notFoundError(shown: string, text: string, oldString: string): ToolError {
  // Near misses quote the file: never a secret file's lines.
  if (isSecretPath(shown)) {
    return new ToolError(
      'EDIT_TARGET_NOT_FOUND',
      `old_string was not found in ${shown} as given (a secret file: no lines of it are quoted).`,
    );
  }
  const fileLines = text.split('\n');
  const quote = (start: number, count: number): string =>
    formatNumberedLines(fileLines.slice(start, start + Math.min(count, MAX_QUOTED_LINES)), start + 1) +
    (count > MAX_QUOTED_LINES ? `\n... (${count - MAX_QUOTED_LINES} more lines)` : '');

  const loose = findIgnoringWhitespace(text, oldString);
  const first = loose[0];
  if (first !== undefined) {
    return new ToolError(
      'EDIT_TARGET_NOT_FOUND',
      `old_string was not found in ${shown} exactly, but it matches ${describeLines(first.start, first.count)} if whitespace is ignored` +
        `${loose.length > 1 ? ` (and ${loose.length - 1} other place${loose.length > 2 ? 's' : ''})` : ''}. ` +
        `The exact text there is:\n${quote(first.start, first.count)}\n` +
        'Copy the indentation and spacing exactly (without the line-number prefix) and try again.',
    );
  }
  const closest = findClosestWindow(fileLines, oldString.split('\n'));
  if (closest !== null && closest.score >= MIN_CANDIDATE_SCORE) {
    return new ToolError(
      'EDIT_TARGET_NOT_FOUND',
      `old_string was not found in ${shown}. The most similar text is at ${describeLines(closest.start, closest.count)}:\n` +
        `${quote(closest.start, closest.count)}\n` +
        'If this is the place you meant, copy its exact text into old_string. If the file may have changed, read it again.',
    );
  }
  return new ToolError(
    'EDIT_TARGET_NOT_FOUND',
    `old_string was not found in ${shown}, and no similar lines were found. Read the file again and copy the exact text to replace.`,
  );
}

function describeLines(start: number, count: number): string {
  return count <= 1 ? `line ${start + 1}` : `lines ${start + 1}-${start + count}`;
}
