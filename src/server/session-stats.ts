// Per-session figures for the session list: how the last turn ended, tokens (cached share
// included) and the estimated price. The summary index has only a token total, so each listed
// session is scanned once and the result kept until the session changes (its `updatedAt`).

import type { SessionStore, SessionSummary } from '../sessions/index.js';
import type { CallPricer } from './call-pricing.js';

import type { SessionStats } from '../protocol/index.js';

// The figures' shape is protocol/'s (the session list serves it); working them out is done here.
export type { SessionStats, SessionStatus } from '../protocol/index.js';

/** Sessions rarely change once listed; this bounds the memory a huge home could take. */
const MAX_CACHED = 2000;

export class SessionStatsCache {
  private readonly cache = new Map<string, { updatedAt: string; stats: SessionStats }>();

  async statsFor(store: SessionStore, summary: SessionSummary, pricer: CallPricer, running: boolean): Promise<SessionStats> {
    const cached = this.cache.get(summary.sessionId);
    let stats = cached !== undefined && cached.updatedAt === summary.updatedAt ? cached.stats : null;
    if (stats === null) {
      stats = await scanStats(store, summary.sessionId, pricer);
      this.cache.delete(summary.sessionId);
      this.cache.set(summary.sessionId, { updatedAt: summary.updatedAt, stats });
      if (this.cache.size > MAX_CACHED) this.cache.delete(this.cache.keys().next().value as string);
    }
    return running ? { ...stats, status: 'running' } : stats;
  }
}

async function scanStats(store: SessionStore, sessionId: string, pricer: CallPricer): Promise<SessionStats> {
  const stats: SessionStats = {
    status: 'empty',
    calls: 0,
    inputTokens: 0,
    cachedInputTokens: 0,
    outputTokens: 0,
    costUsd: null,
    unpricedCalls: 0,
  };
  let model = '';
  await store.scan(sessionId, (record) => {
    switch (record.type) {
      case 'session_meta':
        model = record.model;
        break;
      case 'turn_started':
        model = record.model;
        stats.status = 'incomplete';
        break;
      case 'turn_completed':
        stats.status = 'succeeded';
        break;
      case 'turn_failed':
        stats.status = 'failed';
        break;
      case 'turn_cancelled':
        stats.status = 'cancelled';
        break;
      case 'model_call': {
        stats.calls += 1;
        if (record.usage === null) break;
        stats.inputTokens += record.usage.inputTokens;
        stats.cachedInputTokens += record.usage.cachedInputTokens ?? 0;
        stats.outputTokens += record.usage.outputTokens;
        const cost = pricer(model, record.usage);
        if (cost.costUsd === null) stats.unpricedCalls += 1;
        else stats.costUsd = (stats.costUsd ?? 0) + cost.costUsd;
        break;
      }
      default:
        break;
    }
  });
  return stats;
}
