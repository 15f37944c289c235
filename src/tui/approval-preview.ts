// What an approval shows besides the one-line summary: for a write, the diff it would make
// (computed here from the file as it is now and the call's arguments, before anything runs);
// for a patch, the patch; for a command, the command in full. The approver decides on this,
// so model-controlled text is made visible (no control characters) before it is shown.

import { readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { structuredPatch } from 'diff';
import { parseArguments } from './tool-summary.js';
import type { Theme } from './theme.js';
import { visibleText } from '../terminal-text/index.js';

export interface ApprovalPreview {
  /** `diff`: unified diff lines; `command`: the command; `text`: anything else. */
  kind: 'diff' | 'command' | 'text';
  lines: string[];
}

const MAX_PREVIEW_FILE_BYTES = 1024 * 1024;

async function currentText(root: string, path: string): Promise<{ text: string | null; problem: string | null }> {
  const target = resolve(root, path);
  try {
    const [realRoot, realTarget] = await Promise.all([realpath(root), realpath(target)]);
    const rel = relative(realRoot, realTarget);
    if (rel.startsWith('..') || isAbsolute(rel)) return { text: null, problem: 'the path is outside the project' };
    const info = await stat(realTarget);
    if (!info.isFile()) return { text: null, problem: 'not a regular file' };
    if (info.size > MAX_PREVIEW_FILE_BYTES) return { text: null, problem: 'the file is too large to preview' };
    return { text: (await readFile(realTarget, 'utf8')).replace(/\r\n/g, '\n'), problem: null };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { text: null, problem: null };
    return { text: null, problem: (error as Error).message };
  }
}

export function diffLines(oldText: string, newText: string, context = 3): string[] {
  const patch = structuredPatch('a', 'b', oldText, newText, undefined, undefined, { context, maxEditLength: 4000 });
  if (patch === undefined) return ['(diff too large to preview)'];
  const lines: string[] = [];
  for (const hunk of patch.hunks) {
    lines.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`);
    for (const line of hunk.lines) if (!line.startsWith('\\')) lines.push(line);
  }
  return lines;
}

export async function buildApprovalPreview(toolName: string, rawArguments: string, root: string): Promise<ApprovalPreview> {
  const args = parseArguments(rawArguments);
  if (args === null) return { kind: 'text', lines: [visibleText(rawArguments)] };
  if (toolName === 'write_file' && typeof args.path === 'string' && typeof args.content === 'string') {
    const current = await currentText(root, args.path);
    const header = current.text === null ? `new file ${args.path}` : `--- ${args.path}`;
    const lines = diffLines(current.text ?? '', args.content.replace(/\r\n/g, '\n'));
    return { kind: 'diff', lines: [header, ...(current.problem ? [`(${current.problem})`] : []), ...lines].map(visibleText) };
  }
  if (
    toolName === 'edit_file' &&
    typeof args.path === 'string' &&
    typeof args.old_string === 'string' &&
    typeof args.new_string === 'string'
  ) {
    const current = await currentText(root, args.path);
    const oldString = args.old_string.replace(/\r\n/g, '\n');
    const newString = args.new_string.replace(/\r\n/g, '\n');
    if (current.text !== null && oldString !== '' && current.text.includes(oldString)) {
      const next =
        args.replace_all === true ? current.text.split(oldString).join(newString) : current.text.replace(oldString, () => newString);
      return { kind: 'diff', lines: [`--- ${args.path}`, ...diffLines(current.text, next)].map(visibleText) };
    }
    // The edit will fail (or the file cannot be read): show what it asks for.
    return {
      kind: 'diff',
      lines: [`--- ${args.path} (${current.problem ?? 'text not found as given'})`, ...diffLines(oldString, newString, 0)].map(visibleText),
    };
  }
  if (toolName === 'apply_patch' && typeof args.patch === 'string') {
    const lines = args.patch
      .replace(/\r\n/g, '\n')
      .split('\n')
      .filter((line) => line !== '*** Begin Patch' && line !== '*** End Patch');
    return { kind: 'diff', lines: lines.map(visibleText) };
  }
  if (typeof args.command === 'string' || Array.isArray(args.command)) {
    const command = Array.isArray(args.command) ? args.command.map(String).join(' ') : (args.command as string);
    const extra = [
      typeof args.workdir === 'string' ? `in ${args.workdir}` : '',
      typeof args.justification === 'string' ? `why: ${args.justification}` : '',
    ];
    return {
      kind: 'command',
      lines: [
        ...visibleText(command)
          .split('\n')
          .map((l) => `$ ${l}`),
        ...extra.filter(Boolean).map(visibleText),
      ],
    };
  }
  return { kind: 'text', lines: visibleText(JSON.stringify(args, null, 2)).split('\n') };
}

/** How a diff line is coloured, by its first characters (also for the rows it wraps to). */
export function diffPainter(line: string, theme: Theme): (text: string) => string {
  if (line.startsWith('+++') || line.startsWith('---') || line.startsWith('*** ')) return (text) => theme.bold(text);
  if (line.startsWith('+')) return (text) => theme.tone('added', text);
  if (line.startsWith('-')) return (text) => theme.tone('removed', text);
  if (line.startsWith('@@')) return (text) => theme.tone('hunk', text);
  return (text) => text;
}

/** Colours a diff line by its first character. */
export function paintDiffLine(line: string, theme: Theme): string {
  return diffPainter(line, theme)(line);
}
