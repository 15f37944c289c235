// What an approval shows besides the one-line summary: for a file write, the server's change
// preview (runner/'s `previewChange`, a dry run against the files as they are now, which never
// shows what a secret file holds), rendered here as diff lines; for a command, the command in
// full. The approver decides on this, so model-controlled text is made visible (no control
// characters) before it is shown.

import { previewChange, type ChangePreview, type FilePreview } from '../runner/index.js';
import { argumentsObject, requestedChange, type ChangeRow } from '../views/index.js';
import type { Theme } from './theme.js';
import { visibleText } from '../terminal-text/index.js';

export interface ApprovalPreview {
  /** `diff`: unified diff lines; `command`: the command; `text`: anything else. */
  kind: 'diff' | 'command' | 'text';
  lines: string[];
}

/** How a row of a diff starts on the terminal (a patch's file rows as its own headers). */
const ROW_PREFIX = { add: '+', del: '-', ctx: ' ', hunk: '', file: '*** ' } as const;

/** A row of a change as one line of text, in the form `diffPainter` colours. */
export function changeRowLine(row: ChangeRow): string {
  return `${ROW_PREFIX[row.kind]}${row.text}`;
}

function fileHeader(file: FilePreview): string {
  if (file.change === 'add') return `new file ${file.path}`;
  if (file.change === 'delete') return `deleted ${file.path}`;
  return file.change === 'move' ? `--- ${file.path} → ${file.to}` : `--- ${file.path}`;
}

/**
 * What a call that cannot be previewed asks for, from its arguments alone (the model's text, no
 * file is read): views/'s reading, the one the workbench falls back to.
 */
function askedLines(toolName: string, rawArguments: string): string[] {
  const asked = requestedChange(toolName, rawArguments);
  if (asked === null || asked.rows.length === 0) return [];
  return ['what the call asks for:', ...asked.rows.map(changeRowLine)];
}

/** The change preview as the terminal shows it: per file a header, then its diff lines. */
export function changePreviewLines(preview: ChangePreview, toolName: string, rawArguments: string): string[] {
  const lines: string[] = [];
  if (preview.problem !== null) lines.push(`(${preview.problem})`);
  for (const file of preview.files) {
    lines.push(fileHeader(file));
    for (const line of file.lines) lines.push(`${ROW_PREFIX[line.kind]}${line.text}`);
    if (file.omittedLines > 0) lines.push(`… ${file.omittedLines} more lines`);
  }
  if (preview.files.length === 0) lines.push(...askedLines(toolName, rawArguments));
  return lines.map(visibleText);
}

export async function buildApprovalPreview(toolName: string, rawArguments: string, root: string): Promise<ApprovalPreview> {
  const change = await previewChange(toolName, rawArguments, root);
  if (change !== null) return { kind: 'diff', lines: changePreviewLines(change, toolName, rawArguments) };
  const args = argumentsObject(rawArguments);
  if (args === null) return { kind: 'text', lines: [visibleText(rawArguments)] };
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
