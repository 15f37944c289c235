// The model-visible history is never stored as such: it is derived from the records, the same way
// every time, so a resumed or forked session sends the model byte-identical history.

import { addUsage, emptyUsage } from '../model/index.js';
import type { FunctionCallOutputItem, ResponseItem, StagedUsage } from '../agent/index.js';
import { applyCompactionRecord, COMPACTION_DISABLED_WARNING } from '../compaction/index.js';
import type { SessionRecord } from './session-records.js';

export interface OrphanCall {
  callId: string;
  name: string;
}

/** What the model reads for a call that never got its output. The code matches tool errors. */
export const INTERRUPTED_CALL_OUTPUT =
  'Error [INTERRUPTED]: This tool call was interrupted before it produced any output (the session stopped while it was pending). Whether it took effect is unknown; check before repeating it.';

export function interruptedCallOutput(call: OrphanCall): FunctionCallOutputItem {
  return { type: 'function_call_output', callId: call.callId, name: call.name, output: INTERRUPTED_CALL_OUTPUT, isError: true };
}

export interface OrphanRepair {
  /** The history with an output after every call. */
  history: ResponseItem[];
  /** Calls whose output had to be made up now (not found among the persisted repairs). */
  orphans: OrphanCall[];
  /** The made-up outputs, in the order of `orphans`: what a resume must append. */
  added: FunctionCallOutputItem[];
}

/**
 * Give every `function_call` without a later `function_call_output` a synthetic error output.
 * Providers reject a tool call that is not answered before the next message, so the output goes
 * right after the call's batch (the run of consecutive calls it belongs to) and the outputs that
 * directly follow that batch, before anything else. `persisted` holds repairs already appended
 * to the session; they are reused so replaying after a resume gives the same history.
 */
export function repairOrphans(
  history: readonly ResponseItem[],
  persisted: ReadonlyMap<string, FunctionCallOutputItem> = new Map(),
): OrphanRepair {
  // Pair outputs with calls first-in first-out per call id; whatever stays open is orphaned.
  const open = new Map<string, number[]>();
  for (let index = 0; index < history.length; index += 1) {
    const item = history[index];
    if (item.type === 'function_call') {
      const waiting = open.get(item.callId);
      if (waiting === undefined) open.set(item.callId, [index]);
      else waiting.push(index);
    } else if (item.type === 'function_call_output') {
      const waiting = open.get(item.callId);
      if (waiting !== undefined) {
        waiting.shift();
        if (waiting.length === 0) open.delete(item.callId);
      }
    }
  }
  if (open.size === 0) return { history: history.slice(), orphans: [], added: [] };

  const orphaned = new Set<number>();
  for (const indexes of open.values()) for (const index of indexes) orphaned.add(index);

  const repaired: ResponseItem[] = [];
  const orphans: OrphanCall[] = [];
  const added: FunctionCallOutputItem[] = [];
  let index = 0;
  while (index < history.length) {
    if (history[index].type !== 'function_call') {
      repaired.push(history[index]);
      index += 1;
      continue;
    }
    let batchEnd = index;
    while (batchEnd + 1 < history.length && history[batchEnd + 1].type === 'function_call') batchEnd += 1;
    let runEnd = batchEnd;
    while (runEnd + 1 < history.length && history[runEnd + 1].type === 'function_call_output') runEnd += 1;
    for (let position = index; position <= runEnd; position += 1) repaired.push(history[position]);
    for (let position = index; position <= batchEnd; position += 1) {
      if (!orphaned.has(position)) continue;
      const call = history[position] as Extract<ResponseItem, { type: 'function_call' }>;
      let output = persisted.get(call.callId);
      if (output === undefined) {
        output = interruptedCallOutput(call);
        orphans.push({ callId: call.callId, name: call.name });
        added.push(output);
      }
      repaired.push(output);
    }
    index = runEnd + 1;
  }
  return { history: repaired, orphans, added };
}

export interface ReplayResult {
  history: ResponseItem[];
  /** Calls that were still unanswered and got a synthetic output that is not persisted yet. */
  orphans: OrphanCall[];
  /** Those synthetic outputs, in order: append them as `repaired` response_item records. */
  added: FunctionCallOutputItem[];
  /** Highest turn number started. */
  turns: number;
  /** Sum over the session's `model_call` records. */
  usage: StagedUsage;
  /** The compaction breaker tripped (a `COMPACTION_DISABLED` warning) after the last compaction. */
  autoCompactionDisabled: boolean;
}

/**
 * Replay as an accumulator, for callers that stream records (`SessionStore.scan`) instead of
 * holding them all. `replaySession` is this over an array; there is no other replay logic.
 */
export class HistoryReplay {
  private readonly history: ResponseItem[] = [];
  private readonly persisted = new Map<string, FunctionCallOutputItem>();
  /** Repairs made up at a compaction point; reported with the final ones so they get persisted. */
  private readonly earlierOrphans: OrphanCall[] = [];
  private readonly earlierAdded: FunctionCallOutputItem[] = [];
  private turns = 0;
  private autoCompactionDisabled = false;
  private readonly usage: StagedUsage = { total: emptyUsage(), byStage: {}, calls: 0 };

  add(record: SessionRecord): void {
    switch (record.type) {
      case 'response_item':
        if (record.repaired === true && record.item.type === 'function_call_output') {
          this.persisted.set(record.item.callId, record.item);
        } else {
          this.history.push(record.item);
        }
        break;
      case 'turn_started':
        if (record.turn > this.turns) this.turns = record.turn;
        break;
      case 'model_call':
        this.usage.calls += 1;
        if (record.usage !== null) {
          this.usage.total = addUsage(this.usage.total, record.usage);
          this.usage.byStage[record.stage] = addUsage(this.usage.byStage[record.stage] ?? emptyUsage(), record.usage);
        }
        break;
      case 'compaction': {
        // The live run compacted a history with every call answered (repairs included), so the
        // transform is re-applied to exactly that: repaired first, then compacted.
        const repair = repairOrphans(this.history, this.persisted);
        this.earlierOrphans.push(...repair.orphans);
        this.earlierAdded.push(...repair.added);
        const compacted = applyCompactionRecord(repair.history, record);
        this.history.length = 0;
        this.history.push(...compacted);
        // Any compaction that worked (a manual one in particular) re-arms the breaker.
        this.autoCompactionDisabled = false;
        break;
      }
      case 'warning':
        if (record.code === COMPACTION_DISABLED_WARNING) this.autoCompactionDisabled = true;
        break;
      default:
        break;
    }
  }

  finish(): ReplayResult {
    const repair = repairOrphans(this.history, this.persisted);
    const usage: StagedUsage = { total: { ...this.usage.total }, byStage: { ...this.usage.byStage }, calls: this.usage.calls };
    return {
      history: repair.history,
      orphans: [...this.earlierOrphans, ...repair.orphans],
      added: [...this.earlierAdded, ...repair.added],
      turns: this.turns,
      usage,
      autoCompactionDisabled: this.autoCompactionDisabled,
    };
  }
}

/**
 * Derive the history from a session's records. Pure, and cheap per record: replay of a long
 * session should cost about as much as parsing it.
 */
export function replaySession(records: Iterable<SessionRecord>): ReplayResult {
  const replay = new HistoryReplay();
  for (const record of records) replay.add(record);
  return replay.finish();
}
