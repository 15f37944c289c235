// What one compaction did, as recorded in the session and announced as a `history_compacted`
// event. It carries every input of the pure transform, so replay can re-apply it exactly.

import type { CompactionEntry, HistoryCompactedEvent, PruneCompaction, SummaryCompaction } from '../protocol/index.js';

// The entry's shape is protocol/'s (sessions store it, the event and the API carry it), derived
// from its schema; what is built from it is here.
export type {
  CompactionEntry,
  CompactionFacts,
  CompactionKind,
  CompactionPhase,
  CompactionTrigger,
  HistoryCompactedEvent,
  PruneCompaction,
  SummaryCompaction,
} from '../protocol/index.js';

/** Just what the pure transform needs. */
export type CompactionTransform =
  | Pick<SummaryCompaction, 'kind' | 'compactionId' | 'summary' | 'userBudgetTokens'>
  | Pick<PruneCompaction, 'kind' | 'prunedCallIds'>;

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
