// What the transcript shows: the terminal's adapter over the one fold of run events that the web
// workbench uses too (views/'s `reduceTurnAt`), plus the terminal's own notices and blocks. Each
// event goes through the shared fold; the turn it yields is mapped, entry by entry, onto this
// screen's entries (a tool call group becomes one line per call). Entries that can no longer
// change move from `live` to `done` in order: ink prints `done` once into the terminal's
// scrollback (its <Static>), so only the running turn is redrawn as deltas arrive (a few at a
// time: SessionController publishes them together).

import type { RunEvent } from '../agent/index.js';
import { oneLine, visibleText } from '../terminal-text/index.js';
import {
  appliedDiff,
  callChecklist,
  callSubject,
  type Checklist,
  reduceTurnAt,
  startLiveTurn,
  type CompactionView,
  type NoticeCause,
  type ToolCallState,
  type TranscriptEntry,
  type TranscriptTurn,
} from '../views/index.js';
import { hookRunText, shellEnding, shellFailed, shellOutcome, shellOutputTail } from '../views/index.js';
import { changeRowLine } from './approval-preview.js';
import { finishedMarkdown } from './finished-markdown.js';
import { formatDuration } from './format-duration.js';

export type ToolStatus = 'pending' | 'approval' | 'running' | 'ok' | 'error' | 'denied' | 'cancelled';
export type NoticeTone = 'info' | 'success' | 'warning' | 'error';

/** `key`: where an entry comes from in the run being shown (absent for the terminal's own). */
type Keyed = { id: number; key?: string };

export type Entry =
  | (Keyed & { kind: 'user'; text: string })
  /** `cancelled`: the answer was cut off by a cancel mid-stream (what it had shown stays, marked). */
  | (Keyed & {
      kind: 'assistant';
      text: string;
      settled: boolean;
      cancelled?: boolean;
      /**
       * A later part of an answer whose start is already printed (finished-markdown.ts): `block`
       * starts a new block below it, `code` goes on with the code block the part above ends in.
       */
      continues?: 'block' | 'code';
      /** With `continues: 'code'`: that code block's source so far (its fence and printed lines), to lex and highlight with. */
      codeBefore?: string;
      /** This part ends inside a code block, which the next part closes. */
      openCode?: boolean;
    })
  | (Keyed & { kind: 'reasoning'; text: string; settled: boolean })
  | (Keyed & {
      kind: 'tool';
      callId: string;
      name: string;
      summary: string;
      status: ToolStatus;
      /** The tool began executing: a call cancelled before that never ran. */
      started: boolean;
      durationMs: number | null;
      output: string;
      /** Why it was denied, or the approver's note. */
      note: string | null;
      /** A shell command that did not exit 0: how it ended (`exit 1`) and its last lines of output. */
      failure?: { ending: string; tail: string[] };
      /** An applied change: the diff its result ends with, as lines made visible (`+added`, `-removed`…). */
      diff?: string[];
      /** A plan call: the plan it sets, drawn as a checklist under its line. */
      plan?: Checklist;
    })
  | (Keyed & { kind: 'notice'; tone: NoticeTone; text: string })
  /** Preformatted text (command output, diffs, help), already styled and made safe. */
  | (Keyed & { kind: 'block'; title: string; body: string });

export type NewEntry = Entry extends infer E ? (E extends Entry ? Omit<E, 'id'> : never) : never;

/** The run whose events are being shown, as the shared fold has it. */
interface ShownRun {
  /** Prefix of this run's entry keys: a later run's `text-0` is another entry. */
  prefix: string;
  turn: TranscriptTurn;
  /** Keys of this run's entries already printed (in `done`): final, never added again. */
  printed: ReadonlySet<string>;
  /**
   * How many of the turn's first entries are done with: printed, and past changing (not the last
   * entry, not streaming). Each event maps only the entries after them, so a long run costs no
   * more per delta than a short one.
   */
  stable: number;
  /** Answers whose finished start is printed while they stream, by key. */
  streamed: ReadonlyMap<string, StreamedAnswer>;
}

/** What of a streaming answer is printed already. */
interface StreamedAnswer {
  /** The answer's source printed so far. */
  printed: string;
  /** Where the first block not printed whole starts (before `printed`'s end inside an open code block). */
  blockStart: number;
  /** Parts printed, for their keys. */
  parts: number;
}

export interface TranscriptState {
  done: Entry[];
  live: Entry[];
  nextId: number;
  /** Bumped by /clear: the view remounts its static part, starting a fresh screen. */
  epoch: number;
  run: ShownRun | null;
  /** Runs shown so far, for their key prefixes. */
  runs: number;
}

export function emptyTranscript(epoch = 0): TranscriptState {
  return { done: [], live: [], nextId: 1, epoch, run: null, runs: 0 };
}

function isSettled(entry: Entry | NewEntry): boolean {
  switch (entry.kind) {
    case 'assistant':
    case 'reasoning':
      return entry.settled;
    case 'tool':
      return entry.status === 'ok' || entry.status === 'error' || entry.status === 'denied' || entry.status === 'cancelled';
    default:
      return true;
  }
}

/** Moves the settled prefix of `live` into `done`, keeping order. */
function flush(state: TranscriptState): TranscriptState {
  let count = 0;
  while (count < state.live.length && isSettled(state.live[count]!)) count += 1;
  if (count === 0) return state;
  const moved = state.live.slice(0, count);
  const run = state.run;
  const printed = moved.filter((entry) => entry.key !== undefined && run !== null && entry.key.startsWith(run.prefix));
  return {
    ...state,
    done: [...state.done, ...moved],
    live: state.live.slice(count),
    run: run === null || printed.length === 0 ? run : { ...run, printed: new Set([...run.printed, ...printed.map((e) => e.key!)]) },
  };
}

export function addEntry(state: TranscriptState, entry: NewEntry): TranscriptState {
  return flush({ ...state, live: [...state.live, { ...entry, id: state.nextId } as Entry], nextId: state.nextId + 1 });
}

// ---- the shared turn, as this screen's entries ----

const TOOL_STATUS: Record<ToolCallState['status'], ToolStatus> = {
  requested: 'pending',
  awaiting_approval: 'approval',
  running: 'running',
  succeeded: 'ok',
  failed: 'error',
  denied: 'denied',
  cancelled: 'cancelled',
};

function toolNote(call: ToolCallState): string | null {
  const resolution = call.approval?.resolution ?? null;
  if (resolution !== null) {
    if (resolution.decision === 'approve_session') return 'approved for this session';
    if (resolution.decision === 'approve') return 'approved';
    const why = resolution.by === 'user' ? 'denied by you' : `denied (${resolution.by})`;
    return resolution.message ? `${why}: ${oneLine(resolution.message, 160)}` : why;
  }
  return call.permission?.decision === 'deny' ? oneLine(call.permission.reason, 200) : null;
}

// A call's line is worked out once per state of the call (the fold keeps unchanged calls as they were).
const toolLines = new WeakMap<ToolCallState, NewEntry>();

function toolEntry(call: ToolCallState, key: string): NewEntry {
  const known = toolLines.get(call);
  if (known !== undefined && known.key === key) return known;
  // The shell tool reports a non-zero exit as a normal result for the model; a person sees a failure.
  const shell = call.status === 'succeeded' ? shellOutcome(call.name, call.output ?? '') : null;
  const failure = shell !== null && shellFailed(shell) ? { ending: shellEnding(shell), tail: shellOutputTail(shell) } : undefined;
  // What an applied change changed stays on screen, as Codex and Claude Code keep it.
  const diff = call.status === 'succeeded' ? appliedDiff(call.name, call.output ?? '').map((row) => visibleText(changeRowLine(row))) : [];
  const plan = callChecklist(call);
  const entry: NewEntry = {
    kind: 'tool',
    key,
    callId: call.callId,
    name: call.name,
    summary: oneLine(callSubject(call.name, call.arguments), 200),
    status: failure ? 'error' : TOOL_STATUS[call.status],
    started: call.started,
    durationMs: call.durationMs,
    output: call.output ?? '',
    note: toolNote(call),
    ...(failure ? { failure } : {}),
    ...(diff.length > 0 ? { diff } : {}),
    ...(plan === null ? {} : { plan }),
  };
  toolLines.set(call, entry);
  return entry;
}

function compactionText(view: CompactionView): string {
  const tokens = (value: number | null) => (value === null ? '?' : value.toLocaleString('en-US'));
  return `⇣ context compacted (${view.kind ?? '?'}, ${view.trigger ?? '?'}): ${tokens(view.tokensBefore)} → ${tokens(view.tokensAfter)} tokens${view.estimated ? ' (estimated)' : ''}`;
}

function noticeText(cause: NoticeCause): string {
  switch (cause.type) {
    case 'model_retry':
      return `retrying in ${(cause.delayMs / 1000).toFixed(1)}s (attempt ${cause.attempt + 1}): ${oneLine(cause.error.message, 160)}`;
    case 'stream_retry':
      return `retrying (stream interrupted) ${cause.attempt}/${cause.maxAttempts} in ${(cause.delayMs / 1000).toFixed(1)}s; the ${cause.discardedChars} characters it had shown are discarded: ${oneLine(cause.error.message, 160)}`;
    case 'warning':
      return `warning: ${oneLine(cause.message, 400)}`;
    case 'hook_ran':
      return `hook: ${hookRunText(cause)}`;
  }
}

/** The turn's entries as this screen shows them, in order, each under a key stable across events. */
function turnEntries(turn: TranscriptTurn, prefix: string, from: number): NewEntry[] {
  const entries: NewEntry[] = [];
  turn.entries.slice(from).forEach((entry: TranscriptEntry, offset) => {
    const key = `${prefix}${entry.key}`;
    // The fold adds to streaming text only while it is the last entry: once anything follows it
    // (the answer after the reasoning, a tool call), it is complete and can be printed.
    const followed = from + offset < turn.entries.length - 1;
    switch (entry.kind) {
      case 'assistant':
        entries.push({
          kind: 'assistant',
          key,
          text: entry.text,
          settled: entry.role !== 'streaming' || followed,
          ...(entry.role === 'partial' && turn.outcome.status === 'cancelled' ? { cancelled: true } : {}),
        });
        break;
      case 'reasoning':
        entries.push({ kind: 'reasoning', key, text: entry.text, settled: !entry.streaming || followed });
        break;
      case 'tools':
        for (const call of entry.calls) entries.push(toolEntry(call, `${prefix}call-${call.callId}`));
        break;
      case 'compaction':
        entries.push({ kind: 'notice', key, tone: 'info', text: compactionText(entry.compaction) });
        break;
      case 'notice':
        entries.push({ kind: 'notice', key, tone: entry.tone, text: noticeText(entry.cause) });
        break;
      case 'user':
        entries.push({ kind: 'user', key, text: entry.text });
        break;
    }
  });
  const outcome = turn.outcome;
  if (outcome.status === 'failed')
    entries.push({
      kind: 'notice',
      key: `${prefix}outcome`,
      tone: 'error',
      text: `run failed [${outcome.code}]: ${oneLine(outcome.message, 400)}`,
    });
  if (outcome.status === 'cancelled')
    entries.push({ kind: 'notice', key: `${prefix}outcome`, tone: 'warning', text: `cancelled: ${oneLine(outcome.reason, 200)}` });
  return entries;
}

/** Same kind, same fields (entries of one key always have the same kind and fields). */
function sameEntry(a: Entry, b: NewEntry): boolean {
  const shown = a as unknown as Record<string, unknown>;
  const next = b as unknown as Record<string, unknown>;
  for (const name in next) if (shown[name] !== next[name]) return false;
  return true;
}

/**
 * Brings the live entries of the run in line with its turn: changed ones are replaced where they
 * stand, new ones appended, dropped ones (a broken stream's text) removed. Printed ones stay.
 */
function show(state: TranscriptState, shownRun: ShownRun): TranscriptState {
  let run = shownRun;
  const entries = turnEntries(run.turn, run.prefix, run.stable).filter((entry) => !run.printed.has(entry.key!));
  for (const entry of entries) {
    const known = run.streamed.get(entry.key!);
    // A broken stream's answer starts again: what was printed of it stays above (its notice says
    // it was discarded), and the new text is shown whole below it.
    if (known !== undefined && entry.kind === 'assistant' && !entry.text.startsWith(known.printed))
      run = { ...run, streamed: new Map(run.streamed).set(entry.key!, { printed: '', blockStart: 0, parts: known.parts }) };
  }
  const wanted = entries.map((entry) => afterPrinted(entry, run.streamed.get(entry.key!)));
  const wantedKeys = new Set(wanted.map((entry) => entry.key));
  const mine = (entry: Entry) => entry.key?.startsWith(run.prefix) === true;
  let live = state.live.filter((entry) => !mine(entry) || wantedKeys.has(entry.key));
  let nextId = state.nextId;
  for (const entry of wanted) {
    const at = live.findIndex((shown) => shown.key === entry.key);
    if (at !== -1) {
      const shown = live[at]!;
      if (!sameEntry(shown, entry)) live = [...live.slice(0, at), { ...entry, id: shown.id } as Entry, ...live.slice(at + 1)];
    } else {
      live = [...live, { ...entry, id: nextId } as Entry];
      nextId += 1;
    }
  }
  return printFinished(flush({ ...state, live, nextId, run }));
}

/** An answer entry as shown below the part of it already printed. */
function afterPrinted(entry: NewEntry, streamed: StreamedAnswer | undefined): NewEntry {
  if (entry.kind !== 'assistant' || streamed === undefined || !entry.text.startsWith(streamed.printed)) return entry;
  const inCode = streamed.blockStart < streamed.printed.length;
  return {
    ...entry,
    text: entry.text.slice(streamed.printed.length),
    continues: inCode ? 'code' : 'block',
    ...(inCode ? { codeBefore: streamed.printed.slice(streamed.blockStart) } : {}),
  };
}

/**
 * Prints the finished start of the answer streaming at the top of the live entries (everything
 * before it is printed): that part goes to `done` as one more part of the answer, and the live
 * entry keeps the rest.
 */
function printFinished(state: TranscriptState): TranscriptState {
  const run = state.run;
  const entry = state.live[0];
  if (run === null || entry === undefined || entry.kind !== 'assistant' || entry.settled || entry.key === undefined) return state;
  if (!entry.key.startsWith(run.prefix)) return state;
  const known = run.streamed.get(entry.key);
  // The full source: the live entry holds what follows the printed part.
  const source = known === undefined ? entry.text : known.printed + entry.text;
  const blockStart = known?.blockStart ?? 0;
  const printedLength = known?.printed.length ?? 0;
  const finished = finishedMarkdown(source.slice(blockStart));
  const end = blockStart + finished.end;
  if (end <= printedLength) return state;
  const parts = known?.parts ?? 0;
  const part: Entry = {
    ...afterPrinted({ kind: 'assistant', key: `${entry.key}#${parts}`, text: source, settled: true }, known),
    ...(finished.codeStart !== null ? { openCode: true } : {}),
    text: source.slice(printedLength, end),
    id: state.nextId,
  } as Entry;
  const next: StreamedAnswer = {
    printed: source.slice(0, end),
    blockStart: finished.codeStart === null ? end : blockStart + finished.codeStart,
    parts: parts + 1,
  };
  const streamed = new Map(run.streamed).set(entry.key, next);
  const rest = afterPrinted({ ...entry, text: source }, next) as Entry;
  return {
    ...state,
    done: [...state.done, part],
    live: [{ ...rest, id: entry.id }, ...state.live.slice(1)],
    nextId: state.nextId + 1,
    run: { ...run, streamed },
  };
}

/** Where the entries still to map start: past those printed that can no longer change. */
function stablePrefix(turn: TranscriptTurn, run: ShownRun): number {
  let stable = Math.min(run.stable, turn.entries.length);
  // Only streaming entries ever leave the turn (a broken stream's), and none of them is counted.
  while (stable < turn.entries.length - 1) {
    const entry = turn.entries[stable]!;
    if ((entry.kind === 'assistant' && entry.role === 'streaming') || (entry.kind === 'reasoning' && entry.streaming)) break;
    const keys = entry.kind === 'tools' ? entry.calls.map((call) => `${run.prefix}call-${call.callId}`) : [`${run.prefix}${entry.key}`];
    if (!keys.every((key) => run.printed.has(key))) break;
    stable += 1;
  }
  return stable;
}

/** The next state after one run event: folded by the shared reducer, then shown. */
export function reduceRunEvent(state: TranscriptState, event: RunEvent): TranscriptState {
  let run = state.run;
  let runs = state.runs;
  if (run === null || event.type === 'run_started') {
    runs += 1;
    run = { prefix: `run${runs}:`, turn: startLiveTurn('', null), printed: new Set(), stable: 0, streamed: new Map() };
  }
  const turn = reduceTurnAt(run.turn, event, null);
  if (turn === run.turn && state.run === run) return state;
  const shown = show({ ...state, runs }, { ...run, turn, stable: stablePrefix(turn, run) });
  // The run is over: what it showed is final, and the next run starts afresh.
  const ended = event.type === 'run_succeeded' || event.type === 'run_failed' || event.type === 'run_cancelled';
  return ended ? { ...shown, run: null } : shown;
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
    case 'cancelled':
      return entry.started ? `cancelled${duration}` : 'not run (cancelled)';
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
