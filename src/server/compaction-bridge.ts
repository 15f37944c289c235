// The server's view of compaction: the context window and threshold the chart and the model list
// show (resolved like a run resolves them: flags over `<home>/config.json` over the catalog), a
// token estimate for calls without reported usage, and manual compaction of a session.

import type { ResponseItem } from '../agent/index.js';
import {
  CompactionFailure,
  cheapItemTokens,
  parseCompactAt,
  parseContextWindow,
  readCompactionConfig,
  resolveCompactionSettings,
  type HistoryCompactedEvent,
} from '../compaction/index.js';
import type { ModelLimits } from '../model/index.js';
import { compactSession, type Runner } from '../runner/index.js';
import { HttpError } from './http-error.js';
import type { ContextLimits } from './session-inspection.js';

export interface CompactionBridgeSettings {
  home: string;
  compactAt?: string;
  contextWindow?: string;
}

export class CompactionBridge {
  /** Parses the flags now, so a bad `--compact-at` or `--context-window` fails before the server listens. */
  constructor(private readonly settings: CompactionBridgeSettings) {
    if (settings.compactAt !== undefined) parseCompactAt(settings.compactAt);
    if (settings.contextWindow !== undefined) parseContextWindow(settings.contextWindow);
  }

  /** A run's `compactAt`, checked; the problem is the caller's (400). */
  static checkCompactAt(value: string): string | null {
    try {
      parseCompactAt(value, 'compactAt');
      return null;
    } catch (error) {
      return (error as Error).message;
    }
  }

  private async resolve(model: string): Promise<{ limits: ModelLimits; threshold: number; inputWindow: number }> {
    // A config.json broken after start throws CompactionConfigError, which answers as a 409 with the reason.
    const resolved = resolveCompactionSettings({
      model,
      contextWindow: this.settings.contextWindow,
      compactAt: this.settings.compactAt,
      config: await readCompactionConfig(this.settings.home),
    });
    return { limits: resolved.limits, threshold: resolved.threshold, inputWindow: resolved.inputWindow };
  }

  async modelLimits(model: string): Promise<ModelLimits> {
    return (await this.resolve(model)).limits;
  }

  async limitsFor(model: string): Promise<ContextLimits> {
    // The same denominator as the terminal's meter: what one request may hold.
    const { threshold, inputWindow } = await this.resolve(model);
    return { window: inputWindow, threshold };
  }

  estimate(items: readonly ResponseItem[]): number {
    let total = 0;
    for (const item of items) total += cheapItemTokens(item);
    return total;
  }

  /** Compact a session now with the server's default model. Nothing to compact, or no usable summary, is a 409. */
  async compact(runner: Runner, sessionId: string, instructions: string | undefined, signal: AbortSignal): Promise<HistoryCompactedEvent> {
    try {
      return await compactSession({ runner, sessionId, signal, ...(instructions === undefined ? {} : { instructions }) });
    } catch (error) {
      if (error instanceof CompactionFailure) throw new HttpError(409, error.message);
      throw error;
    }
  }
}
