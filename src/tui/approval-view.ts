// The approval panel: what the call would do (summary, the permission layer's reason, and the
// diff or command in full), and the choices. The diff is cut to fit the terminal, with a count
// of what is not shown, so the choices stay on screen in a 24-line terminal.

import { createElement as h, type ReactElement } from 'react';
import { Box, Text } from 'ink';
import { paintDiffLine } from './approval-preview.js';
import type { PendingView } from './session-controller.js';
import type { Theme } from './theme.js';
import { oneLine } from './visible-text.js';

export interface ApprovalViewProps {
  pending: PendingView;
  theme: Theme;
  /** Lines of preview that fit. */
  maxPreviewLines: number;
  /** Set while the user types why they deny (after `n`). */
  denyMessage: string | null;
}

export function ApprovalView({ pending, theme, maxPreviewLines, denyMessage }: ApprovalViewProps): ReactElement {
  const preview = pending.preview?.lines ?? [];
  const shown = preview.length > maxPreviewLines ? preview.slice(0, Math.max(1, maxPreviewLines - 1)) : preview;
  const hidden = preview.length - shown.length;
  const body = shown.map((line, i) =>
    h(Text, { key: `p${i}`, wrap: 'truncate-end' }, pending.preview?.kind === 'diff' ? paintDiffLine(line, theme) : line),
  );
  if (hidden > 0)
    body.push(
      h(Text, { key: 'more' }, theme.dim(`… ${hidden} more line${hidden === 1 ? '' : 's'} (the whole call is in the session file)`)),
    );
  const choices =
    denyMessage === null
      ? `${theme.bold('[y]')} approve once  ${theme.bold('[a]')} for this session  ${theme.bold('[n]')} deny  ${theme.dim('[Esc] cancel turn')}`
      : `why deny? (Enter sends, empty for no reason, Esc back): ${denyMessage}${theme.inverse(' ')}`;
  return h(
    Box,
    { flexDirection: 'column', borderStyle: 'round', paddingX: 1 },
    h(Text, { wrap: 'truncate-end' }, `${theme.bold(theme.tone('warning', 'approval needed'))} ${oneLine(pending.summary, 200)}`),
    h(Text, { wrap: 'truncate-end' }, theme.dim(`why: ${oneLine(pending.reason, 300)}`)),
    ...body,
    h(Text, null, choices),
  );
}
