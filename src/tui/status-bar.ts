// The two status lines under the editor: who is answering under which policy in which session,
// then how full the context is, how far from automatic compaction, and what the session used
// and cost. Each line is cut at the terminal's width rather than wrapped, so the layout holds
// in an 80×24 terminal.

import { createElement as h, type ReactElement } from 'react';
import { Box, Text } from 'ink';
import type { Snapshot } from './session-controller.js';
import { compactNumber, contextText, formatCost } from './session-meter.js';
import type { Theme } from './theme.js';

export function statusLines(
  s: Pick<Snapshot, 'model' | 'wireApi' | 'sandbox' | 'approvalPolicy' | 'sessionId' | 'meter' | 'limits'>,
): [string, string] {
  // The id's first 13 characters are its creation time to the millisecond (UUIDv7): enough to tell
  // sessions apart at a glance, and a prefix `--resume` accepts; /status shows it whole.
  const session = s.sessionId === null ? 'new session' : s.sessionId.slice(0, 13);
  const first = `${s.model} · ${s.wireApi} · ${s.sandbox} · ${s.approvalPolicy} · ${session}`;
  const second = `${contextText(s.meter, s.limits)} · ${compactNumber(s.meter.sessionTokens)} tokens · ${formatCost(s.meter.cost, s.meter.costPartial)}`;
  return [first, second];
}

export interface StatusBarProps {
  snapshot: Snapshot;
  theme: Theme;
  hint: string;
}

export function StatusBar({ snapshot, theme, hint }: StatusBarProps): ReactElement {
  const [first, second] = statusLines(snapshot);
  return h(
    Box,
    { flexDirection: 'column' },
    h(Text, { wrap: 'truncate-end' }, theme.dim(first)),
    h(Text, { wrap: 'truncate-end' }, theme.dim(second)),
    h(Text, { wrap: 'truncate-end' }, theme.dim(hint)),
  );
}
