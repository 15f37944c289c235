// The approval panel: what the call would do (summary, the permission layer's reason, and the
// diff or command wrapped, never cut at the edge), and the choices. What does not fit a 24-line
// terminal is cut in the middle with a warning, so the choices and the last row stay on screen.

import { createElement as h, type ReactElement } from 'react';
import { Box, Text } from 'ink';
import { diffPainter } from './approval-preview.js';
import type { PendingView } from './session-controller.js';
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

export function ApprovalView({ pending, theme, maxPreviewLines, denyMessage, armed, width }: ApprovalViewProps): ReactElement {
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
  const choices =
    denyMessage !== null
      ? `why deny? (Enter sends, empty for no reason, Esc back): ${denyMessage}${theme.inverse(' ')}`
      : armed
        ? `${theme.bold('[y]')} approve once  ${theme.bold('[a]')} for this session  ${theme.bold('[n]')} deny  ${theme.dim('[Esc] cancel turn')}`
        : theme.dim('answer keys open when you stop typing…  [Esc] cancel turn');
  return h(
    Box,
    { flexDirection: 'column', borderStyle: 'round', paddingX: 1 },
    h(Text, { wrap: 'truncate-end' }, `${theme.bold(theme.tone('warning', 'approval needed'))} ${oneLine(pending.summary, 200)}`),
    h(Text, { wrap: 'truncate-end' }, theme.dim(`why: ${oneLine(pending.reason, 300)}`)),
    ...body,
    h(Text, null, choices),
  );
}
