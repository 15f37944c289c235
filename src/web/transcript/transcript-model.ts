// The transcript as data: turns of entries (assistant text, tool call groups, compactions,
// notices), built either from a session's records or, live, from run events. Both builders give
// the same keys for the same things, so when a finished run's records replace its live events
// React keeps the DOM (and what the user expanded) in place.

import type { RunEvent } from '../../agent/run-events.js';
import type { SessionRecord } from '../../sessions/session-records.js';

export type ToolCallStatus = 'requested' | 'awaiting_approval' | 'running' | 'succeeded' | 'failed' | 'denied' | 'cancelled';

export interface PermissionView {
  decision: 'allow' | 'ask' | 'deny';
  reason: string;
  rule: string;
}

export interface ApprovalView {
  summary: string;
  reason: string;
  resolution: { decision: 'approve' | 'approve_session' | 'deny'; by: string; message: string | null } | null;
}

export interface ToolCallState {
  callId: string;
  name: string;
  arguments: string;
  status: ToolCallStatus;
  output: string | null;
  isError: boolean;
  durationMs: number | null;
  permission: PermissionView | null;
  approval: ApprovalView | null;
}

export interface CompactionView {
  compactionId: string;
  trigger: string | null;
  phase: string | null;
  kind: string | null;
  tokensBefore: number | null;
  tokensAfter: number | null;
  itemsRemoved: number | null;
  itemsKept: number | null;
  reason: string;
  summary: string;
  estimated: boolean;
}

export type TranscriptEntry =
  | { kind: 'assistant'; key: string; text: string; role: 'working' | 'final' | 'streaming' }
  /** What the model showed of its reasoning (empty when the provider keeps it hidden), shown collapsed. */
  | { kind: 'reasoning'; key: string; text: string; streaming: boolean }
  /** `round` is known live; records do not say, so there it is null. */
  | { kind: 'tools'; key: string; round: number | null; calls: ToolCallState[] }
  | { kind: 'compaction'; key: string; compaction: CompactionView }
  | { kind: 'notice'; key: string; tone: 'info' | 'warning'; title: string; text: string }
  | { kind: 'user'; key: string; text: string };

export type RunningPhase = 'waiting' | 'streaming' | 'tools' | 'approval' | 'compacting';

export type TurnOutcome =
  | { status: 'running'; phase: RunningPhase }
  | { status: 'succeeded'; rounds: number | null; totalTokens: number | null }
  | { status: 'failed'; code: string; message: string }
  | { status: 'cancelled'; reason: string }
  /** No end record: the run was interrupted, or is still going in another process. */
  | { status: 'incomplete' };

export interface TranscriptTurn {
  key: string;
  turn: number | null;
  runId: string | null;
  prompt: string;
  entries: TranscriptEntry[];
  outcome: TurnOutcome;
  /** What the current model call is for; deltas of a compaction call are not the answer. */
  stage: 'turn' | 'compaction' | null;
}

type Fields = Record<string, unknown>;

function numberField(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function stringField(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/** Reads a compaction payload leniently: records and events carry it, and it may grow fields. */
export function compactionView(payload: Fields): CompactionView {
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

function newTurn(turn: number | null, runId: string | null, prompt: string, outcome: TurnOutcome): TranscriptTurn {
  // Turn numbers are unique within a session and known before the run starts, so live and
  // recorded copies of a turn get the same key.
  return { key: turn !== null ? `turn-${turn}` : (runId ?? 'live'), turn, runId, prompt, entries: [], outcome, stage: null };
}

function assistantCount(entries: TranscriptEntry[]): number {
  return entries.filter((entry) => entry.kind === 'assistant').length;
}

function reasoningKey(entries: TranscriptEntry[]): string {
  return `reasoning-${entries.filter((entry) => entry.kind === 'reasoning').length}`;
}

/** Warnings are numbered per turn the same way live and from records. */
function noticeKey(entries: TranscriptEntry[]): string {
  return `notice-${entries.filter((entry) => entry.kind === 'notice' && entry.key.startsWith('notice-')).length}`;
}

function newCall(callId: string, name: string, args: string): ToolCallState {
  return { callId, name, arguments: args, status: 'requested', output: null, isError: false, durationMs: null, permission: null, approval: null };
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

/** Adds a call to the trailing tool group, or starts a group: a round's calls show together. */
function addCall(entries: TranscriptEntry[], call: ToolCallState, startGroup: boolean, round: number | null): TranscriptEntry[] {
  const last = entries[entries.length - 1];
  if (!startGroup && last !== undefined && last.kind === 'tools') {
    return [...entries.slice(0, -1), { ...last, calls: [...last.calls, call] }];
  }
  return [...entries, { kind: 'tools', key: `tools-${call.callId}`, round, calls: [call] }];
}

function addCompaction(entries: TranscriptEntry[], view: CompactionView): TranscriptEntry[] {
  const key = `compaction-${view.compactionId}`;
  const existing = entries.find((entry) => entry.key === key);
  if (existing === undefined) return [...entries, { kind: 'compaction', key, compaction: view }];
  // The summary item and the compaction record describe the same compaction: merge them, each
  // field from whichever knows it.
  return entries.map((entry) => (entry.key === key && entry.kind === 'compaction' ? { ...entry, compaction: mergeCompaction(entry.compaction, view) } : entry));
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

function applyPermission(call: ToolCallState, permission: PermissionView): ToolCallState {
  return { ...call, permission, status: permission.decision === 'deny' ? 'denied' : call.status };
}

// ---------------------------------------------------------------------------------------------
// From records.

export function transcriptFromRecords(records: SessionRecord[]): TranscriptTurn[] {
  const turns: TranscriptTurn[] = [];
  let current: TranscriptTurn | null = null;
  // Whether the next function_call starts a new round's group (after outputs or text).
  let groupOpen = false;

  const ensureTurn = (turnNumber: number | null): TranscriptTurn => {
    if (current === null || (turnNumber !== null && current.turn !== turnNumber)) {
      current = newTurn(turnNumber, null, '', { status: 'incomplete' });
      turns.push(current);
      groupOpen = false;
    }
    return current;
  };
  const update = (turn: TranscriptTurn, entries: TranscriptEntry[]) => {
    turn.entries = entries;
  };

  for (const record of records) {
    switch (record.type) {
      case 'turn_started': {
        current = newTurn(record.turn, record.runId, record.prompt, { status: 'incomplete' });
        turns.push(current);
        groupOpen = false;
        break;
      }
      case 'response_item': {
        const turn = ensureTurn(record.turn);
        const item = record.item;
        if (item.type === 'message') {
          if (item.role !== 'assistant') {
            if (item.role === 'system') break;
            if (turn.prompt === '') turn.prompt = item.content;
            else if (item.content !== turn.prompt) update(turn, [...turn.entries, { kind: 'user', key: `user-${turn.entries.length}`, text: item.content }]);
            break;
          }
          groupOpen = false;
          if (item.content.trim() === '') break;
          const role = item.runtimeRole === 'final_response' ? 'final' : 'working';
          update(turn, [...turn.entries, { kind: 'assistant', key: `text-${assistantCount(turn.entries)}`, text: item.content, role }]);
        } else if (item.type === 'reasoning') {
          groupOpen = false;
          // Live, one entry collects a round's reasoning deltas; the records may hold several items.
          const last = turn.entries[turn.entries.length - 1];
          if (last !== undefined && last.kind === 'reasoning') {
            update(turn, [...turn.entries.slice(0, -1), { ...last, text: [last.text, item.text].filter(Boolean).join('\n\n') }]);
          } else {
            update(turn, [...turn.entries, { kind: 'reasoning', key: reasoningKey(turn.entries), text: item.text, streaming: false }]);
          }
        } else if (item.type === 'function_call') {
          update(turn, addCall(turn.entries, newCall(item.callId, item.name, item.arguments), !groupOpen, null));
          groupOpen = true;
        } else if (item.type === 'function_call_output') {
          groupOpen = false;
          const cancelled = record.repaired === true || /^Error \[CANCELLED\]/.test(item.output);
          update(
            turn,
            updateCall(turn.entries, item.callId, (call) => ({
              ...call,
              output: item.output,
              isError: item.isError,
              status: call.status === 'denied' ? 'denied' : cancelled ? 'cancelled' : item.isError ? 'failed' : 'succeeded',
            })),
          );
        } else if (item.type === 'compaction_summary') {
          groupOpen = false;
          update(turn, addCompaction(turn.entries, compactionView({ compactionId: item.compactionId, summary: item.summary })));
        }
        break;
      }
      case 'audit': {
        const turn = ensureTurn(record.turn);
        const event = record.event;
        if (event.type === 'tool_permission_decided') {
          update(turn, updateCall(turn.entries, event.callId, (call) => applyPermission(call, event)));
        } else if (event.type === 'approval_requested') {
          update(turn, updateCall(turn.entries, event.callId, (call) => ({ ...call, approval: { summary: event.summary, reason: event.reason, resolution: null } })));
        } else if (event.type === 'approval_resolved') {
          update(
            turn,
            updateCall(turn.entries, event.callId, (call) => ({
              ...call,
              status: event.decision === 'deny' ? 'denied' : call.status,
              approval: {
                summary: call.approval?.summary ?? '',
                reason: call.approval?.reason ?? '',
                resolution: { decision: event.decision, by: event.by, message: event.message },
              },
            })),
          );
        } else if (event.type === 'tool_finished') {
          update(turn, updateCall(turn.entries, event.callId, (call) => ({ ...call, durationMs: event.durationMs })));
        }
        break;
      }
      case 'compaction': {
        const turn = ensureTurn(record.turn);
        groupOpen = false;
        update(turn, addCompaction(turn.entries, compactionView(record as unknown as Fields)));
        break;
      }
      case 'warning': {
        const turn = record.turn === null ? current : ensureTurn(record.turn);
        if (turn === null) break;
        update(turn, [...turn.entries, { kind: 'notice', key: noticeKey(turn.entries), tone: 'warning', title: record.code, text: record.message }]);
        break;
      }
      case 'turn_completed': {
        const turn = ensureTurn(record.turn);
        turn.runId ??= record.runId;
        turn.outcome = { status: 'succeeded', rounds: record.rounds, totalTokens: record.usage.total.totalTokens };
        break;
      }
      case 'turn_failed': {
        const turn = ensureTurn(record.turn);
        turn.outcome = { status: 'failed', code: record.error.code, message: record.error.message };
        break;
      }
      case 'turn_cancelled': {
        const turn = ensureTurn(record.turn);
        turn.outcome = { status: 'cancelled', reason: record.reason };
        break;
      }
      default:
        break;
    }
  }
  for (const turn of turns) {
    if (turn.outcome.status !== 'succeeded') settleCalls(turn);
  }
  return turns;
}

/** Calls that never got an output once the turn is over did not run to the end. */
function settleCalls(turn: TranscriptTurn): void {
  turn.entries = turn.entries.map((entry) =>
    entry.kind === 'tools' && entry.calls.some((call) => call.output === null && call.status !== 'denied')
      ? { ...entry, calls: entry.calls.map((call) => (call.output === null && call.status !== 'denied' ? { ...call, status: 'cancelled' } : call)) }
      : entry,
  );
}

// ---------------------------------------------------------------------------------------------
// From live events.

export function startLiveTurn(prompt: string, turn: number | null, runId: string | null = null): TranscriptTurn {
  return newTurn(turn, runId, prompt, { status: 'running', phase: 'waiting' });
}

function withPhase(turn: TranscriptTurn, phase: RunningPhase): TurnOutcome {
  return turn.outcome.status === 'running' ? { status: 'running', phase } : turn.outcome;
}

function finishStreaming(entries: TranscriptEntry[], role: 'working' | 'final'): TranscriptEntry[] {
  return entries.map((entry) => {
    if (entry.kind === 'assistant' && entry.role === 'streaming') return { ...entry, role };
    if (entry.kind === 'reasoning' && entry.streaming) return { ...entry, streaming: false };
    return entry;
  });
}

function endTurn(turn: TranscriptTurn, outcome: TurnOutcome): TranscriptTurn {
  const ended: TranscriptTurn = { ...turn, outcome, stage: null, entries: finishStreaming(turn.entries, 'working') };
  settleCalls(ended);
  return ended;
}

/** The next state of a live turn after one event. Pure: returns a new object when anything changed. */
export function applyRunEvent(turn: TranscriptTurn, event: RunEvent): TranscriptTurn {
  switch (event.type) {
    case 'run_started':
      return { ...turn, runId: event.runId };
    case 'model_requested':
      return { ...turn, stage: event.stage, outcome: withPhase(turn, event.stage === 'compaction' ? 'compacting' : 'waiting') };
    case 'assistant_delta': {
      if (turn.stage === 'compaction' || event.delta === '') return turn;
      const last = turn.entries[turn.entries.length - 1];
      const entries: TranscriptEntry[] =
        last !== undefined && last.kind === 'assistant' && last.role === 'streaming'
          ? [...turn.entries.slice(0, -1), { ...last, text: last.text + event.delta }]
          : [...turn.entries, { kind: 'assistant', key: `text-${assistantCount(turn.entries)}`, text: event.delta, role: 'streaming' }];
      return { ...turn, entries, outcome: withPhase(turn, 'streaming') };
    }
    case 'reasoning_delta': {
      if (turn.stage === 'compaction' || event.delta === '') return turn;
      const last = turn.entries[turn.entries.length - 1];
      const entries: TranscriptEntry[] =
        last !== undefined && last.kind === 'reasoning' && last.streaming
          ? [...turn.entries.slice(0, -1), { ...last, text: last.text + event.delta }]
          : [...turn.entries, { kind: 'reasoning', key: reasoningKey(turn.entries), text: event.delta, streaming: true }];
      return { ...turn, entries, outcome: withPhase(turn, 'streaming') };
    }
    case 'model_completed': {
      if (event.stage === 'compaction') return turn;
      const role = event.finishReason === 'tool_calls' ? 'working' : 'final';
      return { ...turn, entries: finishStreaming(turn.entries, role), outcome: withPhase(turn, event.finishReason === 'tool_calls' ? 'tools' : 'waiting') };
    }
    case 'model_retry':
      return {
        ...turn,
        entries: [
          ...turn.entries,
          {
            kind: 'notice',
            key: `retry-${event.round}-${event.attempt}`,
            tone: 'warning',
            title: `Retry ${event.attempt}`,
            text: `The model call failed (${event.error.code}: ${event.error.message}); retrying in ${(event.delayMs / 1000).toFixed(1)} s.`,
          },
        ],
      };
    case 'tool_requested': {
      const last = turn.entries[turn.entries.length - 1];
      const sameRound = last !== undefined && last.kind === 'tools' && last.round === event.round;
      return { ...turn, entries: addCall(turn.entries, newCall(event.callId, event.name, event.arguments), !sameRound, event.round) };
    }
    case 'tool_permission_decided':
      return { ...turn, entries: updateCall(turn.entries, event.callId, (call) => applyPermission(call, event)) };
    case 'approval_requested':
      return {
        ...turn,
        outcome: withPhase(turn, 'approval'),
        entries: updateCall(turn.entries, event.callId, (call) => ({
          ...call,
          status: 'awaiting_approval',
          approval: { summary: event.summary, reason: event.reason, resolution: null },
        })),
      };
    case 'approval_resolved':
      return {
        ...turn,
        outcome: withPhase(turn, 'tools'),
        entries: updateCall(turn.entries, event.callId, (call) => ({
          ...call,
          status: event.decision === 'deny' ? 'denied' : 'requested',
          approval: {
            summary: call.approval?.summary ?? '',
            reason: call.approval?.reason ?? '',
            resolution: { decision: event.decision, by: event.by, message: event.message },
          },
        })),
      };
    case 'tool_started':
      return { ...turn, outcome: withPhase(turn, 'tools'), entries: updateCall(turn.entries, event.callId, (call) => ({ ...call, status: 'running' })) };
    case 'tool_finished':
      return {
        ...turn,
        entries: updateCall(turn.entries, event.callId, (call) => ({
          ...call,
          output: event.output,
          isError: event.isError,
          durationMs: event.durationMs,
          status: call.status === 'denied' ? 'denied' : /^Error \[CANCELLED\]/.test(event.output) ? 'cancelled' : event.isError ? 'failed' : 'succeeded',
        })),
      };
    case 'history_compacted':
      return { ...turn, stage: null, entries: addCompaction(turn.entries, compactionView(event as unknown as Fields)) };
    case 'warning':
      return {
        ...turn,
        entries: [...turn.entries, { kind: 'notice', key: noticeKey(turn.entries), tone: 'warning', title: event.code, text: event.message }],
      };
    case 'run_succeeded': {
      let entries = finishStreaming(turn.entries, 'final');
      const hasAnswer = entries.some((entry) => entry.kind === 'assistant' && entry.role === 'final');
      if (!hasAnswer && event.answer.trim() !== '') {
        entries = [...entries, { kind: 'assistant', key: `text-${assistantCount(entries)}`, text: event.answer, role: 'final' }];
      }
      return endTurn({ ...turn, entries }, { status: 'succeeded', rounds: event.rounds, totalTokens: event.usage.total.totalTokens });
    }
    case 'run_failed':
      return endTurn(turn, { status: 'failed', code: event.error.code, message: event.error.message });
    case 'run_cancelled':
      return endTurn(turn, { status: 'cancelled', reason: event.reason });
    default:
      return turn;
  }
}

/**
 * The turns to show: the recorded ones, with the live turn in place of its recorded copy while
 * the records lag behind the events (still running, or the end record not read yet).
 */
export function mergeLiveTurn(recorded: TranscriptTurn[], live: TranscriptTurn | null): TranscriptTurn[] {
  if (live === null) return recorded;
  const index = live.runId === null ? -1 : recorded.findIndex((turn) => turn.runId === live.runId);
  if (index === -1) {
    // The turn number was a guess made before the run started; never let it collide with a recorded turn.
    const clash = recorded.some((turn) => turn.key === live.key);
    return [...recorded, clash ? { ...live, key: `live-${live.runId ?? 'pending'}` } : live];
  }
  const copy = recorded[index];
  if (copy.outcome.status !== 'incomplete') return recorded;
  const merged = [...recorded];
  merged[index] = { ...live, turn: copy.turn ?? live.turn, key: copy.key };
  return merged;
}
