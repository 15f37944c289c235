// What a hook run says in one line, for the transcript of both faces and the Audit tab: which hook
// ran on what, how it ended and why. Browser-safe; reads only the event.

import type { HookRanEvent } from '../protocol/index.js';

const OUTCOME_WORDS: Readonly<Record<HookRanEvent['outcome'], string>> = {
  continue: 'went on',
  allow: 'allowed',
  ask: 'asked for approval',
  deny: 'denied',
  block: 'blocked',
  failed: 'failed',
};

function clip(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** `PreToolUse hook (project) on shell: denied — exit 2: no rm here [./check.sh, 12 ms]`. */
export function hookRunText(event: HookRanEvent): string {
  const on = event.toolName === undefined ? '' : ` on ${event.toolName}`;
  const ending = event.timedOut ? 'timed out' : event.exitCode === null ? 'no exit code' : `exit ${event.exitCode}`;
  const why = event.reason ? `: ${clip(event.reason, 200)}` : '';
  return `${event.event} hook (${event.source})${on} ${OUTCOME_WORDS[event.outcome]} — ${ending}${why} [${clip(event.command, 80)}, ${Math.round(event.durationMs)} ms]`;
}

/** Whether the run stopped something (a call, a prompt) or went wrong: faces show it as a warning. */
export function hookRunStopped(event: HookRanEvent): boolean {
  return event.outcome === 'deny' || event.outcome === 'block' || event.outcome === 'failed';
}
