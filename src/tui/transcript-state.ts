// What the transcript shows, as a pure reducer over run events and UI notices. Entries that can
// no longer change move from `live` to `done` in order: ink prints `done` once into the
// terminal's scrollback (its <Static>), so only the running turn is redrawn on every delta.

import type { RunEvent } from '../agent/index.js';
import { formatDuration, toolCallSummary } from './tool-summary.js';
import { oneLine } from '../terminal-text/index.js';
import { shellEnding, shellFailed, shellOutcome, shellOutputTail } from '../views/index.js';

export type ToolStatus = 'pending' | 'approval' | 'running' | 'ok' | 'error' | 'denied';
export type NoticeTone = 'info' | 'success' | 'warning' | 'error';

export type Entry =
  | { id: number; kind: 'user'; text: string }
  | { id: number; kind: 'assistant'; text: string; round: number; settled: boolean }
  | { id: number; kind: 'reasoning'; text: string; round: number; settled: boolean }
  | {
      id: number;
      kind: 'tool';
      callId: string;
      name: string;
      summary: string;
      status: ToolStatus;
      durationMs: number | null;
      output: string;
      /** Why it was denied, or the approver's note. */
      note: string | null;
      /** A shell command that did not exit 0: how it ended (`exit 1`) and its last lines of output. */
      failure?: { ending: string; tail: string[] };
    }
  | { id: number; kind: 'notice'; tone: NoticeTone; text: string }
  /** Preformatted text (command output, diffs, help), already styled and made safe. */
  | { id: number; kind: 'block'; title: string; body: string };

export type NewEntry = Entry extends infer E ? (E extends Entry ? Omit<E, 'id'> : never) : never;

export interface TranscriptState {
  done: Entry[];
  live: Entry[];
  nextId: number;
  /** Bumped by /clear: the view remounts its static part, starting a fresh screen. */
  epoch: number;
}

export function emptyTranscript(epoch = 0): TranscriptState {
  return { done: [], live: [], nextId: 1, epoch };
}

function isSettled(entry: Entry): boolean {
  switch (entry.kind) {
    case 'assistant':
    case 'reasoning':
      return entry.settled;
    case 'tool':
      return entry.status === 'ok' || entry.status === 'error' || entry.status === 'denied';
    default:
      return true;
  }
}

/** Moves the settled prefix of `live` into `done`, keeping order. */
function flush(state: TranscriptState): TranscriptState {
  let count = 0;
  while (count < state.live.length && isSettled(state.live[count]!)) count += 1;
  if (count === 0) return state;
  return { ...state, done: [...state.done, ...state.live.slice(0, count)], live: state.live.slice(count) };
}

export function addEntry(state: TranscriptState, entry: NewEntry): TranscriptState {
  return flush({ ...state, live: [...state.live, { ...entry, id: state.nextId } as Entry], nextId: state.nextId + 1 });
}

function mapLive(state: TranscriptState, change: (entry: Entry) => Entry): TranscriptState {
  return flush({ ...state, live: state.live.map(change) });
}

function settleStreams(state: TranscriptState): TranscriptState {
  return mapLive(state, (entry) => (entry.kind === 'assistant' || entry.kind === 'reasoning' ? { ...entry, settled: true } : entry));
}

function appendStream(state: TranscriptState, kind: 'assistant' | 'reasoning', round: number, delta: string): TranscriptState {
  const last = state.live.at(-1);
  if (last && last.kind === kind && last.round === round && !last.settled) {
    return { ...state, live: [...state.live.slice(0, -1), { ...last, text: last.text + delta }] };
  }
  // Reasoning comes before the answer; a new stream settles the previous one.
  return addEntry(settleStreams(state), { kind, text: delta, round, settled: false });
}

function updateTool(state: TranscriptState, callId: string, change: (entry: Extract<Entry, { kind: 'tool' }>) => Entry): TranscriptState {
  return mapLive(state, (entry) => (entry.kind === 'tool' && entry.callId === callId ? change(entry) : entry));
}

export function reduceRunEvent(state: TranscriptState, event: RunEvent): TranscriptState {
  switch (event.type) {
    case 'assistant_delta':
      return appendStream(state, 'assistant', event.round, event.delta);
    case 'reasoning_delta':
      return appendStream(state, 'reasoning', event.round, event.delta);
    case 'model_completed':
      return settleStreams(state);
    case 'model_retry':
      return addEntry(state, {
        kind: 'notice',
        tone: 'warning',
        text: `retrying in ${(event.delayMs / 1000).toFixed(1)}s (attempt ${event.attempt + 1}): ${oneLine(event.error.message, 160)}`,
      });
    case 'stream_retry': {
      // The broken attempt's text is void: drop what is still live of it, and say so.
      const kept = state.live.filter(
        (entry) => !((entry.kind === 'assistant' || entry.kind === 'reasoning') && entry.round === event.round && !entry.settled),
      );
      return addEntry(
        { ...state, live: kept },
        {
          kind: 'notice',
          tone: 'warning',
          text: `retrying (stream interrupted) ${event.attempt}/${event.maxAttempts} in ${(event.delayMs / 1000).toFixed(1)}s; the ${event.discardedChars} characters it had shown are discarded: ${oneLine(event.error.message, 160)}`,
        },
      );
    }
    case 'tool_requested':
      return addEntry(settleStreams(state), {
        kind: 'tool',
        callId: event.callId,
        name: event.name,
        summary: toolCallSummary(event.name, event.arguments),
        status: 'pending',
        durationMs: null,
        output: '',
        note: null,
      });
    case 'tool_permission_decided':
      if (event.decision === 'deny')
        return updateTool(state, event.callId, (t) => ({ ...t, status: 'denied', note: oneLine(event.reason, 200) }));
      return updateTool(state, event.callId, (t) => ({ ...t, status: event.decision === 'ask' ? 'approval' : 'pending' }));
    case 'approval_resolved':
      if (event.decision === 'deny') {
        const why = event.by === 'user' ? 'denied by you' : `denied (${event.by})`;
        return updateTool(state, event.callId, (t) => ({
          ...t,
          status: 'denied',
          note: event.message ? `${why}: ${oneLine(event.message, 160)}` : why,
        }));
      }
      return updateTool(state, event.callId, (t) => ({
        ...t,
        status: 'pending',
        note: event.decision === 'approve_session' ? 'approved for this session' : 'approved',
      }));
    case 'tool_started':
      return updateTool(state, event.callId, (t) => ({ ...t, status: 'running' }));
    case 'tool_finished': {
      // The shell tool reports a non-zero exit as a normal result for the model; a person sees a failure.
      const shell = shellOutcome(event.name, event.output);
      const failure = shell !== null && shellFailed(shell) ? { ending: shellEnding(shell), tail: shellOutputTail(shell) } : undefined;
      return updateTool(state, event.callId, (t) =>
        t.status === 'denied'
          ? { ...t, output: event.output }
          : { ...t, status: event.isError || failure ? 'error' : 'ok', durationMs: event.durationMs, output: event.output, failure },
      );
    }
    case 'history_compacted':
      return addEntry(state, {
        kind: 'notice',
        tone: 'info',
        text: `⇣ context compacted (${event.kind}, ${event.trigger}): ${event.tokensBefore.toLocaleString('en-US')} → ${event.tokensAfter.toLocaleString('en-US')} tokens${event.estimated ? ' (estimated)' : ''}`,
      });
    case 'warning':
      return addEntry(state, { kind: 'notice', tone: 'warning', text: `warning: ${oneLine(event.message, 400)}` });
    case 'run_succeeded': {
      const settled = settleStreams(state);
      const answered = [...settled.done, ...settled.live].some((e) => e.kind === 'assistant' && e.text.trim() !== '');
      // A provider that does not stream still has an answer to show.
      const withAnswer =
        answered || event.answer.trim() === ''
          ? settled
          : addEntry(settled, { kind: 'assistant', text: event.answer, round: -1, settled: true });
      return finishTools(withAnswer);
    }
    case 'run_failed':
      return addEntry(finishTools(settleStreams(state)), {
        kind: 'notice',
        tone: 'error',
        text: `run failed [${event.error.code}]: ${oneLine(event.error.message, 400)}`,
      });
    case 'run_cancelled':
      return addEntry(finishTools(settleStreams(state)), {
        kind: 'notice',
        tone: 'warning',
        text: `cancelled: ${oneLine(event.reason, 200)}`,
      });
    default:
      return state;
  }
}

/** At the end of a run no call is still in flight: anything unfinished was cut short. */
function finishTools(state: TranscriptState): TranscriptState {
  return mapLive(state, (entry) =>
    entry.kind === 'tool' && !isSettled(entry) ? { ...entry, status: 'error', note: entry.note ?? 'not finished' } : entry,
  );
}

/** The line under a tool call: its status word and duration. */
export function toolStatusText(entry: Extract<Entry, { kind: 'tool' }>): string {
  const duration = entry.durationMs === null ? '' : ` · ${formatDuration(entry.durationMs)}`;
  switch (entry.status) {
    case 'pending':
      return 'queued';
    case 'approval':
      return 'waiting for approval';
    case 'running':
      return 'running…';
    case 'ok':
      return `done${duration}`;
    case 'error':
      return `${entry.failure?.ending ?? 'failed'}${duration}`;
    case 'denied':
      return 'denied';
  }
}

/** The most recent tool call with output, for Ctrl-O. */
export function lastToolEntry(state: TranscriptState): Extract<Entry, { kind: 'tool' }> | null {
  const all = [...state.done, ...state.live];
  for (let i = all.length - 1; i >= 0; i -= 1) {
    const entry = all[i]!;
    if (entry.kind === 'tool' && entry.output !== '') return entry;
  }
  return null;
}
