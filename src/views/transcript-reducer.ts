// One reducer for the transcript, shared by the web workbench and the interactive terminal (each
// keeps only an adapter to its own rendering state). Live run events and replayed session records are both turned
// into facts (records by `factsOfRecord`: most are run events already — audit records carry them
// verbatim), and every fact goes through `reduceTurn`. So a turn built while it runs and the same
// turn read back from its file agree key for key, and React keeps the DOM (and what the user
// expanded) when the records replace the live events.

import type { RunEvent } from '../agent/index.js';
import type { SessionRecord } from '../sessions/index.js';
import type {
  AssistantRole,
  CompactionView,
  PermissionView,
  RunningPhase,
  ToolCallState,
  TranscriptEntry,
  TranscriptTurn,
  TurnOutcome,
} from './transcript-types.js';
import { hookRunStopped, hookRunText } from './hook-run-text.js';

type EventOf<T extends RunEvent['type']> = Extract<RunEvent, { type: T }>;

/** What the transcript learns, one step at a time: a run event, or what a record says. */
export type TranscriptFact =
  | Exclude<RunEvent, { type: 'tool_requested' | 'tool_finished' }>
  /** From a record the round is not known. */
  | (Omit<EventOf<'tool_requested'>, 'round'> & { round: number | null })
  /** The audit copy has no output (the output item has it). */
  | (Omit<EventOf<'tool_finished'>, 'output'> & { output?: string })
  | { type: 'turn_opened'; turn: number; runId: string; prompt: string }
  | { type: 'message_committed'; role: 'working' | 'final'; text: string }
  | { type: 'user_message'; text: string }
  | { type: 'reasoning_committed'; text: string }
  | { type: 'output_committed'; callId: string; output: string; isError: boolean; repaired: boolean }
  | { type: 'summary_committed'; compactionId: string; summary: string }
  /** The record of a compaction: the event's facts, read leniently (older files may lack some). */
  | { type: 'compaction_recorded'; fields: CompactionFields };

/** The payload of a compaction, from a record or an event; read leniently, it may grow fields. */
export type CompactionFields = { [K in keyof CompactionView]?: unknown };

function numberField(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function stringField(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

export function compactionView(payload: CompactionFields): CompactionView {
  return {
    compactionId: stringField(payload.compactionId) ?? 'compaction',
    trigger: stringField(payload.trigger),
    phase: stringField(payload.phase),
    kind: stringField(payload.kind),
    tokensBefore: numberField(payload.tokensBefore),
    tokensAfter: numberField(payload.tokensAfter),
    itemsRemoved: numberField(payload.itemsRemoved),
    itemsKept: numberField(payload.itemsKept),
    reason: stringField(payload.reason) ?? '',
    summary: stringField(payload.summary) ?? '',
    estimated: payload.estimated === true,
  };
}

export function newTurn(turn: number | null, runId: string | null, prompt: string, outcome: TurnOutcome): TranscriptTurn {
  // Turn numbers are unique within a session and known before the run starts, so live and
  // recorded copies of a turn get the same key.
  return {
    key: turn !== null ? `turn-${turn}` : (runId ?? 'live'),
    turn,
    runId,
    prompt,
    startedAt: null,
    entries: [],
    outcome,
    stage: null,
    callsOpen: false,
  };
}

export function startLiveTurn(prompt: string, turn: number | null, runId: string | null = null, at: string | null = null): TranscriptTurn {
  return { ...newTurn(turn, runId, prompt, { status: 'running', phase: 'waiting' }), startedAt: at };
}

function stamp(at: string | null): { at?: string } {
  return at === null ? {} : { at };
}

function countOf(entries: TranscriptEntry[], kind: TranscriptEntry['kind']): number {
  return entries.filter((entry) => entry.kind === kind).length;
}

function newCall(callId: string, name: string, args: string): ToolCallState {
  return {
    callId,
    name,
    arguments: args,
    status: 'requested',
    started: false,
    output: null,
    isError: false,
    durationMs: null,
    permission: null,
    approval: null,
  };
}

/** Replaces the call with this id wherever it is; returns the same array when there is none. */
function updateCall(entries: TranscriptEntry[], callId: string, update: (call: ToolCallState) => ToolCallState): TranscriptEntry[] {
  let changed = false;
  const next = entries.map((entry) => {
    if (entry.kind !== 'tools' || !entry.calls.some((call) => call.callId === callId)) return entry;
    changed = true;
    return { ...entry, calls: entry.calls.map((call) => (call.callId === callId ? update(call) : call)) };
  });
  return changed ? next : entries;
}

function mergeCompaction(known: CompactionView, more: CompactionView): CompactionView {
  return {
    compactionId: known.compactionId,
    trigger: known.trigger ?? more.trigger,
    phase: known.phase ?? more.phase,
    kind: known.kind ?? more.kind,
    tokensBefore: known.tokensBefore ?? more.tokensBefore,
    tokensAfter: known.tokensAfter ?? more.tokensAfter,
    itemsRemoved: known.itemsRemoved ?? more.itemsRemoved,
    itemsKept: known.itemsKept ?? more.itemsKept,
    reason: known.reason || more.reason,
    summary: known.summary || more.summary,
    estimated: known.estimated || more.estimated,
  };
}

function addCompaction(entries: TranscriptEntry[], view: CompactionView): TranscriptEntry[] {
  const key = `compaction-${view.compactionId}`;
  if (!entries.some((entry) => entry.key === key)) return [...entries, { kind: 'compaction', key, compaction: view }];
  // The summary item and the compaction record describe the same compaction: merge them.
  return entries.map((entry) =>
    entry.key === key && entry.kind === 'compaction' ? { ...entry, compaction: mergeCompaction(entry.compaction, view) } : entry,
  );
}

function withPhase(turn: TranscriptTurn, phase: RunningPhase): TurnOutcome {
  return turn.outcome.status === 'running' ? { status: 'running', phase } : turn.outcome;
}

/** Streaming text becomes what the round made of it; `partial` when the round never committed. */
function finishStreaming(entries: TranscriptEntry[], role: Exclude<AssistantRole, 'streaming'>): TranscriptEntry[] {
  return entries.map((entry) => {
    if (entry.kind === 'assistant' && entry.role === 'streaming') return { ...entry, role };
    if (entry.kind === 'reasoning' && entry.streaming) return { ...entry, streaming: false };
    return entry;
  });
}

/** Calls that never got an output once the turn is over did not run to the end. */
function settleCalls(entries: TranscriptEntry[]): TranscriptEntry[] {
  const open = (call: ToolCallState) => call.output === null && call.status !== 'denied';
  return entries.map((entry) =>
    entry.kind === 'tools' && entry.calls.some(open)
      ? { ...entry, calls: entry.calls.map((call) => (open(call) ? { ...call, status: 'cancelled' } : call)) }
      : entry,
  );
}

function endTurn(turn: TranscriptTurn, outcome: TurnOutcome, role: 'final' | 'partial', at: string | null, answer = ''): TranscriptTurn {
  let entries = finishStreaming(turn.entries, role);
  if (role === 'final' && answer.trim() !== '' && !entries.some((entry) => entry.kind === 'assistant' && entry.role === 'final')) {
    entries = [...entries, { kind: 'assistant', key: `text-${countOf(entries, 'assistant')}`, text: answer, role: 'final', ...stamp(at) }];
  }
  return { ...turn, outcome, stage: null, callsOpen: false, entries: outcome.status === 'succeeded' ? entries : settleCalls(entries) };
}

function appendText(turn: TranscriptTurn, kind: 'assistant' | 'reasoning', delta: string, at: string | null): TranscriptTurn {
  if (turn.stage === 'compaction' || delta === '') return turn;
  const last = turn.entries[turn.entries.length - 1];
  let entries: TranscriptEntry[];
  if (kind === 'assistant') {
    entries =
      last !== undefined && last.kind === 'assistant' && last.role === 'streaming'
        ? [...turn.entries.slice(0, -1), { ...last, text: last.text + delta }]
        : [
            ...turn.entries,
            { kind: 'assistant', key: `text-${countOf(turn.entries, 'assistant')}`, text: delta, role: 'streaming', ...stamp(at) },
          ];
  } else {
    entries =
      last !== undefined && last.kind === 'reasoning' && last.streaming
        ? [...turn.entries.slice(0, -1), { ...last, text: last.text + delta }]
        : [...turn.entries, { kind: 'reasoning', key: `reasoning-${countOf(turn.entries, 'reasoning')}`, text: delta, streaming: true }];
  }
  return { ...turn, entries, callsOpen: false, outcome: withPhase(turn, 'streaming') };
}

function outputStatus(call: ToolCallState, output: string, isError: boolean, repaired: boolean): ToolCallState['status'] {
  if (call.status === 'denied') return 'denied';
  if (repaired || /^Error \[CANCELLED\]/.test(output)) return 'cancelled';
  return isError ? 'failed' : 'succeeded';
}

function applyPermission(call: ToolCallState, permission: PermissionView): ToolCallState {
  return { ...call, permission, status: permission.decision === 'deny' ? 'denied' : call.status };
}

/** The next state of a turn after one fact. Pure: returns a new object when anything changed. */
export function reduceTurn(turn: TranscriptTurn, fact: TranscriptFact): TranscriptTurn {
  return reduceTurnAt(turn, fact, null);
}

/** `reduceTurn` with the time the fact happened (a record's `ts`, or when a live event arrived). */
export function reduceTurnAt(turn: TranscriptTurn, fact: TranscriptFact, at: string | null): TranscriptTurn {
  switch (fact.type) {
    case 'run_started':
      return { ...turn, runId: fact.runId };
    case 'model_requested':
      return { ...turn, stage: fact.stage, outcome: withPhase(turn, fact.stage === 'compaction' ? 'compacting' : 'waiting') };
    case 'assistant_delta':
      return appendText(turn, 'assistant', fact.delta, at);
    case 'reasoning_delta':
      return appendText(turn, 'reasoning', fact.delta, at);
    case 'model_completed': {
      if (fact.stage === 'compaction') return turn;
      const tools = fact.finishReason === 'tool_calls';
      return {
        ...turn,
        entries: finishStreaming(turn.entries, tools ? 'working' : 'final'),
        outcome: withPhase(turn, tools ? 'tools' : 'waiting'),
      };
    }
    case 'model_retry': {
      const text = `The model call failed (${fact.error.code}: ${fact.error.message}); retrying in ${(fact.delayMs / 1000).toFixed(1)} s.`;
      const notice: TranscriptEntry = {
        kind: 'notice',
        key: `retry-${fact.round}-${fact.attempt}`,
        tone: 'warning',
        title: `Retry ${fact.attempt}`,
        text,
        cause: fact,
      };
      return { ...turn, entries: [...turn.entries, notice] };
    }
    case 'stream_retry': {
      // The broken attempt's streamed text is void: it leaves the transcript, a notice says so.
      const entries = turn.entries.filter(
        (entry) => !((entry.kind === 'assistant' && entry.role === 'streaming') || (entry.kind === 'reasoning' && entry.streaming)),
      );
      const notice: TranscriptEntry = {
        kind: 'notice',
        key: `stream-retry-${fact.round}-${fact.attempt}`,
        tone: 'warning',
        title: `Retrying (stream interrupted) ${fact.attempt}/${fact.maxAttempts}`,
        text: `The stream broke after it had started (${fact.error.message}); the ${fact.discardedChars} characters it had shown are discarded and the round is asked again in ${(fact.delayMs / 1000).toFixed(1)} s.`,
        cause: fact,
      };
      return { ...turn, entries: [...entries, notice], outcome: withPhase(turn, 'waiting') };
    }
    case 'message_committed': {
      if (fact.text.trim() === '') return { ...turn, callsOpen: false };
      const entry: TranscriptEntry = {
        kind: 'assistant',
        key: `text-${countOf(turn.entries, 'assistant')}`,
        text: fact.text,
        role: fact.role,
        ...stamp(at),
      };
      return { ...turn, callsOpen: false, entries: [...turn.entries, entry] };
    }
    case 'user_message':
      if (turn.prompt === '') return { ...turn, prompt: fact.text, startedAt: turn.startedAt ?? at };
      if (fact.text === turn.prompt) return turn;
      return { ...turn, entries: [...turn.entries, { kind: 'user', key: `user-${turn.entries.length}`, text: fact.text, ...stamp(at) }] };
    case 'reasoning_committed': {
      // Live, one entry collects a round's reasoning deltas; the records may hold several items.
      const last = turn.entries[turn.entries.length - 1];
      const entries: TranscriptEntry[] =
        last !== undefined && last.kind === 'reasoning'
          ? [...turn.entries.slice(0, -1), { ...last, text: [last.text, fact.text].filter(Boolean).join('\n\n') }]
          : [
              ...turn.entries,
              { kind: 'reasoning', key: `reasoning-${countOf(turn.entries, 'reasoning')}`, text: fact.text, streaming: false },
            ];
      return { ...turn, callsOpen: false, entries };
    }
    case 'tool_requested': {
      const last = turn.entries[turn.entries.length - 1];
      const join = last !== undefined && last.kind === 'tools' && (fact.round !== null ? last.round === fact.round : turn.callsOpen);
      const call = newCall(fact.callId, fact.name, fact.arguments);
      const entries: TranscriptEntry[] =
        join && last.kind === 'tools'
          ? [...turn.entries.slice(0, -1), { ...last, calls: [...last.calls, call] }]
          : [...turn.entries, { kind: 'tools', key: `tools-${fact.callId}`, round: fact.round, calls: [call] }];
      return { ...turn, entries, callsOpen: true };
    }
    case 'tool_permission_decided':
      return { ...turn, entries: updateCall(turn.entries, fact.callId, (call) => applyPermission(call, fact)) };
    case 'approval_requested':
      return {
        ...turn,
        outcome: withPhase(turn, 'approval'),
        entries: updateCall(turn.entries, fact.callId, (call) => ({
          ...call,
          // A recorded request may already have its output (the records of a finished turn).
          status: call.output === null && call.status !== 'denied' ? 'awaiting_approval' : call.status,
          approval: { summary: fact.summary, reason: fact.reason, resolution: null },
        })),
      };
    case 'approval_resolved':
      return {
        ...turn,
        outcome: withPhase(turn, 'tools'),
        entries: updateCall(turn.entries, fact.callId, (call) => ({
          ...call,
          status: fact.decision === 'deny' ? 'denied' : call.status === 'awaiting_approval' ? 'requested' : call.status,
          approval: {
            summary: call.approval?.summary ?? '',
            reason: call.approval?.reason ?? '',
            resolution: { decision: fact.decision, by: fact.by, message: fact.message },
          },
        })),
      };
    case 'tool_started':
      return {
        ...turn,
        outcome: withPhase(turn, 'tools'),
        entries: updateCall(turn.entries, fact.callId, (call) => ({
          ...call,
          started: true,
          status: call.output === null ? 'running' : call.status,
        })),
      };
    case 'tool_finished':
      return {
        ...turn,
        entries: updateCall(turn.entries, fact.callId, (call) => {
          const output = fact.output ?? call.output;
          const settled = output === null ? call.status : outputStatus(call, output, fact.isError, false);
          return {
            ...call,
            output,
            isError: fact.isError,
            durationMs: fact.durationMs,
            status: settled,
            started: call.started || call.status !== 'denied',
          };
        }),
      };
    case 'output_committed':
      return {
        ...turn,
        callsOpen: false,
        entries: updateCall(turn.entries, fact.callId, (call) => ({
          ...call,
          output: fact.output,
          isError: fact.isError,
          status: outputStatus(call, fact.output, fact.isError, fact.repaired),
        })),
      };
    case 'summary_committed':
      return { ...turn, callsOpen: false, entries: addCompaction(turn.entries, compactionView(fact)) };
    case 'history_compacted':
    case 'compaction_recorded': {
      const view = compactionView(fact.type === 'history_compacted' ? fact : fact.fields);
      return { ...turn, stage: null, callsOpen: false, entries: addCompaction(turn.entries, view) };
    }
    case 'warning': {
      const key = `notice-${turn.entries.filter((entry) => entry.kind === 'notice' && entry.key.startsWith('notice-')).length}`;
      return {
        ...turn,
        entries: [...turn.entries, { kind: 'notice', key, tone: 'warning', title: fact.code, text: fact.message, cause: fact }],
      };
    }
    case 'hook_ran': {
      // Keyed apart from warnings' notices, so a turn's live and recorded copies agree key for key.
      const key = `hook-${turn.entries.filter((entry) => entry.kind === 'notice' && entry.key.startsWith('hook-')).length}`;
      const tone = hookRunStopped(fact) ? 'warning' : 'info';
      return {
        ...turn,
        entries: [...turn.entries, { kind: 'notice', key, tone, title: `${fact.event} hook`, text: hookRunText(fact), cause: fact }],
      };
    }
    case 'run_succeeded':
      return endTurn(
        turn,
        { status: 'succeeded', rounds: fact.rounds, totalTokens: fact.usage.total.totalTokens },
        'final',
        at,
        fact.answer,
      );
    case 'run_failed':
      return endTurn(turn, { status: 'failed', code: fact.error.code, message: fact.error.message }, 'partial', at);
    case 'run_cancelled':
      return endTurn(turn, { status: 'cancelled', reason: fact.reason }, 'partial', at);
    case 'turn_opened':
      return { ...turn, turn: fact.turn, runId: fact.runId, prompt: fact.prompt, startedAt: at ?? turn.startedAt };
  }
}

/** The next state of a live turn after one run event (`at`: when it arrived). */
export function applyRunEvent(turn: TranscriptTurn, event: RunEvent, at: string | null = null): TranscriptTurn {
  return reduceTurnAt(turn, event, at);
}

/** What a record says, as facts for `reduceTurn` (none for records the transcript does not show). */
export function factsOfRecord(record: SessionRecord): TranscriptFact[] {
  switch (record.type) {
    case 'turn_started':
      return [{ type: 'turn_opened', turn: record.turn, runId: record.runId, prompt: record.prompt }];
    case 'response_item': {
      const item = record.item;
      if (item.type === 'message') {
        if (item.role !== 'assistant') return item.role === 'user' ? [{ type: 'user_message', text: item.content }] : [];
        return [{ type: 'message_committed', role: item.runtimeRole === 'final_response' ? 'final' : 'working', text: item.content }];
      }
      if (item.type === 'reasoning') return [{ type: 'reasoning_committed', text: item.text }];
      if (item.type === 'function_call')
        return [{ type: 'tool_requested', round: null, callId: item.callId, name: item.name, arguments: item.arguments }];
      if (item.type === 'function_call_output') {
        return [
          { type: 'output_committed', callId: item.callId, output: item.output, isError: item.isError, repaired: record.repaired === true },
        ];
      }
      if (item.type === 'compaction_summary')
        return [{ type: 'summary_committed', compactionId: item.compactionId, summary: item.summary }];
      return [];
    }
    case 'audit':
      return [record.event];
    case 'compaction': {
      const { type: _type, ts: _ts, turn: _turn, ...fields } = record;
      return [{ type: 'compaction_recorded', fields }];
    }
    case 'warning':
      return [{ type: 'warning', code: record.code, message: record.message }];
    case 'turn_completed':
      return [{ type: 'run_succeeded', answer: '', usage: record.usage, rounds: record.rounds }];
    // The text a round had streamed when the turn ended uncommitted: shown as partial, not sent.
    case 'turn_failed':
      return [
        ...partialTextFacts(record.partialText),
        { type: 'run_failed', error: record.error, usage: record.usage, rounds: record.rounds },
      ];
    case 'turn_cancelled':
      return [
        ...partialTextFacts(record.partialText),
        { type: 'run_cancelled', reason: record.reason, usage: record.usage, rounds: record.rounds },
      ];
    default:
      return [];
  }
}

function partialTextFacts(text: string | undefined): TranscriptFact[] {
  return text === undefined || text === ''
    ? []
    : [
        { type: 'model_requested', round: 0, stage: 'turn', messageCount: 0, toolCount: 0 },
        { type: 'assistant_delta', round: 0, delta: text },
      ];
}
