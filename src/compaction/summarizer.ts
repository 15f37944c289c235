// Asking the model for a summary, with the guards a production loop needs. The live form (the
// conversation plus a closing instruction, read from the prompt cache) is tried once first when
// the loop offers its next request and it fits; anything short of a usable summary from it (an
// error, a refusal, a tool call, an empty answer) falls back to the transcript form at once. In
// the transcript form, a transcript that does not fit is cut from the oldest end (whole exchanges
// only), failures are retried with backoff, and a summary that would not shrink the history is
// refused rather than installed.

import { isModelError, type ModelGateway, type ModelRequest, type ModelResponse, type Usage } from '../model/index.js';
import type { ModelCallRecord, ResponseItem, RunEvent } from '../agent/index.js';
import { applySummaryCompaction, countKeptItems } from './apply-compaction.js';
import { buildLiveSummaryRequest, cleanSummary, estimateRequestTokens, fitSummaryRequest, summaryInstructions } from './summary-request.js';
import type { TokenCounter } from './token-count.js';

/** A compaction that did not produce a usable result; the run goes on without it. */
export class CompactionFailure extends Error {
  constructor(
    message: string,
    readonly code: 'SUMMARY_FAILED' | 'SUMMARY_EMPTY' | 'SUMMARY_DOES_NOT_FIT' | 'SUMMARY_INFLATED' | 'NOTHING_TO_COMPACT',
  ) {
    super(message);
    this.name = 'CompactionFailure';
  }
}

export interface SummarizerSettings {
  model: string;
  contextWindow: number;
  maxOutputTokens: number;
  userBudgetTokens: number;
  clipChars: number;
  /** Attempts per summary, the first included. */
  attempts: number;
  retryBaseDelayMs: number;
  /** Refuse summaries that do not make the history smaller. */
  rejectInflation: boolean;
}

export interface SummarizerContext {
  gateway: Pick<ModelGateway, 'createResponse'>;
  counter: TokenCounter;
  signal: AbortSignal;
  round: number;
  emit(event: RunEvent): void;
  /** Count the call in the run's totals (stage `compaction`). */
  recordUsage(usage: Usage | null): void;
  onModelCall?(call: ModelCallRecord): void | Promise<void>;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  newCompactionId(): string;
  /**
   * The request the next round would send (the sampling loop's); given, the live form is tried
   * first. Absent (manual compaction, overflow recovery, live form off): the transcript form only.
   */
  liveRequest?: ModelRequest | null;
  /**
   * The size of `liveRequest` as the compaction decision counted it (the last reported usage plus
   * what was appended since): the provider's own count, where an estimate of the whole request
   * runs high. Absent: estimated.
   */
  liveRequestTokens?: number | null;
}

/**
 * The least room the live form must leave in the window for the summary. Its answer is capped at
 * the room there is; a summary cut off at that cap is an error (OUTPUT_TRUNCATED) and falls back to
 * the transcript form, so trying costs one request read mostly from the cache.
 */
export const LIVE_SUMMARY_MIN_ROOM_TOKENS = 2_048;

export interface SummaryResult {
  compactionId: string;
  summary: string;
  history: ResponseItem[];
  /** Estimates of the history before and after, counted the same way. */
  estimateBefore: number;
  estimateAfter: number;
  itemsRemoved: number;
  itemsKept: number;
  /** Transcript items left out because the request would not fit. */
  omittedItems: number;
  /** Which form produced the summary. */
  form: 'live' | 'transcript';
  /** Why the live form was not used, when it was tried or wanted; null when it was used or not offered. */
  liveFallback: string | null;
}

/** Output reserve when fitting the summarizer's input: summaries are short, windows may be small. */
export function summaryOutputCap(settings: SummarizerSettings): number {
  return Math.min(settings.maxOutputTokens, 8_192, Math.floor(settings.contextWindow / 4));
}

export function backoffDelay(baseMs: number, attempt: number): number {
  return baseMs * 2 ** (attempt - 1);
}

async function callModel(context: SummarizerContext, request: ModelRequest): Promise<ModelResponse> {
  context.emit({
    type: 'model_requested',
    round: context.round,
    stage: 'compaction',
    messageCount: request.messages.length,
    toolCount: request.tools?.length ?? 0,
  });
  const started = performance.now();
  const duration = (): number => Math.round(performance.now() - started);
  let response: ModelResponse;
  try {
    response = await context.gateway.createResponse(request, {
      signal: context.signal,
      onRetry: (notice) =>
        context.emit({ type: 'model_retry', round: context.round, attempt: notice.attempt, delayMs: notice.delayMs, error: notice.error }),
    });
  } catch (error) {
    context.recordUsage(null);
    await context.onModelCall?.({
      round: context.round,
      stage: 'compaction',
      request,
      usage: null,
      finishReason: null,
      durationMs: duration(),
      error: { code: isModelError(error) ? error.code : 'INTERNAL_ERROR', message: (error as Error).message },
    });
    throw error;
  }
  context.recordUsage(response.usage);
  await context.onModelCall?.({
    round: context.round,
    stage: 'compaction',
    request,
    usage: response.usage,
    finishReason: response.finishReason,
    durationMs: duration(),
    error: null,
  });
  context.emit({
    type: 'model_completed',
    round: context.round,
    stage: 'compaction',
    usage: response.usage,
    finishReason: response.finishReason,
    durationMs: duration(),
  });
  return response;
}

/**
 * Summarize `history` and build the replacement. Throws `CompactionFailure` when no usable
 * summary could be had, and rethrows cancellation as is.
 */
export async function summarizeHistory(
  history: readonly ResponseItem[],
  settings: SummarizerSettings,
  context: SummarizerContext,
  extraInstructions: readonly (string | null | undefined)[],
): Promise<SummaryResult> {
  const instructions = summaryInstructions(extraInstructions);
  const maxInput = settings.contextWindow - summaryOutputCap(settings);
  const live = context.liveRequest ?? null;
  const input = {
    model: settings.model,
    history,
    instructions,
    clipChars: settings.clipChars,
    ...(live?.promptCacheKey === undefined ? {} : { promptCacheKey: live.promptCacheKey }),
  };
  let minDrop = 0;
  let lastError = 'no attempt was made';
  let summary: string | null = null;
  let omittedItems = 0;
  let form: SummaryResult['form'] = 'transcript';
  let liveFallback: string | null = null;
  if (live !== null) {
    const outcome = await tryLiveSummary(context, live, summaryInstructions(extraInstructions, 'live'), settings);
    if (outcome.summary !== null) {
      summary = outcome.summary;
      form = 'live';
    } else {
      liveFallback = outcome.reason;
    }
  }
  for (let attempt = 1; attempt <= settings.attempts && summary === null; attempt += 1) {
    const fitted = fitSummaryRequest(input, maxInput, minDrop);
    if (fitted === null) {
      throw new CompactionFailure(
        `The summary request does not fit the ${settings.contextWindow}-token context window even with only the most recent exchange.`,
        'SUMMARY_DOES_NOT_FIT',
      );
    }
    try {
      const response = await callModel(context, fitted.request);
      const text = cleanSummary(response.text);
      if (text !== '') {
        summary = text;
        omittedItems = fitted.omittedItems;
        break;
      }
      lastError = 'the model returned an empty summary';
    } catch (error) {
      if (context.signal.aborted || (isModelError(error) && error.code === 'ABORTED')) throw error;
      lastError = (error as Error).message;
      if (isModelError(error) && error.code === 'CONTEXT_OVERFLOW') {
        // The provider counts differently from our estimate: leave out the older half of what is left.
        if (fitted.droppableUnits === 0) {
          throw new CompactionFailure(`The summary request does not fit the context window: ${lastError}`, 'SUMMARY_DOES_NOT_FIT');
        }
        minDrop = fitted.droppedUnits + Math.max(1, Math.ceil(fitted.droppableUnits / 2));
        continue;
      }
    }
    if (attempt < settings.attempts) await context.sleep(backoffDelay(settings.retryBaseDelayMs, attempt), context.signal);
  }
  if (summary === null) {
    throw new CompactionFailure(
      `The summary request failed ${settings.attempts} time${settings.attempts === 1 ? '' : 's'}: ${lastError}`,
      'SUMMARY_FAILED',
    );
  }

  const compactionId = context.newCompactionId();
  const replaced = applySummaryCompaction(history, { compactionId, summary }, { userBudgetTokens: settings.userBudgetTokens });
  const estimateBefore = await context.counter.current(history);
  const estimateAfter = await context.counter.current(replaced);
  if (settings.rejectInflation && estimateAfter >= estimateBefore) {
    throw new CompactionFailure(
      `The summary would not shrink the history (about ${estimateAfter} tokens after versus ${estimateBefore} before), so it was not used.`,
      'SUMMARY_INFLATED',
    );
  }
  const itemsKept = countKeptItems(history, replaced);
  return {
    compactionId,
    summary,
    history: replaced,
    estimateBefore,
    estimateAfter,
    itemsRemoved: history.length - itemsKept,
    itemsKept,
    omittedItems,
    form,
    liveFallback,
  };
}

/**
 * One attempt at the live form. Returns the summary, or why the transcript form must be used: the
 * conversation and the instruction leave too little of the window for the summary, the provider
 * refused or failed (a summary cut off at the cap included), the model called a tool anyway (it
 * was told not to, and the call is never run), or it answered nothing. Cancellation is rethrown.
 *
 * The fit is judged on the whole window, not on the transcript form's input budget (window minus
 * an output reserve of up to 8,192 tokens or a quarter of the window): the conversation is already
 * over the compaction threshold, which at the default 85 % leaves less than that reserve in any
 * window under about 55,000 tokens (32,000: 4,800), and with the 10 % margin of a whole-request
 * estimate on top the live form never fit a 128,000-token window either. What it needs is room for
 * the answer, and the request says so with its output cap.
 */
async function tryLiveSummary(
  context: SummarizerContext,
  live: ModelRequest,
  instructions: string,
  settings: SummarizerSettings,
): Promise<{ summary: string; reason: null } | { summary: null; reason: string }> {
  const conversation = context.liveRequestTokens ?? estimateRequestTokens(live);
  const input = conversation + estimateRequestTokens({ model: live.model, messages: [{ role: 'user', content: instructions }] });
  const room = settings.contextWindow - input;
  if (room < Math.min(LIVE_SUMMARY_MIN_ROOM_TOKENS, summaryOutputCap(settings))) {
    return {
      summary: null,
      reason: `the conversation with the summary instruction (about ${input} tokens) leaves ${Math.max(0, room)} of the ${settings.contextWindow}-token window for the summary`,
    };
  }
  // Capped only where the room is the tighter limit: elsewhere the request goes out as the rounds do.
  const cap = live.maxOutputTokens ?? settings.maxOutputTokens;
  const request = buildLiveSummaryRequest(live, instructions, room < cap ? room : live.maxOutputTokens);
  try {
    const response = await callModel(context, request);
    if (response.toolCalls.length > 0) {
      return { summary: null, reason: `the model called ${response.toolCalls.map((call) => call.name).join(', ')} instead of summarizing` };
    }
    const text = cleanSummary(response.text);
    if (text === '') return { summary: null, reason: 'the model returned an empty summary' };
    return { summary: text, reason: null };
  } catch (error) {
    if (context.signal.aborted || (isModelError(error) && error.code === 'ABORTED')) throw error;
    return { summary: null, reason: `the provider answered: ${(error as Error).message}` };
  }
}

/** Resolves after `ms`, or rejects promptly when the signal aborts. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
