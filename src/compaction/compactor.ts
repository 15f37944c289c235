// The hooks the sampling loop calls at its safe boundaries (before a turn's first request, after a
// fully committed round, on a context-overflow error), and the manual compaction behind
// `glassbox compact`. Each check counts the context, decides purely, tries the cheap pass, and
// only then asks the model for a summary. Every change is persisted (through the injected
// `persist`) before the in-memory history is replaced, so the file never lags the live state.

import { randomUUID } from 'node:crypto';
import type { ModelError, ModelGateway, Usage } from '../model/index.js';
import type { CompactionHooks, LoopState, ModelCallRecord, ResponseItem, RunEvent } from '../agent/index.js';
import { applyPrune, applySummaryCompaction, PROTECTED_ROUNDS, roundStarts, selectPruneCandidates } from './apply-compaction.js';
import { pruneEconomics } from './prune-economics.js';
import {
  historyCompactedEvent,
  type CompactionEntry,
  type CompactionPhase,
  type CompactionTrigger,
  type PruneCompaction,
  type SummaryCompaction,
} from './compaction-entry.js';
import { decideCompaction, MIN_COMPACTABLE_ITEMS } from './decide-compaction.js';
import {
  abortableSleep,
  CompactionFailure,
  summarizeHistory,
  summaryOutputCap,
  type SummarizerContext,
  type SummarizerSettings,
} from './summarizer.js';
import { countContext, TokenCounter } from './token-count.js';

import {
  type CompactionMode,
  type CompactionSettings,
  type CompactionTuning,
  compactionSettings,
  DEFAULT_COMPACTION_TUNING,
  TYPICAL_SUMMARY_TOKENS,
} from './compaction-tuning.js';

export type { CompactionMode, CompactionSettings, CompactionTuning };
export { compactionSettings, DEFAULT_COMPACTION_TUNING, TYPICAL_SUMMARY_TOKENS };

export interface CompactionDeps {
  gateway: Pick<ModelGateway, 'createResponse'>;
  /** Append the compaction to the session. Awaited before the history is replaced. */
  persist(entry: CompactionEntry): Promise<void>;
  /** Record each summary call (a `model_call` record with stage `compaction`). */
  onModelCall?(call: ModelCallRecord): void | Promise<void>;
  newCompactionId?(): string;
  sleep?(ms: number, signal: AbortSignal): Promise<void>;
  tokenCounter?: TokenCounter;
  /** Start with auto-compaction switched off (the session's breaker tripped in an earlier turn). */
  disabled?: boolean;
  /**
   * Asked before each automatic compaction (the user's `PreCompact` hooks): why it must not run,
   * or null. A block skips a threshold compaction; after an overflow the compaction runs anyway,
   * since the alternative is a failed run, and says so.
   */
  beforeCompact?(state: LoopState, trigger: 'auto' | 'overflow'): Promise<string | null>;
}

export interface CompactionController extends Required<Omit<CompactionHooks, 'afterAnswer'>> {
  /** Auto-compaction was switched off by the breaker. */
  readonly disabled: boolean;
  readonly consecutiveFailures: number;
}

interface Episode {
  trigger: CompactionTrigger;
  phase: CompactionPhase;
  tokensBefore: number;
  reason: string;
  estimated: boolean;
}

/** The warning code of a tripped breaker; replay looks for it to keep the breaker tripped across turns. */
export const COMPACTION_DISABLED_WARNING = 'COMPACTION_DISABLED';

function isCompactable(item: ResponseItem): boolean {
  return !(item.type === 'message' && (item.role === 'system' || item.role === 'user'));
}

function newId(): string {
  return `cmp_${randomUUID()}`;
}

function replaceHistory(state: LoopState, items: readonly ResponseItem[]): void {
  const history = state.history as ResponseItem[];
  history.length = 0;
  history.push(...items);
  // Usage measured before the compaction describes a history that no longer exists.
  state.lastUsage = null;
  state.lastUsageHistoryLength = 0;
}

function summarizerSettings(settings: CompactionSettings): SummarizerSettings {
  return {
    model: settings.model,
    contextWindow: settings.contextWindow,
    maxOutputTokens: settings.maxOutputTokens,
    userBudgetTokens: settings.userBudgetTokens,
    clipChars: settings.clipChars,
    attempts: settings.mode === 'seed' ? 1 : Math.max(1, settings.summaryAttempts),
    retryBaseDelayMs: settings.retryBaseDelayMs,
    rejectInflation: settings.mode === 'full',
  };
}

export function createCompactionHooks(settings: CompactionSettings, deps: CompactionDeps): CompactionController {
  const full = settings.mode === 'full';
  const counter = deps.tokenCounter ?? new TokenCounter();
  const sleep = deps.sleep ?? abortableSleep;
  const makeId = deps.newCompactionId ?? newId;
  const pruneMinimum = settings.pruneMinimumTokens ?? Math.max(1_000, Math.round(settings.threshold * 0.05));
  const protectTokens = settings.pruneProtectTokens ?? Math.min(40_000, Math.round(settings.threshold * 0.25));
  let disabled = deps.disabled === true;
  let consecutiveFailures = 0;
  let warned = false;

  const showWarnings = (state: LoopState): void => {
    if (warned) return;
    warned = true;
    for (const warning of settings.warnings) state.emit({ type: 'warning', code: warning.code, message: warning.message });
    if (disabled) {
      state.emit({
        type: 'warning',
        code: COMPACTION_DISABLED_WARNING,
        message:
          'Auto-compaction is off for this session after repeated failed compactions; `glassbox compact <session>` compacts by hand and turns it back on.',
      });
    }
  };

  const install = async (state: LoopState, entry: CompactionEntry, items: readonly ResponseItem[]): Promise<void> => {
    await deps.persist(entry);
    replaceHistory(state, items);
    state.emit(historyCompactedEvent(entry));
  };

  const fail = (state: LoopState, message: string): void => {
    consecutiveFailures += 1;
    state.emit({
      type: 'warning',
      code: 'COMPACTION_FAILED',
      message: `Context compaction did not succeed (${consecutiveFailures} of ${settings.maxConsecutiveFailures} in a row): ${message}`,
    });
    if (consecutiveFailures >= settings.maxConsecutiveFailures && !disabled) {
      disabled = true;
      state.emit({
        type: 'warning',
        code: COMPACTION_DISABLED_WARNING,
        message: `Auto-compaction is now off for this session after ${consecutiveFailures} failed or ineffective compactions in a row; the run continues without it. \`glassbox compact <session>\` compacts by hand.`,
      });
    }
  };

  /** Median tokens of the most recent rounds (up to five): what a round adds, robust to one huge output. */
  const growthPerRound = async (history: readonly ResponseItem[]): Promise<number> => {
    const starts = roundStarts(history).slice(-6);
    const sizes: number[] = [];
    for (let i = 0; i < starts.length; i += 1) {
      const end = starts[i + 1] ?? history.length;
      sizes.push(await counter.current(history.slice(starts[i], end)));
    }
    if (sizes.length === 0) return 0;
    sizes.sort((a, b) => a - b);
    return sizes[Math.floor(sizes.length / 2)]!;
  };

  /**
   * How long a summary will be: the last one in this history, else a typical one (summaries run
   * to a few thousand tokens, far below their cap), never above the cap.
   */
  const expectedSummaryTokens = async (history: readonly ResponseItem[]): Promise<number> => {
    const cap = summaryOutputCap(summarizerSettings(settings));
    const last = history.findLast((item) => item.type === 'compaction_summary');
    return Math.min(cap, last === undefined ? TYPICAL_SUMMARY_TOKENS : await counter.current([last]));
  };

  /** What a summarized history would start with: system, the kept user messages, the summary. */
  const summarizedTokens = async (history: readonly ResponseItem[], summary: number): Promise<number> => {
    const left = applySummaryCompaction(
      history,
      { compactionId: 'estimate', summary: '' },
      { userBudgetTokens: settings.userBudgetTokens },
    );
    return (await counter.current(left)) + summary + settings.overheadTokens;
  };

  /**
   * The cheap pass. Normally used only when it brings the context under the threshold (else a
   * summary follows and the elision only broke the cache) and pays for the cache miss it causes;
   * returns why not in `declined`. `fallback` (after a failed summary, the alternative being an
   * overflow): whatever it reclaims, the latest round included, no cost rule.
   */
  const prune = async (
    state: LoopState,
    episode: Episode,
    fallback: boolean,
  ): Promise<{ entry: PruneCompaction | null; declined: string | null }> => {
    const ids = selectPruneCandidates(state.history, { protectedRounds: fallback ? 0 : PROTECTED_ROUNDS, protectTokens });
    if (ids.length === 0) return { entry: null, declined: null };
    const pruned = applyPrune(state.history, ids);
    const reclaimed = (await counter.current(state.history)) - (await counter.current(pruned));
    const tokensAfter = Math.max(0, episode.tokensBefore - reclaimed);
    let economics = '';
    if (!fallback) {
      if (reclaimed < pruneMinimum) return { entry: null, declined: null };
      if (tokensAfter >= settings.threshold) {
        return { entry: null, declined: `Eliding old tool outputs would leave about ${tokensAfter} tokens, still over the threshold.` };
      }
      const elided = new Set(ids);
      const first = pruned.findIndex((item) => item.type === 'function_call_output' && elided.has(item.callId));
      const summary = await expectedSummaryTokens(state.history);
      const verdict = pruneEconomics({
        savedTokens: reclaimed,
        missedTokens: await counter.current(pruned.slice(first)),
        growthPerRound: await growthPerRound(state.history),
        requestTokens: tokensAfter,
        pricing: settings.pricing,
        promptCaching: settings.promptCaching,
        // A summary follows if the pass declines: what the history would start from then.
        summaryAlternative: {
          prunedTokens: tokensAfter,
          summarizedTokens: await summarizedTokens(state.history, summary),
          thresholdTokens: settings.threshold,
          summaryOutputTokens: summary,
        },
      });
      if (!verdict.prune) return { entry: null, declined: verdict.reason };
      economics = ` ${verdict.reason}`;
    } else if (reclaimed < 1) {
      return { entry: null, declined: null };
    }
    const entry: PruneCompaction = {
      kind: 'prune',
      compactionId: makeId(),
      trigger: episode.trigger,
      phase: episode.phase,
      tokensBefore: episode.tokensBefore,
      tokensAfter,
      itemsRemoved: ids.length,
      itemsKept: state.history.length - ids.length,
      reason: `${episode.reason} Elided ${ids.length} old tool output${ids.length === 1 ? '' : 's'}, about ${reclaimed} tokens, without a model call.${economics}`,
      estimated: episode.estimated,
      prunedCallIds: ids,
    };
    await install(state, entry, pruned);
    return { entry, declined: null };
  };

  const summarize = async (state: LoopState, episode: Episode): Promise<SummaryCompaction> => {
    // After an overflow the conversation itself is what does not fit: straight to the transcript form.
    const live = full && settings.liveSummary && episode.trigger !== 'overflow' && state.nextRequest ? state.nextRequest() : null;
    const context: SummarizerContext = {
      liveRequest: live,
      liveRequestTokens: live === null ? null : episode.tokensBefore,
      gateway: deps.gateway,
      counter,
      signal: state.signal,
      round: state.round,
      emit: state.emit,
      recordUsage: (usage) => state.recordUsage('compaction', usage),
      onModelCall: deps.onModelCall,
      sleep,
      newCompactionId: makeId,
    };
    const result = await summarizeHistory(state.history, summarizerSettings(settings), context, [settings.instructions]);
    const omitted =
      result.omittedItems > 0 ? ` ${result.omittedItems} of the oldest items were left out of the summarizer's input to make it fit.` : '';
    const form =
      result.form === 'live'
        ? ' Summarized from the live conversation.'
        : result.liveFallback === null
          ? ''
          : ` Summarized from a transcript: the live form failed (${result.liveFallback}).`;
    const entry: SummaryCompaction = {
      kind: 'summary',
      compactionId: result.compactionId,
      trigger: episode.trigger,
      phase: episode.phase,
      tokensBefore: episode.tokensBefore,
      tokensAfter: result.estimateAfter + settings.overheadTokens,
      itemsRemoved: result.itemsRemoved,
      itemsKept: result.itemsKept,
      reason: episode.reason + omitted + form,
      estimated: episode.estimated,
      summary: result.summary,
      userBudgetTokens: settings.userBudgetTokens,
    };
    await install(state, entry, result.history);
    return entry;
  };

  /** One compaction episode. Returns whether the history changed. */
  const compact = async (state: LoopState, episode: Episode): Promise<boolean> => {
    let current = episode;
    // After an overflow a summary is needed whatever the estimates say: they were evidently off.
    if (full && episode.trigger !== 'overflow') {
      const pruned = await prune(state, episode, false);
      if (pruned.entry) {
        consecutiveFailures = 0;
        return true;
      }
      if (pruned.declined !== null) current = { ...episode, reason: `${episode.reason} ${pruned.declined}` };
    }
    try {
      const entry = await summarize(state, current);
      if (entry.tokensAfter >= settings.threshold) {
        fail(state, `the compacted history is still about ${entry.tokensAfter} tokens, at or above the threshold ${settings.threshold}`);
      } else {
        consecutiveFailures = 0;
      }
      return true;
    } catch (error) {
      if (!(error instanceof CompactionFailure) || !full) throw error;
      const changed =
        (await prune(state, { ...current, reason: `${current.reason} ${error.message} Fell back to the cheap pass.` }, true)).entry !==
        null;
      fail(state, error.message);
      return changed;
    }
  };

  const check = async (state: LoopState, phase: CompactionPhase): Promise<void> => {
    if (disabled) return;
    const count = await countContext(state, counter, {
      threshold: settings.threshold,
      estimate: full,
      overheadTokens: settings.overheadTokens,
    });
    const decision = decideCompaction({
      tokens: count.tokens,
      threshold: settings.threshold,
      historyLength: state.history.length,
      estimated: count.estimated,
    });
    if (!decision.compact) return;
    const blocked = (await deps.beforeCompact?.(state, 'auto')) ?? null;
    if (blocked !== null) {
      state.emit({
        type: 'warning',
        code: 'COMPACTION_BLOCKED',
        message: `A PreCompact hook blocked the compaction due now (${decision.reason}); the history is kept as it is. ${blocked}`,
      });
      return;
    }
    await compact(state, { trigger: 'auto', phase, tokensBefore: decision.tokens, reason: decision.reason, estimated: decision.estimated });
  };

  return {
    get disabled() {
      return disabled;
    },
    get consecutiveFailures() {
      return consecutiveFailures;
    },
    async beforeTurn(state) {
      showWarnings(state);
      // The seed only checked between rounds; a resumed session over the threshold went out as is.
      if (full) await check(state, 'pre_turn');
    },
    async afterRound(state) {
      showWarnings(state);
      await check(state, 'mid_turn');
    },
    async onContextOverflow(state, error: ModelError) {
      // Unlike the threshold check, any history with something besides system and user messages
      // is worth compacting here: the alternative is a failed run.
      if (!full || disabled || !state.history.some(isCompactable)) return false;
      const blocked = (await deps.beforeCompact?.(state, 'overflow')) ?? null;
      if (blocked !== null)
        state.emit({
          type: 'warning',
          code: 'COMPACTION_BLOCKED',
          message: `A PreCompact hook blocked the compaction, but the provider refused the request as too long: compacting anyway, or the turn fails. ${blocked}`,
        });
      const count = await countContext(state, counter, {
        threshold: settings.threshold,
        estimate: true,
        overheadTokens: settings.overheadTokens,
      });
      return compact(state, {
        trigger: 'overflow',
        phase: state.round <= 1 ? 'pre_turn' : 'mid_turn',
        tokensBefore: count.tokens ?? 0,
        reason: `The provider rejected the request as too long for its context window (${error.message}).`,
        estimated: count.estimated,
      });
    },
  };
}

export interface ManualCompactionInput {
  history: readonly ResponseItem[];
  settings: CompactionSettings;
  gateway: Pick<ModelGateway, 'createResponse'>;
  /** Added to the template and to the configured instructions for this summary only. */
  instructions?: string | null;
  signal?: AbortSignal;
  /** The round number model-call records and events carry (0: outside any round). */
  round?: number;
  emit?(event: RunEvent): void;
  onModelCall?(call: ModelCallRecord): void | Promise<void>;
  newCompactionId?(): string;
  sleep?(ms: number, signal: AbortSignal): Promise<void>;
  tokenCounter?: TokenCounter;
}

export interface ManualCompactionResult {
  /** The replacement history; the caller persists `entry` first, then uses it. */
  history: ResponseItem[];
  entry: SummaryCompaction;
  /** Usage of each summary call made, for the caller's totals. */
  usage: Usage[];
}

/**
 * Summarize a history on request (`glassbox compact`, the HTTP API), whatever its size. Throws
 * `CompactionFailure` when there is nothing to compact or no usable summary could be had.
 */
export async function compactHistory(input: ManualCompactionInput): Promise<ManualCompactionResult> {
  const { history, settings } = input;
  if (history.length < MIN_COMPACTABLE_ITEMS) {
    throw new CompactionFailure(
      `The history has only ${history.length} item${history.length === 1 ? '' : 's'}; there is nothing worth compacting.`,
      'NOTHING_TO_COMPACT',
    );
  }
  const counter = input.tokenCounter ?? new TokenCounter();
  const usage: Usage[] = [];
  const signal = input.signal ?? new AbortController().signal;
  const context: SummarizerContext = {
    gateway: input.gateway,
    counter,
    signal,
    round: input.round ?? 0,
    emit: input.emit ?? (() => {}),
    recordUsage: (value) => {
      if (value) usage.push(value);
    },
    onModelCall: input.onModelCall,
    sleep: input.sleep ?? abortableSleep,
    newCompactionId: input.newCompactionId ?? newId,
  };
  const tokensBefore = (await counter.precise(history)) + settings.overheadTokens;
  const extra = input.instructions?.trim() ? input.instructions.trim() : null;
  const result = await summarizeHistory(history, { ...summarizerSettings(settings), rejectInflation: true }, context, [
    settings.instructions,
    extra,
  ]);
  const omitted =
    result.omittedItems > 0 ? ` ${result.omittedItems} of the oldest items were left out of the summarizer's input to make it fit.` : '';
  const entry: SummaryCompaction = {
    kind: 'summary',
    compactionId: result.compactionId,
    trigger: 'manual',
    phase: 'manual',
    tokensBefore,
    tokensAfter: result.estimateAfter + settings.overheadTokens,
    itemsRemoved: result.itemsRemoved,
    itemsKept: result.itemsKept,
    reason: `Compacted on request${extra ? ' with extra instructions' : ''}; the history was about ${tokensBefore} tokens (estimated).${omitted}`,
    estimated: true,
    summary: result.summary,
    userBudgetTokens: settings.userBudgetTokens,
  };
  return { history: result.history, entry, usage };
}
