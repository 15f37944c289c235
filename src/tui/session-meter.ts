// The numbers on the status line: how full the context is against the window and the automatic
// compaction threshold, and what the session has used and cost so far. Fed the same model-call
// usage the session file records (`model_call` records on resume, `model_completed` events
// live), and priced per call with the catalog's `estimateCost`, because tiered prices apply per
// request, not to a sum.

import type { UsageStage } from '../agent/index.js';
import { estimateCost, type ModelEntry, type Usage } from '../model/index.js';

export interface MeterLimits {
  /** What a request may hold (the input limit when smaller than the window): the one denominator. */
  window: number;
  threshold: number;
  /** The catalog entry (with config overrides) whose price applies; null: unknown. */
  entry: Pick<ModelEntry, 'pricing'> | null;
}

export interface MeterReading {
  /** Tokens in context after the last call: its input plus its output; null before any call. */
  contextTokens: number | null;
  /** `contextTokens` is an estimate of the history (a fork: no call of its own has measured it yet). */
  contextEstimated: boolean;
  sessionTokens: number;
  /** USD; null when no call so far had a known price. */
  cost: number | null;
  /** Some calls had no price (unknown model, or no usage reported). */
  costPartial: boolean;
  calls: number;
}

export class SessionMeter {
  private reading: MeterReading = {
    contextTokens: null,
    contextEstimated: false,
    sessionTokens: 0,
    cost: null,
    costPartial: false,
    calls: 0,
  };

  constructor(private limits: MeterLimits | null = null) {}

  setLimits(limits: MeterLimits | null): void {
    this.limits = limits;
  }

  getLimits(): MeterLimits | null {
    return this.limits;
  }

  reset(): void {
    this.reading = { contextTokens: null, contextEstimated: false, sessionTokens: 0, cost: null, costPartial: false, calls: 0 };
  }

  /** One model call; `stage` turn calls also say how full the context is. */
  addCall(usage: Usage | null, stage: UsageStage, entry: Pick<ModelEntry, 'pricing'> | null = this.limits?.entry ?? null): void {
    const r = { ...this.reading, calls: this.reading.calls + 1 };
    if (usage === null) {
      r.costPartial = true;
    } else {
      r.sessionTokens += usage.totalTokens;
      if (stage === 'turn') {
        r.contextTokens = usage.inputTokens + usage.outputTokens;
        r.contextEstimated = false;
      }
      const cost = entry === null ? null : estimateCost(usage, entry);
      if (cost === null) r.costPartial = true;
      else r.cost = (r.cost ?? 0) + cost.total;
    }
    this.reading = r;
  }

  /**
   * What a turn used whose calls this session file does not list (a fork copies its parent's
   * turns with their totals, not their calls): counted in the session's tokens and cost, as the
   * session list counts them, but not as calls, and priced as one request (a tiered price may
   * then differ from the parent's by the tier).
   */
  addCarried(usage: Usage, entry: Pick<ModelEntry, 'pricing'> | null): void {
    const r = { ...this.reading, sessionTokens: this.reading.sessionTokens + usage.totalTokens };
    const cost = entry === null ? null : estimateCost(usage, entry);
    if (cost === null) r.costPartial = true;
    else r.cost = (r.cost ?? 0) + cost.total;
    this.reading = r;
  }

  /** After a compaction the context holds what the compaction left. */
  compacted(tokensAfter: number): void {
    this.reading = { ...this.reading, contextTokens: tokensAfter, contextEstimated: false };
  }

  /** A history no model call has measured (a fresh fork): its estimated size, shown with `~`. */
  estimated(tokens: number): void {
    this.reading = { ...this.reading, contextTokens: tokens, contextEstimated: true };
  }

  read(): MeterReading {
    return this.reading;
  }
}

export function compactNumber(value: number): string {
  if (value < 1000) return String(value);
  if (value < 10_000) return `${(value / 1000).toFixed(1)}k`;
  if (value < 1_000_000) return `${Math.round(value / 1000)}k`;
  return `${(value / 1_000_000).toFixed(value < 10_000_000 ? 2 : 1)}M`;
}

export function formatCost(cost: number | null, partial: boolean): string {
  if (cost === null) return partial ? 'cost n/a' : '$0.00';
  const text = cost < 0.01 ? `$${cost.toFixed(4)}` : cost < 100 ? `$${cost.toFixed(2)}` : `$${Math.round(cost)}`;
  return partial ? `≥${text}` : text;
}

/**
 * `context 12k/272k (4%) · compacts at 231k (85%)`: every number against one denominator, what a
 * request may hold, so the meter, /status and the threshold agree.
 */
export function contextText(reading: MeterReading, limits: MeterLimits | null): string {
  const about = reading.contextEstimated ? '~' : '';
  if (limits === null) return reading.contextTokens === null ? 'context –' : `context ${about}${compactNumber(reading.contextTokens)}`;
  const used = reading.contextTokens ?? 0;
  const head = `context ${about}${compactNumber(used)}/${compactNumber(limits.window)} (${sharePercent(used, limits.window)}%)`;
  if (used >= limits.threshold) return `${head} · compacts next turn`;
  return `${head} · compacts at ${compactNumber(limits.threshold)} (${sharePercent(limits.threshold, limits.window)}%)`;
}

function sharePercent(part: number, whole: number): number {
  return Math.round((part * 100) / whole);
}

/** The /status line: where automatic compaction starts, against the same denominator as the meter. */
export function compactionText(limits: MeterLimits | null): string {
  if (limits === null) return 'unknown window';
  return `automatic at ${compactNumber(limits.threshold)} tokens (${sharePercent(limits.threshold, limits.window)}% of ${compactNumber(limits.window)})`;
}
