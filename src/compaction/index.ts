// Context compaction: when the history sent to the model gets too big, shrink it at a safe
// boundary — first by eliding old tool outputs, then by replacing it with a model-written summary
// — and record what was done so replay reproduces it. See docs/compaction.md.

export {
  CompactionConfigError,
  DEFAULT_COMPACT_AT,
  compactAtTokens,
  describeCompactAt,
  parseCompactAt,
  parseContextWindow,
  type CompactAt,
} from './compact-at.js';
export {
  EMPTY_COMPACTION_CONFIG,
  configFilePath,
  parseCompactionConfig,
  readCompactionConfig,
  resolveCompactionSettings,
  type CompactionConfig,
  type LimitsSource,
  type ResolveCompactionInput,
  type ResolvedCompaction,
  type SettingsWarning,
} from './compaction-settings.js';
export {
  ITEM_OVERHEAD_TOKENS,
  PRECISE_COUNT_FROM,
  TokenCounter,
  cheapItemTokens,
  cheapTokenEstimate,
  countContext,
  itemText,
  itemsSinceUsage,
  loadO200kTokenizer,
  boundedRuns,
  MAX_RUN_CHARS,
  type ContextCount,
  type ContextView,
  type CountOptions,
  type CountTokens,
  type TokenizerLoader,
} from './token-count.js';
export { MIN_COMPACTABLE_ITEMS, decideCompaction, type CompactionDecision, type CompactionDecisionInput } from './decide-compaction.js';
export {
  historyCompactedEvent,
  type CompactionEntry,
  type CompactionFacts,
  type CompactionKind,
  type CompactionPhase,
  type CompactionTransform,
  type CompactionTrigger,
  type HistoryCompactedEvent,
  type PruneCompaction,
  type SummaryCompaction,
} from './compaction-entry.js';
export {
  DEFAULT_USER_BUDGET_TOKENS,
  PROTECTED_ROUNDS,
  roundStarts,
  PRUNED_OUTPUT_MARKER,
  PRUNE_MIN_OUTPUT_CHARS,
  applyCompactionRecord,
  applyPrune,
  applySummaryCompaction,
  countKeptItems,
  isPrunedOutput,
  prunedOutputPlaceholder,
  selectPruneCandidates,
  type PruneSelection,
  type SummaryOptions,
} from './apply-compaction.js';
export { ASSUMED_CACHED_INPUT_RATIO, pruneEconomics, type PruneEconomics, type PruneEconomicsInput } from './prune-economics.js';
export {
  DEFAULT_TRANSCRIPT_CLIP_CHARS,
  SUMMARY_REQUEST_CLOSING,
  buildLiveSummaryRequest,
  buildSummaryRequest,
  cleanSummary,
  clipMiddle,
  estimateRequestTokens,
  fitSummaryRequest,
  serializeTranscript,
  summaryInstructions,
  summaryTemplate,
  transcriptUnits,
  type SummaryForm,
  type SummaryRequest,
  type SummaryRequestInput,
} from './summary-request.js';
export {
  CompactionFailure,
  abortableSleep,
  backoffDelay,
  summarizeHistory,
  type SummarizerContext,
  type SummarizerSettings,
  type SummaryResult,
} from './summarizer.js';
export {
  COMPACTION_DISABLED_WARNING,
  DEFAULT_COMPACTION_TUNING,
  compactHistory,
  compactionSettings,
  createCompactionHooks,
  type CompactionController,
  type CompactionDeps,
  type CompactionMode,
  type CompactionSettings,
  type CompactionTuning,
  type ManualCompactionInput,
  type ManualCompactionResult,
} from './compactor.js';
