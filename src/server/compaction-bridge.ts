// The server's view of compaction: the context window and threshold the chart draws, a token
// estimate for calls without reported usage, and manual compaction of a session. Settings are
// parsed once at start so a bad `--compact-at` is an error before the server listens.

import type { ResponseItem } from '../agent/index.js';
import * as runnerModule from '../runner/index.js';
import type { Runner } from '../runner/index.js';
import { compactAtTokens, DEFAULT_COMPACT_AT, parseCompactAt, parseContextWindow, type CompactAt } from '../compaction/compact-at.js';
import { lookupModelLimits } from '../compaction/model-catalog.js';
import { cheapItemTokens } from '../compaction/token-count.js';
import { HttpError } from './http-error.js';
import type { ContextLimits } from './session-inspection.js';

export interface ModelLimitsView {
  contextWindow: number;
  maxOutputTokens: number;
}

type CompactSession = (options: { runner: Runner; sessionId: string; instructions?: string }) => Promise<unknown>;

export class CompactionBridge {
  private readonly compactAt: CompactAt;
  private readonly contextWindow: number | null;

  /** Throws (with exitCode 2) when a setting cannot be parsed. */
  constructor(settings: { compactAt?: string; contextWindow?: string }) {
    this.compactAt = settings.compactAt === undefined ? DEFAULT_COMPACT_AT : parseCompactAt(settings.compactAt);
    this.contextWindow = settings.contextWindow === undefined ? null : parseContextWindow(settings.contextWindow);
  }

  /** A run's `compactAt`, checked; a problem is the caller's (400). */
  static checkCompactAt(value: string): string | null {
    try {
      parseCompactAt(value, 'compactAt');
      return null;
    } catch (error) {
      return (error as Error).message;
    }
  }

  modelLimits(model: string): ModelLimitsView {
    const { limits } = lookupModelLimits(model);
    return { contextWindow: this.contextWindow ?? limits.contextWindow, maxOutputTokens: limits.maxOutputTokens };
  }

  limitsFor(model: string): ContextLimits {
    const window = this.modelLimits(model).contextWindow;
    return { window, threshold: compactAtTokens(this.compactAt, window) };
  }

  estimate(items: readonly ResponseItem[]): number {
    let total = 0;
    for (const item of items) total += cheapItemTokens(item);
    return total;
  }

  /** Compact a session now. The runner module provides `compactSession` once compaction is built in. */
  async compact(runner: Runner, sessionId: string, instructions: string | undefined): Promise<unknown> {
    const compactSession = (runnerModule as Record<string, unknown>).compactSession;
    if (typeof compactSession !== 'function') throw new HttpError(409, 'this build of glassbox cannot compact sessions yet');
    return (compactSession as CompactSession)({ runner, sessionId, ...(instructions === undefined ? {} : { instructions }) });
  }
}
