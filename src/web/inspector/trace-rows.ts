// The Debug tab's trace as rows: a header per turn (its calls, tokens, price), a row per model
// call, and under each call the tool calls it asked for, each linked to the later call whose
// request carried its output. Pure, so the filters can be checked without a browser.

import type { SessionRecord, TraceCall } from '../api/index.js';

export interface CostTotal {
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  /** Sum of the priced calls; null when none could be priced. */
  costUsd: number | null;
  /** Calls with usage whose model has no known price: the total leaves them out. */
  unpriced: number;
  calls: number;
}

export type TraceRow =
  | { kind: 'turn'; key: string; turn: number; total: CostTotal; inherited: boolean }
  | { kind: 'call'; key: string; call: TraceCall; denied: number }
  | {
      kind: 'tool';
      key: string;
      callIndex: number;
      callId: string;
      name: string;
      arguments: string;
      decision: ToolDecision;
      carriedBy: number | null;
      /** What became of its output where no request carried it; null: no output recorded (yet). */
      fate: OutputFate | null;
    };

/**
 * A recorded output no request may ever carry: `compacted`, a compaction came after it (its
 * history no longer holds it as it was); `ended`, its turn ended before another request (a stop,
 * a failure, a cancel); `pending`, neither yet.
 */
export type OutputFate = 'pending' | 'compacted' | 'ended';

export type ToolDecision = 'allowed' | 'denied' | 'approved' | 'unknown';

export interface TraceFilters {
  errorsOnly: boolean;
  deniedOnly: boolean;
  stage: 'all' | 'turn' | 'compaction';
  /** A tool name, or '' for any. */
  tool: string;
}

export const NO_FILTERS: TraceFilters = { errorsOnly: false, deniedOnly: false, stage: 'all', tool: '' };

export function emptyTotal(): CostTotal {
  return { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, costUsd: null, unpriced: 0, calls: 0 };
}

export function addCall(total: CostTotal, call: TraceCall): CostTotal {
  const usage = call.usage;
  return {
    inputTokens: total.inputTokens + (usage?.inputTokens ?? 0),
    cachedInputTokens: total.cachedInputTokens + (usage?.cachedInputTokens ?? 0),
    outputTokens: total.outputTokens + (usage?.outputTokens ?? 0),
    costUsd: call.costUsd === null ? total.costUsd : (total.costUsd ?? 0) + call.costUsd,
    unpriced: total.unpriced + (usage !== null && !call.priceKnown ? 1 : 0),
    calls: total.calls + 1,
  };
}

/** What became of each tool call, from the permission and approval audit records. */
export function toolDecisions(records: SessionRecord[]): Map<string, ToolDecision> {
  const decisions = new Map<string, ToolDecision>();
  for (const record of records) {
    if (record.type !== 'audit') continue;
    const event = record.event;
    if (event.type === 'tool_permission_decided')
      decisions.set(event.callId, event.decision === 'deny' ? 'denied' : event.decision === 'allow' ? 'allowed' : 'unknown');
    else if (event.type === 'approval_resolved') decisions.set(event.callId, event.decision === 'deny' ? 'denied' : 'approved');
  }
  return decisions;
}

/** callId → what became of its recorded output, from the session's records in order. */
export function outputFates(records: readonly SessionRecord[]): Map<string, OutputFate> {
  const fates = new Map<string, OutputFate>();
  const turnOf = new Map<string, number>();
  for (const record of records) {
    if (record.type === 'response_item' && record.item.type === 'function_call_output') {
      fates.set(record.item.callId, 'pending');
      turnOf.set(record.item.callId, record.turn);
    } else if (record.type === 'compaction') {
      for (const [callId, fate] of fates) if (fate === 'pending') fates.set(callId, 'compacted');
    } else if (record.type === 'turn_completed' || record.type === 'turn_failed' || record.type === 'turn_cancelled') {
      for (const [callId, fate] of fates) if (fate === 'pending' && turnOf.get(callId) === record.turn) fates.set(callId, 'ended');
    }
  }
  return fates;
}

/** callId → the index of the call whose request first carried that tool's output. */
export function carriers(calls: readonly TraceCall[]): Map<string, number> {
  const map = new Map<string, number>();
  for (const call of calls) for (const output of call.carriedOutputs) if (!map.has(output.callId)) map.set(output.callId, call.index);
  return map;
}

function keep(call: TraceCall, filters: TraceFilters, decisions: Map<string, ToolDecision>): boolean {
  if (filters.stage !== 'all' && call.stage !== filters.stage) return false;
  if (filters.errorsOnly && call.error === null && !call.carriedOutputs.some((output) => output.isError)) return false;
  if (filters.deniedOnly && !call.response.toolCalls.some((tool) => decisions.get(tool.callId) === 'denied')) return false;
  if (filters.tool !== '' && !call.response.toolCalls.some((tool) => tool.name === filters.tool)) return false;
  return true;
}

export function traceRows(
  calls: readonly TraceCall[],
  decisions: Map<string, ToolDecision>,
  filters: TraceFilters,
  carriedBy = carriers(calls),
  fates: ReadonlyMap<string, OutputFate> = new Map(),
): TraceRow[] {
  const rows: TraceRow[] = [];
  let header: Extract<TraceRow, { kind: 'turn' }> | null = null;
  for (const call of calls) {
    if (!keep(call, filters, decisions)) continue;
    if (header === null || header.turn !== call.turn || header.inherited !== call.inherited) {
      header = {
        kind: 'turn',
        key: `turn-${call.inherited ? 'p' : ''}${call.turn}-${call.index}`,
        turn: call.turn,
        total: emptyTotal(),
        inherited: call.inherited,
      };
      rows.push(header);
    }
    header.total = addCall(header.total, call);
    const denied = call.response.toolCalls.filter((tool) => decisions.get(tool.callId) === 'denied').length;
    rows.push({ kind: 'call', key: `call-${call.index}`, call, denied });
    for (const tool of call.response.toolCalls) {
      rows.push({
        kind: 'tool',
        key: `tool-${call.index}-${tool.callId}`,
        callIndex: call.index,
        callId: tool.callId,
        name: tool.name,
        arguments: tool.arguments,
        decision: decisions.get(tool.callId) ?? 'unknown',
        carriedBy: carriedBy.get(tool.callId) ?? null,
        fate: fates.get(tool.callId) ?? null,
      });
    }
  }
  return rows;
}

export function totalOf(calls: readonly TraceCall[]): CostTotal {
  return calls.reduce(addCall, emptyTotal());
}
