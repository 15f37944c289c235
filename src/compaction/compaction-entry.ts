// What one compaction did, as recorded in the session and announced as a `history_compacted`
// event. It carries every input of the pure transform, so replay can re-apply it exactly.

import type { RunEvent } from '../agent/index.js';

export type CompactionTrigger = 'auto' | 'manual' | 'overflow';
export type CompactionPhase = 'pre_turn' | 'mid_turn' | 'manual';
export type CompactionKind = 'summary' | 'prune';

export interface CompactionFacts {
  compactionId: string;
  trigger: CompactionTrigger;
  phase: CompactionPhase;
  /** The context size that triggered it (reported usage, plus estimates when `estimated`). */
  tokensBefore: number;
  /** Estimated size of the history right after it. */
  tokensAfter: number;
  /** Summary: items dropped. Prune: outputs whose body was elided. */
  itemsRemoved: number;
  /** Items of the old history still present unchanged. */
  itemsKept: number;
  reason: string;
  /** `tokensBefore` is an estimate: no reported usage was available. */
  estimated: boolean;
}

/** Full replacement: system message + summary + recent user messages. */
export interface SummaryCompaction extends CompactionFacts {
  kind: 'summary';
  summary: string;
  /** Token budget (chars / 4) for the recent user messages kept verbatim. */
  userBudgetTokens: number;
}

/** The cheap pass: old tool outputs replaced by a placeholder, no model call. */
export interface PruneCompaction extends CompactionFacts {
  kind: 'prune';
  prunedCallIds: string[];
}

export type CompactionEntry = SummaryCompaction | PruneCompaction;

/** Just what the pure transform needs. */
export type CompactionTransform =
  | Pick<SummaryCompaction, 'kind' | 'compactionId' | 'summary' | 'userBudgetTokens'>
  | Pick<PruneCompaction, 'kind' | 'prunedCallIds'>;

export type HistoryCompactedEvent = Extract<RunEvent, { type: 'history_compacted' }>;

export function historyCompactedEvent(entry: CompactionEntry): HistoryCompactedEvent {
  return {
    type: 'history_compacted',
    compactionId: entry.compactionId,
    trigger: entry.trigger,
    phase: entry.phase,
    kind: entry.kind,
    tokensBefore: entry.tokensBefore,
    tokensAfter: entry.tokensAfter,
    itemsRemoved: entry.itemsRemoved,
    itemsKept: entry.itemsKept,
    reason: entry.reason,
    summary: entry.kind === 'summary' ? entry.summary : '',
    estimated: entry.estimated,
  };
}
