// The model-visible history is never stored as such: it is derived from the records, the same way
// every time, so a resumed or forked session sends the model byte-identical history.

import { addUsage, emptyUsage } from '../model/index.js';
import type { FunctionCallOutputItem, ResponseItem, StagedUsage } from '../agent/index.js';
import { applyCompactionRecord, COMPACTION_DISABLED_WARNING } from '../compaction/index.js';
import { repairOrphans, RoundPairing, type OrphanCall } from './call-pairing.js';
import type { SessionRecord } from './session-records.js';

export { INTERRUPTED_CALL_OUTPUT, interruptedCallOutput, repairOrphans, type OrphanCall, type OrphanRepair } from './call-pairing.js';

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
  /**
   * The last turn started: its run and how many items it recorded. A team worker that takes over an
   * interrupted run continues this turn instead of starting another (`TurnRequest.continueRun`).
   */
  lastTurn: { turn: number; runId: string; items: number } | null;
}

/**
 * Replay as an accumulator, for callers that stream records (`SessionStore.scan`) instead of
 * holding them all. `replaySession` is this over an array; there is no other replay logic.
 */
export class HistoryReplay {
  private readonly pairing = new RoundPairing();
  private readonly persisted = new Map<string, FunctionCallOutputItem>();
  /** Repairs made up at a compaction point; reported with the final ones so they get persisted. */
  private readonly earlierOrphans: OrphanCall[] = [];
  private readonly earlierAdded: FunctionCallOutputItem[] = [];
  private turns = 0;
  /** The current turn's user messages as they stand in the history (dropped if its prompt was blocked). */
  private turnPrompts: ResponseItem[] = [];
  private lastTurn: { turn: number; runId: string; items: number } | null = null;
  private autoCompactionDisabled = false;
  private readonly usage: StagedUsage = { total: emptyUsage(), byStage: {}, calls: 0 };

  add(record: SessionRecord): void {
    switch (record.type) {
      case 'response_item':
        if (record.repaired === true && record.item.type === 'function_call_output') {
          this.persisted.set(record.item.callId, record.item);
        } else {
          this.pairing.append(record.item, record.turn);
        }
        if (this.lastTurn !== null && record.turn === this.lastTurn.turn) this.lastTurn.items += 1;
        if (record.item.type === 'message' && record.item.role === 'user') this.turnPrompts.push(this.pairing.history.at(-1)!);
        break;
      case 'turn_started':
        if (record.turn > this.turns) this.turns = record.turn;
        this.lastTurn = { turn: record.turn, runId: record.runId, items: 0 };
        this.turnPrompts = [];
        break;
      case 'turn_failed':
        // A prompt a UserPromptSubmit hook blocked stays in the file for the audit, and out of what
        // the model is sent from now on (Claude Code erases it too). Nothing else of the turn was
        // recorded: the hooks run before the first model call.
        if (record.error.code === 'PROMPT_BLOCKED' && this.turnPrompts.length > 0) {
          const blocked = new Set(this.turnPrompts);
          const kept = this.pairing.history.filter((item) => !blocked.has(item));
          this.pairing.history.length = 0;
          this.pairing.history.push(...kept);
        }
        this.turnPrompts = [];
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
        const repair = repairOrphans(this.pairing.history, this.persisted, this.pairing.turnOf);
        this.earlierOrphans.push(...repair.orphans);
        this.earlierAdded.push(...repair.added);
        // Every call so far is answered now, so the persisted repairs are spent; one must not
        // answer a later call that reuses the id after a summary dropped the first.
        for (const item of this.pairing.history) if (item.type === 'function_call') this.persisted.delete(item.callId);
        this.pairing.reset(applyCompactionRecord(repair.history, record));
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
    const repair = repairOrphans(this.pairing.history, this.persisted, this.pairing.turnOf);
    const usage: StagedUsage = { total: { ...this.usage.total }, byStage: { ...this.usage.byStage }, calls: this.usage.calls };
    return {
      history: repair.history,
      orphans: [...this.earlierOrphans, ...repair.orphans],
      added: [...this.earlierAdded, ...repair.added],
      turns: this.turns,
      usage,
      autoCompactionDisabled: this.autoCompactionDisabled,
      lastTurn: this.lastTurn === null ? null : { ...this.lastTurn },
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
