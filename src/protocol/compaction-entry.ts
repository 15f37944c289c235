// What one compaction did, as the session records it and a `history_compacted` event announces
// it. It carries every input of the pure transform, so replay can re-apply it exactly. The types
// are derived from the schemas; compaction/ builds the entries.

import { z } from 'zod';
import { COMPACTION_KINDS, COMPACTION_PHASES, COMPACTION_TRIGGERS } from './enumerations.js';
import { amountSchema, countSchema } from './usage.js';

export const compactionFactsShape = {
  compactionId: z.string().min(1),
  trigger: z.enum(COMPACTION_TRIGGERS),
  phase: z.enum(COMPACTION_PHASES),
  /** The context size that triggered it (reported usage, plus estimates when `estimated`). */
  tokensBefore: amountSchema,
  /** Estimated size of the history right after it. */
  tokensAfter: amountSchema,
  /** Summary: items dropped. Prune: outputs whose body was elided. */
  itemsRemoved: countSchema,
  /** Items of the old history still present unchanged. */
  itemsKept: countSchema,
  reason: z.string(),
  /** `tokensBefore` is an estimate: no reported usage was available. */
  estimated: z.boolean(),
};

/** Full replacement: system message + summary + recent user messages. */
export const summaryCompactionSchema = z.object({
  ...compactionFactsShape,
  kind: z.literal('summary'),
  summary: z.string(),
  /** Token budget (chars / 4) for the recent user messages kept verbatim. */
  userBudgetTokens: countSchema,
});

/** The cheap pass: old tool outputs replaced by a placeholder, no model call. */
export const pruneCompactionSchema = z.object({
  ...compactionFactsShape,
  kind: z.literal('prune'),
  prunedCallIds: z.array(z.string()),
});

export const compactionEntrySchema = z.discriminatedUnion('kind', [summaryCompactionSchema, pruneCompactionSchema]);

export type SummaryCompaction = z.infer<typeof summaryCompactionSchema>;
export type PruneCompaction = z.infer<typeof pruneCompactionSchema>;
export type CompactionEntry = z.infer<typeof compactionEntrySchema>;
export type CompactionFacts = Omit<SummaryCompaction, 'kind' | 'summary' | 'userBudgetTokens'>;

/** The run event announcing a compaction: the entry's facts, its kind, and its summary ('' for a prune). */
export const historyCompactedSchema = z.object({
  type: z.literal('history_compacted'),
  ...compactionFactsShape,
  kind: z.enum(COMPACTION_KINDS),
  summary: z.string(),
});
export type HistoryCompactedEvent = z.infer<typeof historyCompactedSchema>;
