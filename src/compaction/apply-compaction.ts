// The pure history transforms. Live compaction and session replay call the very same functions
// with the very same recorded inputs, so a resumed session holds exactly the history the live run
// held: nothing here may depend on runtime state (clocks, loaded tokenizers, randomness).

import type { FunctionCallOutputItem, ResponseItem } from '../agent/index.js';
import type { CompactionTransform } from './compaction-entry.js';
import { cheapItemTokens } from './token-count.js';

/** Recent user messages kept verbatim after a summary, in (chars / 4) tokens. */
export const DEFAULT_USER_BUDGET_TOKENS = 20_000;

export interface SummaryOptions {
  userBudgetTokens: number;
}

function leadingSystem(history: readonly ResponseItem[]): ResponseItem | undefined {
  const first = history[0];
  return first !== undefined && first.type === 'message' && first.role === 'system' ? first : undefined;
}

/**
 * Full replacement: the leading system message (if any), one `compaction_summary`, and the most
 * recent user messages, newest first until the budget is spent (the newest always, even alone
 * over budget), restored to their original order. Assistant messages, calls, outputs and earlier
 * summaries are all dropped: the new summary absorbed them, and no call can be left without its
 * output because none survives.
 */
export function applySummaryCompaction(
  history: readonly ResponseItem[],
  summary: { compactionId: string; summary: string },
  options: SummaryOptions,
): ResponseItem[] {
  const kept: ResponseItem[] = [];
  let spent = 0;
  for (let index = history.length - 1; index >= 0; index -= 1) {
    const item = history[index]!;
    if (item.type !== 'message' || item.role !== 'user') continue;
    const cost = cheapItemTokens(item);
    if (kept.length > 0 && spent + cost > options.userBudgetTokens) break;
    kept.push(item);
    spent += cost;
  }
  kept.reverse();
  const result: ResponseItem[] = [];
  const system = leadingSystem(history);
  if (system !== undefined) result.push(system);
  result.push({ type: 'compaction_summary', compactionId: summary.compactionId, summary: summary.summary });
  result.push(...kept);
  return result;
}

/** Every pruned output starts with this, which also makes pruning idempotent. */
export const PRUNED_OUTPUT_MARKER = '[Tool output elided to save context:';
/** Outputs shorter than this are left alone: the placeholder would save next to nothing. */
export const PRUNE_MIN_OUTPUT_CHARS = 600;
/**
 * The cheap pass never touches the outputs of this many most recent rounds (a round: one batch of
 * calls and their outputs). Counted in rounds, not user turns: an agentic turn runs for a hundred
 * rounds, and protecting its user turn protected everything in it.
 */
export const PROTECTED_ROUNDS = 1;
const PLACEHOLDER_ARGUMENT_CHARS = 240;

export function isPrunedOutput(item: ResponseItem): boolean {
  return item.type === 'function_call_output' && item.output.startsWith(PRUNED_OUTPUT_MARKER);
}

function groupDigits(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function clipArguments(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= PLACEHOLDER_ARGUMENT_CHARS ? flat : `${flat.slice(0, PLACEHOLDER_ARGUMENT_CHARS)}...`;
}

/** The short stand-in for an old output: which call it was, how big, and how to get it back. */
export function prunedOutputPlaceholder(output: FunctionCallOutputItem, callArguments: string | null): string {
  const call = callArguments === null ? output.name : `${output.name} ${clipArguments(callArguments)}`;
  const lines = output.output.split('\n').length;
  return (
    `${PRUNED_OUTPUT_MARKER} ${call} returned ${groupDigits(output.output.length)} characters ` +
    `(${groupDigits(lines)} line${lines === 1 ? '' : 's'})${output.isError ? ' as an error' : ''}. ` +
    'Re-run the tool to see it again.]'
  );
}

/**
 * Index of the first call of each round: a call not directly after another call (the loop
 * commits a round's calls together, then their outputs).
 */
export function roundStarts(history: readonly ResponseItem[]): number[] {
  const starts: number[] = [];
  history.forEach((item, index) => {
    if (item.type === 'function_call' && history[index - 1]?.type !== 'function_call') starts.push(index);
  });
  return starts;
}

/**
 * Where the protected tail starts: the earlier of the N-th most recent round and the first output
 * after the one where the most recent outputs pass `protectTokens` (as opencode's pruning counts:
 * the output that crosses the budget is the newest one given up).
 */
function protectedFrom(history: readonly ResponseItem[], rounds: number, protectTokens: number): number {
  const starts = roundStarts(history);
  const from = rounds > 0 && starts.length > 0 ? starts[Math.max(0, starts.length - rounds)]! : history.length;
  if (protectTokens <= 0) return from;
  let spent = 0;
  for (let index = history.length - 1; index >= 0; index -= 1) {
    const item = history[index]!;
    if (item.type === 'function_call_output') spent += cheapItemTokens(item);
    if (spent > protectTokens) return Math.min(from, index + 1);
  }
  return 0;
}

export interface PruneSelection {
  /** Most recent rounds never touched; default `PROTECTED_ROUNDS`. */
  protectedRounds?: number;
  /** Most recent tool output, in (chars / 4) tokens, never touched; default 0. */
  protectTokens?: number;
  minOutputChars?: number;
}

/**
 * The outputs the cheap pass may elide: large, not yet elided, and older than the protected tail
 * (the most recent rounds and the most recent `protectTokens` of output). A call id that also
 * occurs in the protected tail is skipped, because the transform works by id and must not reach
 * into the tail.
 */
export function selectPruneCandidates(history: readonly ResponseItem[], selection: PruneSelection = {}): string[] {
  const from = protectedFrom(history, selection.protectedRounds ?? PROTECTED_ROUNDS, selection.protectTokens ?? 0);
  const minChars = selection.minOutputChars ?? PRUNE_MIN_OUTPUT_CHARS;
  const inTail = new Set<string>();
  for (const item of history.slice(from)) {
    if (item.type === 'function_call' || item.type === 'function_call_output') inTail.add(item.callId);
  }
  const ids: string[] = [];
  const seen = new Set<string>();
  for (const item of history.slice(0, from)) {
    if (item.type !== 'function_call_output' || isPrunedOutput(item) || item.output.length < minChars) continue;
    if (inTail.has(item.callId) || seen.has(item.callId)) continue;
    seen.add(item.callId);
    ids.push(item.callId);
  }
  return ids;
}

/**
 * Replace the body of every output whose call id is listed with a placeholder naming the tool,
 * its arguments and the size elided. Calls and outputs stay paired; everything else is untouched
 * (the very same item objects).
 */
export function applyPrune(history: readonly ResponseItem[], prunedCallIds: readonly string[]): ResponseItem[] {
  const ids = new Set(prunedCallIds);
  if (ids.size === 0) return history.slice();
  const callArguments = new Map<string, string>();
  return history.map((item) => {
    if (item.type === 'function_call') {
      if (ids.has(item.callId)) callArguments.set(item.callId, item.arguments);
      return item;
    }
    if (item.type !== 'function_call_output' || !ids.has(item.callId) || isPrunedOutput(item)) return item;
    return { ...item, output: prunedOutputPlaceholder(item, callArguments.get(item.callId) ?? null) };
  });
}

/** Re-apply a recorded compaction: what replay calls at each compaction record. */
export function applyCompactionRecord(history: readonly ResponseItem[], record: CompactionTransform): ResponseItem[] {
  switch (record.kind) {
    case 'summary':
      return applySummaryCompaction(history, record, { userBudgetTokens: record.userBudgetTokens });
    case 'prune':
      return applyPrune(history, record.prunedCallIds);
  }
}

/** How many items of `before` survive unchanged (by identity) in `after`. */
export function countKeptItems(before: readonly ResponseItem[], after: readonly ResponseItem[]): number {
  const survivors = new Set(after);
  let kept = 0;
  for (const item of before) if (survivors.has(item)) kept += 1;
  return kept;
}
