import { addUsage, emptyUsage, type Usage } from '../model/index.js';
import type { StagedUsage, UsageStage } from './run-events.js';

/** Sums every model call of a run, overall and per stage (turn, compaction…). */
export class UsageTracker {
  private total: Usage = emptyUsage();
  private readonly byStage: Partial<Record<UsageStage, Usage>> = {};
  private calls = 0;

  add(stage: UsageStage, usage: Usage | null): void {
    this.calls += 1;
    if (!usage) return;
    this.total = addUsage(this.total, usage);
    this.byStage[stage] = addUsage(this.byStage[stage] ?? emptyUsage(), usage);
  }

  snapshot(): StagedUsage {
    return { total: { ...this.total }, byStage: { ...this.byStage }, calls: this.calls };
  }

  get totalTokens(): number {
    return this.total.totalTokens;
  }
}
