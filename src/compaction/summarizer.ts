// Asking the model for a summary, with the guards a production loop needs: a transcript that does
// not fit is cut from the oldest end (whole exchanges only), failures are retried with backoff,
// and a summary that would not shrink the history is refused rather than installed.

import { isModelError, type ModelGateway, type ModelResponse, type Usage } from '../model/index.js';
import type { ModelCallRecord, ResponseItem, RunEvent } from '../agent/index.js';
import { applySummaryCompaction, countKeptItems } from './apply-compaction.js';
import { fitSummaryRequest, summaryInstructions, type SummaryRequest } from './summary-request.js';
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
}

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
}

/** Output reserve when fitting the summarizer's input: summaries are short, windows may be small. */
function outputReserve(settings: SummarizerSettings): number {
  return Math.min(settings.maxOutputTokens, 8_192, Math.floor(settings.contextWindow / 4));
}

export function backoffDelay(baseMs: number, attempt: number): number {
  return baseMs * 2 ** (attempt - 1);
}

async function callModel(context: SummarizerContext, fitted: SummaryRequest): Promise<ModelResponse> {
  const { request } = fitted;
  context.emit({ type: 'model_requested', round: context.round, stage: 'compaction', messageCount: request.messages.length, toolCount: 0 });
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
  const maxInput = settings.contextWindow - outputReserve(settings);
  const input = { model: settings.model, history, instructions, clipChars: settings.clipChars };
  let minDrop = 0;
  let lastError = 'no attempt was made';
  let summary: string | null = null;
  let omittedItems = 0;
  for (let attempt = 1; attempt <= settings.attempts && summary === null; attempt += 1) {
    const fitted = fitSummaryRequest(input, maxInput, minDrop);
    if (fitted === null) {
      throw new CompactionFailure(
        `The summary request does not fit the ${settings.contextWindow}-token context window even with only the most recent exchange.`,
        'SUMMARY_DOES_NOT_FIT',
      );
    }
    try {
      const response = await callModel(context, fitted);
      const text = response.text.trim();
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
  };
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
