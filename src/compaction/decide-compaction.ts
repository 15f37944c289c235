// Whether to compact now: a pure function of the count, the threshold and the history length, so
// the decision and the reason that explains it always agree and can be audited afterwards.

/** A history shorter than this is barely more than a system message and a prompt. */
export const MIN_COMPACTABLE_ITEMS = 4;

export interface CompactionDecisionInput {
  /** Tokens the next request would carry; null when there is nothing to go on. */
  tokens: number | null;
  threshold: number;
  historyLength: number;
  /** The count is an estimate (no reported usage was used). */
  estimated: boolean;
}

export type CompactionDecision =
  | { compact: false; reason: string }
  | { compact: true; reason: string; tokens: number; threshold: number; estimated: boolean };

export function decideCompaction(input: CompactionDecisionInput): CompactionDecision {
  if (input.tokens === null) {
    return { compact: false, reason: 'No token usage was reported and no estimate is available, so the context size is unknown.' };
  }
  const what = input.estimated ? 'Estimated token count' : 'Reported token usage';
  if (input.tokens < input.threshold) {
    return { compact: false, reason: `${what} ${input.tokens} is below the compaction threshold ${input.threshold}.` };
  }
  if (input.historyLength < MIN_COMPACTABLE_ITEMS) {
    return {
      compact: false,
      reason: `History has only ${input.historyLength} item${input.historyLength === 1 ? '' : 's'}; there is nothing worth compacting.`,
    };
  }
  return {
    compact: true,
    reason: `${what} ${input.tokens} reached the compaction threshold ${input.threshold}.`,
    tokens: input.tokens,
    threshold: input.threshold,
    estimated: input.estimated,
  };
}
