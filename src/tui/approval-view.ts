// The approval panel: what the call would do (summary, the permission layer's reason, and the
// diff or command wrapped, never cut at the edge), what each choice covers, and the choices. What
// does not fit a 24-line terminal is cut in the middle with a warning, so the choices and the
// last row stay on screen.

import { createElement as h, type ReactElement } from 'react';
import { Box, Text } from 'ink';
import { diffPainter } from './approval-preview.js';
import type { PendingView } from './session-controller.js';
import { textRows } from './text-rows.js';
import type { Theme } from './theme.js';
import { oneLine } from '../terminal-text/index.js';

export interface ApprovalViewProps {
  pending: PendingView;
  theme: Theme;
  /** Rows of preview that fit. */
  maxPreviewLines: number;
  /** Set while the user types why they deny (after `n`). */
  denyMessage: string | null;
  /** False for a moment after the panel appears and after each key (see APPROVAL_GUARD_MS). */
  armed: boolean;
  /** The terminal's width. */
  width: number;
  /** Set after `s`: the rule is shown and waits for a second yes before it is saved. */
  confirmingRule: boolean;
  /** The user's config file "approve always" writes to. */
  configFile: string;
}

/**
 * The lines above the preview and below it that say what is asked and what each choice covers:
 * the reason in full (wrapped, never cut: it is why the user is asked), what `a` grants (the
 * gate's own words; the runner opens a new gate for each turn, so a grant ends with the turn),
 * and the exact rule `s` would save. Shared with the row count below.
 */
function noteLines(pending: PendingView, theme: Theme, configFile: string): { head: string[]; tail: string[] } {
  const scope = pending.sessionScope ?? [];
  const covers =
    scope.length === 0
      ? 'approves this call; later ones still ask'
      : `allows ${scope.map((label) => oneLine(label, 300)).join('; ')} for the rest of this session`;
  const tail = [theme.dim(`[a] for this session ${covers}`)];
  if (pending.alwaysRule !== null)
    tail.push(theme.dim(`[s] always: saves the rule ${oneLine(pending.alwaysRule, 300)} to ${oneLine(configFile, 200)} (asks first)`));
  return { head: [theme.dim(`why: ${oneLine(pending.reason, 600)}`)], tail };
}

function choicesLine(pending: PendingView, theme: Theme, denyMessage: string | null, armed: boolean, confirmingRule: boolean): string {
  const rule = pending.alwaysRule;
  if (denyMessage !== null) return `why deny? (Enter sends, empty for no reason, Esc back): ${denyMessage}${theme.inverse(' ')}`;
  if (confirmingRule && rule !== null)
    return `save ${theme.bold(oneLine(rule, 300))} to permissions.allow?  ${theme.bold('[y]')} save and approve  ${theme.dim('[Esc] back')}`;
  if (!armed) return theme.dim('answer keys open when you stop typing…  [Esc] cancel turn');
  const always = rule === null ? '' : `${theme.bold('[s]')} always  `;
  return `${theme.bold('[y]')} approve once  ${theme.bold('[a]')} for session  ${always}${theme.bold('[n]')} deny  ${theme.dim(rule === null ? '[Esc] cancel turn' : '[Esc] cancel')}`;
}

/** Rows the panel takes besides its borders, its summary line and the preview. */
export function approvalNoteRows(
  props: Pick<ApprovalViewProps, 'pending' | 'width' | 'configFile' | 'theme' | 'denyMessage' | 'armed' | 'confirmingRule'>,
): number {
  const { head, tail } = noteLines(props.pending, props.theme, props.configFile);
  const choices = choicesLine(props.pending, props.theme, props.denyMessage, props.armed, props.confirmingRule);
  return [...head, ...tail, choices].reduce((sum, line) => sum + textRows(line, Math.max(10, props.width - 4)), 0);
}

interface PreviewRow {
  text: string;
  /** The line it came from, which decides a diff row's colour. */
  origin: string;
  kind: 'row' | 'cut';
}

/**
 * The preview as the rows it will take, never cut at the right edge: a command or a diff line is
 * wrapped, because what is past the edge is exactly where `&& curl … | sh` would hide. When the
 * rows do not fit, the head and the last row are kept and the cut is said in so many words.
 */
export function previewRows(pending: PendingView, width: number, budget: number): PreviewRow[] {
  const inner = Math.max(10, width - 4);
  const rows: PreviewRow[] = [];
  for (const line of pending.preview?.lines ?? []) {
    if (line.length <= inner) rows.push({ text: line, origin: line, kind: 'row' });
    else for (let at = 0; at < line.length; at += inner) rows.push({ text: line.slice(at, at + inner), origin: line, kind: 'row' });
  }
  if (rows.length <= budget) return rows;
  const head = rows.slice(0, Math.max(1, budget - 2));
  const hidden = rows.length - head.length - 1;
  return [...head, { text: `${hidden}`, origin: '', kind: 'cut' }, rows[rows.length - 1]!];
}

export function ApprovalView({
  pending,
  theme,
  maxPreviewLines,
  denyMessage,
  armed,
  width,
  confirmingRule,
  configFile,
}: ApprovalViewProps): ReactElement {
  const isDiff = pending.preview?.kind === 'diff';
  const body = previewRows(pending, width, maxPreviewLines).map((row, i) => {
    if (row.kind === 'cut') {
      const what = pending.preview?.kind === 'command' ? 'of this command' : 'of this call';
      return h(
        Text,
        { key: `p${i}` },
        theme.tone(
          'warning',
          `⚠ ${row.text} more row${row.text === '1' ? '' : 's'} ${what} not shown here; the last one follows. Deny if unsure.`,
        ),
      );
    }
    return h(Text, { key: `p${i}`, wrap: 'truncate-end' }, isDiff ? diffPainter(row.origin, theme)(row.text) : row.text);
  });
  const notes = noteLines(pending, theme, configFile);
  const choices = choicesLine(pending, theme, denyMessage, armed, confirmingRule);
  return h(
    Box,
    { flexDirection: 'column', borderStyle: 'round', paddingX: 1 },
    h(Text, { wrap: 'truncate-end' }, `${theme.bold(theme.tone('warning', 'approval needed'))} ${oneLine(pending.summary, 200)}`),
    ...notes.head.map((line, i) => h(Text, { key: `h${i}` }, line)),
    ...body,
    ...notes.tail.map((line, i) => h(Text, { key: `t${i}` }, line)),
    h(Text, null, choices),
  );
}
