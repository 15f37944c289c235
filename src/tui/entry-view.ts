// How one transcript entry looks: the user's prompt, the answer as Markdown, reasoning folded to
// one line, a tool call as one line with its status and duration, notices and command output.
// Pure function components: they take text already made safe for the terminal or make it so.

import { createElement as h, type ReactElement } from 'react';
import { Box, Text } from 'ink';
import { diffPainter } from './approval-preview.js';
import { markdownToAnsi } from './markdown-to-ansi.js';
import { lastRows, textRows } from './text-rows.js';
import type { Theme } from './theme.js';
import { toolStatusText, type Entry } from './transcript-state.js';
import { oneLine, visibleText } from '../terminal-text/index.js';

const TOOL_MARK: Record<Extract<Entry, { kind: 'tool' }>['status'], string> = {
  pending: '○',
  approval: '?',
  running: '◐',
  ok: '✓',
  error: '✗',
  denied: '⊘',
  cancelled: '■',
};

function toolMark(entry: Extract<Entry, { kind: 'tool' }>, theme: Theme): string {
  const mark = TOOL_MARK[entry.status];
  if (entry.status === 'ok') return theme.tone('success', mark);
  if (entry.status === 'error' || entry.status === 'denied') return theme.tone('error', mark);
  if (entry.status === 'approval' || entry.status === 'cancelled') return theme.tone('warning', mark);
  return theme.tone('accent', mark);
}

/**
 * What a failed call says under its line: a failed command's last lines of output (where it says
 * why), else the first line of the output, usually the error message the model also saw.
 */
function errorLines(entry: Extract<Entry, { kind: 'tool' }>): string[] {
  if (entry.status !== 'error' || !entry.output) return [];
  if (entry.failure) return entry.failure.tail.map((line) => oneLine(line, 160));
  const first = entry.output.split('\n').find((line) => line.trim() !== '') ?? '';
  return [oneLine(first, 160)];
}

/** Rows of an applied change's diff kept under its call; Ctrl-O shows the rest. */
const DIFF_ROWS = 12;

/** The diff rows an entry shows, and how many it leaves out. */
function diffRows(entry: Extract<Entry, { kind: 'tool' }>): { rows: string[]; hidden: number } {
  const all = entry.diff ?? [];
  // One row of the cap goes to the count of the rest: never "1 more line" in place of the line.
  if (all.length <= DIFF_ROWS) return { rows: all, hidden: 0 };
  return { rows: all.slice(0, DIFF_ROWS - 1), hidden: all.length - DIFF_ROWS + 1 };
}

/** Rows of one call's output Ctrl-O shows; the session file has the rest. */
const EXPANDED_OUTPUT_LINES = 40;

/** A finished call's output as Ctrl-O shows it under the call's line (an applied change's diff coloured). */
function outputLines(entry: Extract<Entry, { kind: 'tool' }>, theme: Theme): string[] {
  if (entry.output.trim() === '') return [];
  const lines = visibleText(entry.output.replace(/\n+$/, '')).split('\n');
  const shown = lines.slice(0, EXPANDED_OUTPUT_LINES).map((line) => `    ${entry.diff ? diffPainter(line, theme)(line) : line}`);
  if (lines.length > shown.length)
    shown.push(theme.dim(`    … ${lines.length - shown.length} more lines (glassbox sessions show has all of it)`));
  return shown;
}

const STEP_MARK = { completed: '✔', in_progress: '◐', pending: '□' } as const;

/** A plan call's checklist, one row per step (the model's words, made visible). */
function planRows(entry: Extract<Entry, { kind: 'tool' }>, theme: Theme): string[] {
  if (entry.plan === undefined) return [];
  const rows = entry.plan.explanation === null ? [] : [theme.dim(theme.italic(`  ${oneLine(entry.plan.explanation, 200)}`))];
  for (const step of entry.plan.steps) {
    const text = `${STEP_MARK[step.status]} ${oneLine(step.step, 200)}`;
    if (step.status === 'completed') rows.push(`    ${theme.tone('success', text)}`);
    else if (step.status === 'in_progress') rows.push(`    ${theme.bold(theme.tone('accent', text))}`);
    else rows.push(`    ${text}`);
  }
  return rows;
}

function planRowCount(entry: Extract<Entry, { kind: 'tool' }>): number {
  return entry.plan === undefined ? 0 : entry.plan.steps.length + (entry.plan.explanation === null ? 0 : 1);
}

export interface EntryViewProps {
  entry: Entry;
  theme: Theme;
  /** Live answers are cut to their last rows so the running turn never outgrows the screen. */
  maxLines?: number;
  /** The terminal's width: <Static> lays its items out unconstrained, so each gets it explicitly. */
  width: number;
  /** Printed entries shown in full (Ctrl-O, Ctrl-T); live ones stay folded to fit the screen. */
  expanded?: { tools: boolean; reasoning: boolean };
}

export function EntryView(props: EntryViewProps): ReactElement | null {
  const content = entryContent(props);
  return content === null ? null : h(Box, { width: props.width, flexDirection: 'column' }, content);
}

function entryContent({ entry, theme, maxLines, width, expanded }: EntryViewProps): ReactElement | null {
  switch (entry.kind) {
    case 'user':
      return h(Box, { marginTop: 1 }, h(Text, null, `${theme.bold(theme.tone('accent', '›'))} ${theme.bold(visibleText(entry.text))}`));
    case 'assistant': {
      // A part inside a code block still closes it (its `└─`), even with no text of its own.
      if (entry.text.trim() === '' && !entry.cancelled && entry.continues !== 'code') return null;
      let text = answerText(entry, theme, Math.max(1, width - 2));
      if (entry.cancelled) text = `${text} ${theme.dim(theme.italic('(cancelled)'))}`;
      if (maxLines !== undefined) {
        // Rows, not lines: a paragraph is one line but wraps to several.
        const { lines, hidden } = lastRows(text, maxLines, width - 2);
        if (hidden > 0) text = [theme.dim(`… ${hidden} lines above`), ...lines].join('\n');
      }
      // A later part of a printed answer lines up under the first, without a mark of its own.
      return h(
        Box,
        { marginTop: entry.continues === 'code' ? 0 : 1, flexDirection: 'row' },
        h(Text, null, entry.continues === undefined ? `${theme.tone('accent', '●')} ` : '  '),
        // An exact width, not flexGrow/flexShrink: a shrunk flex item keeps the height its text was
        // measured to at the wider basis, and <Static> then cuts the answer's last wrapped line.
        h(Box, { width: Math.max(1, width - 2) }, h(Text, null, text)),
      );
    }
    case 'reasoning': {
      if (entry.text.trim() === '') return null;
      const words = entry.text.trim().split(/\s+/).length;
      const label = entry.settled ? `∴ thought (${words} words)` : `∴ thinking… ${oneLine(entry.text.slice(-60), 60)}`;
      if (entry.settled && expanded?.reasoning)
        return h(
          Box,
          { flexDirection: 'column' },
          h(Text, { wrap: 'truncate-end' }, theme.dim(theme.italic(`∴ thought (${words} words) · ctrl-t folds it`))),
          h(Box, { paddingLeft: 2, width: Math.max(1, width - 2) }, h(Text, null, theme.dim(theme.italic(visibleText(entry.text.trim()))))),
        );
      return h(Text, { wrap: 'truncate-end' }, theme.dim(theme.italic(label)));
    }
    case 'tool': {
      // The name is the model's: a made-up tool name is shown, not obeyed.
      const name = oneLine(entry.name, 80);
      const statusText = toolStatusText(entry);
      // The summary gives way to the status: a long command must not push `exit 1` off the line.
      const room = width - [...name].length - statusText.length - 6;
      const head = `${toolMark(entry, theme)} ${theme.bold(name)} ${oneLine(entry.summary, Math.max(12, room))}`;
      const status = entry.failure ? theme.tone('error', statusText) : theme.dim(statusText);
      const lines = [h(Text, { key: 'head', wrap: 'truncate-end' }, `${head} ${theme.dim('·')} ${status}`)];
      if (entry.note) lines.push(h(Text, { key: 'note', wrap: 'truncate-end' }, theme.dim(`  └ ${oneLine(entry.note)}`)));
      for (const [index, line] of errorLines(entry).entries())
        lines.push(h(Text, { key: `err${index}`, wrap: 'truncate-end' }, theme.tone('error', `  ${index === 0 ? '└' : ' '} ${line}`)));
      for (const [index, line] of planRows(entry, theme).entries())
        lines.push(h(Text, { key: `plan${index}`, wrap: 'truncate-end' }, line));
      if (expanded?.tools) {
        for (const [index, line] of outputLines(entry, theme).entries())
          lines.push(h(Text, { key: `out${index}`, wrap: 'truncate-end' }, line));
        return h(Box, { flexDirection: 'column' }, ...lines);
      }
      const diff = diffRows(entry);
      for (const [index, line] of diff.rows.entries())
        lines.push(h(Text, { key: `diff${index}`, wrap: 'truncate-end' }, `    ${diffPainter(line, theme)(line)}`));
      if (diff.hidden > 0)
        lines.push(
          h(
            Text,
            { key: 'diff-more', wrap: 'truncate-end' },
            theme.dim(`    … ${diff.hidden} more lines · ctrl-o shows every output in full`),
          ),
        );
      return h(Box, { flexDirection: 'column' }, ...lines);
    }
    case 'notice': {
      const tone = entry.tone === 'info' ? 'muted' : entry.tone;
      return h(Text, null, theme.tone(tone, visibleText(entry.text)));
    }
    case 'block':
      // The body is built by our commands, styled, from text they made visible themselves.
      return h(
        Box,
        { flexDirection: 'column', marginTop: 1 },
        h(Text, null, theme.bold(theme.tone('accent', `▍${oneLine(entry.title)}`))),
        h(Text, null, entry.body),
      );
  }
}

/**
 * An answer (or a part of one) as ANSI text. A part that goes on with a code block is lexed with
 * that block's start, so it renders as those lines would in the whole; the rows of the start
 * (printed above) are dropped, as is the block's end when the part stops inside it.
 */
export function answerText(entry: Extract<Entry, { kind: 'assistant' }>, theme: Theme, width?: number): string {
  const before = entry.codeBefore ?? '';
  let lines = markdownToAnsi(visibleText(before + entry.text), theme, width).split('\n');
  if (before !== '') lines = lines.slice(before.replace(/\n$/, '').split('\n').length);
  if (entry.openCode) lines = lines.slice(0, -1);
  return lines.join('\n');
}

/** Rows an entry other than an answer takes on screen (answers are cut to what is left). */
export function entryRows(entry: Entry, width: number): number {
  switch (entry.kind) {
    case 'user':
      return 1 + textRows(`› ${visibleText(entry.text)}`, width);
    case 'assistant':
      return 0;
    case 'reasoning':
      return entry.text.trim() === '' ? 0 : 1;
    case 'tool':
      return (
        1 +
        (entry.note ? 1 : 0) +
        errorLines(entry).length +
        planRowCount(entry) +
        diffRows(entry).rows.length +
        (diffRows(entry).hidden > 0 ? 1 : 0)
      );
    case 'notice':
      return textRows(visibleText(entry.text), width);
    case 'block':
      return 2 + textRows(entry.body, width);
  }
}
