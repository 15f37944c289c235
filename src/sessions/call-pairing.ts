// How replay pairs tool outputs with their calls. A provider may reuse call ids (`call_1` in every
// response, the same id twice in one response, an empty id), and sessions written before Glassbox
// replaced such ids hold them as sent. Pairing by id across the whole history then answers the
// wrong call and rebuilds a history the provider rejects on every later turn. So pairing happens
// within a round (a batch of calls, with any reasoning and text between them, and the outputs
// directly after it), and a call
// whose id is already taken in the history is renamed here exactly as the loop renames it live.

import { CallIdAllocator, type FunctionCallItem, type FunctionCallOutputItem, isAssistantSide, type ResponseItem } from '../agent/index.js';

export interface OrphanCall {
  callId: string;
  name: string;
  /** The turn the call was made in (null when the history came without turns). */
  turn: number | null;
}

/** What the model reads for a call that never got its output. The code matches tool errors. */
export const INTERRUPTED_CALL_OUTPUT =
  'Error [INTERRUPTED]: This tool call was interrupted before it produced any output (the session stopped while it was pending). Whether it took effect is unknown; check before repeating it.';

export function interruptedCallOutput(call: { callId: string; name: string }): FunctionCallOutputItem {
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
 * Give every `function_call` that its round leaves unanswered a synthetic error output. A round is
 * a batch of calls (with the reasoning and text between them) and the outputs directly after it; outputs pair with the batch's
 * calls by id, in order, so an id used twice in a batch still pairs one to one. Providers reject a
 * call that is not answered before the next message, so the made-up output goes right after the
 * round, before anything else. `persisted` holds repairs already appended to the session, by call
 * id; they are reused so replaying after a resume gives the same history.
 */
export function repairOrphans(
  history: readonly ResponseItem[],
  persisted: ReadonlyMap<string, FunctionCallOutputItem> = new Map(),
  turnOf: (call: FunctionCallItem) => number | undefined = () => undefined,
): OrphanRepair {
  const repaired: ResponseItem[] = [];
  const orphans: OrphanCall[] = [];
  const added: FunctionCallOutputItem[] = [];
  let index = 0;
  while (index < history.length) {
    const item = history[index]!;
    if (item.type !== 'function_call') {
      repaired.push(item);
      index += 1;
      continue;
    }
    const batchEnd = lastCallOfBatch(history, index);
    let runEnd = batchEnd;
    while (runEnd + 1 < history.length && history[runEnd + 1]!.type === 'function_call_output') runEnd += 1;
    for (let position = index; position <= runEnd; position += 1) repaired.push(history[position]!);
    if (answeredInOrder(history, index, batchEnd, runEnd)) {
      index = runEnd + 1;
      continue;
    }
    const answered = new Map<string, number>();
    for (let position = batchEnd + 1; position <= runEnd; position += 1) {
      const id = (history[position] as FunctionCallOutputItem).callId;
      answered.set(id, (answered.get(id) ?? 0) + 1);
    }
    for (let position = index; position <= batchEnd; position += 1) {
      const call = history[position]!;
      if (call.type !== 'function_call') continue;
      const count = answered.get(call.callId) ?? 0;
      if (count > 0) {
        answered.set(call.callId, count - 1);
        continue;
      }
      let output = persisted.get(call.callId);
      if (output === undefined) {
        output = interruptedCallOutput(call);
        orphans.push({ callId: call.callId, name: call.name, turn: turnOf(call) ?? null });
        added.push(output);
      }
      repaired.push(output);
    }
    index = runEnd + 1;
  }
  return { history: repaired, orphans, added };
}

/**
 * The last call of the batch starting at `first`: the calls of one round, with the reasoning and
 * text the provider put between them (interleaved thinking), up to its outputs.
 */
function lastCallOfBatch(history: readonly ResponseItem[], first: number): number {
  let last = first;
  for (let position = first + 1; position < history.length; position += 1) {
    const item = history[position]!;
    if (item.type === 'function_call') last = position;
    else if (!isAssistantSide(item)) break;
  }
  return last;
}

/** The common case, checked without allocating: one output per call, in call order (as the loop commits). */
function answeredInOrder(history: readonly ResponseItem[], first: number, batchEnd: number, runEnd: number): boolean {
  let output = batchEnd + 1;
  for (let position = first; position <= batchEnd; position += 1) {
    const call = history[position]!;
    if (call.type !== 'function_call') continue;
    if (output > runEnd || call.callId !== (history[output] as FunctionCallOutputItem).callId) return false;
    output += 1;
  }
  return output === runEnd + 1;
}

/**
 * Builds the history from committed items one at a time, giving every call an id unique in the
 * history. Sessions written by the current loop already have unique ids and pass through as the
 * very same objects; in older sessions a colliding call is renamed (its id kept as
 * `providerCallId`) and the outputs of its round that carry the old id follow it, in order.
 * Renaming depends only on the items so far, so every replay of a file renames alike.
 */
export class RoundPairing {
  readonly history: ResponseItem[] = [];
  private ids = new CallIdAllocator();
  /** The current round's calls: recorded id → history ids still waiting for an output, in order. */
  private readonly waiting = new Map<string, string[]>();
  /** Whether the last item appended belongs to a round (a call, or an output right after one). */
  private inRound = false;
  /** Whether the round's outputs have begun (a call after them starts a new round). */
  private outputsStarted = false;
  private readonly turns = new WeakMap<ResponseItem, number>();

  append(item: ResponseItem, turn: number): void {
    if (item.type === 'function_call') {
      // Reasoning or text between two calls (interleaved thinking) keeps the round open.
      if (!this.inRound || this.outputsStarted) this.waiting.clear();
      this.outputsStarted = false;
      const id = this.ids.claim(item.callId);
      const call: FunctionCallItem =
        id === item.callId ? item : { ...item, callId: id, providerCallId: item.providerCallId ?? item.callId };
      const queue = this.waiting.get(item.callId);
      if (queue === undefined) this.waiting.set(item.callId, [id]);
      else queue.push(id);
      this.turns.set(call, turn);
      this.history.push(call);
      this.inRound = true;
      return;
    }
    if (item.type === 'function_call_output' && this.inRound) {
      this.outputsStarted = true;
      const id = this.waiting.get(item.callId)?.shift();
      this.history.push(id === undefined || id === item.callId ? item : { ...item, callId: id });
      return;
    }
    if (!(this.inRound && !this.outputsStarted && isAssistantSide(item))) this.inRound = false;
    this.history.push(item);
  }

  /** Start over from a compacted history: only ids still in it are taken. */
  reset(history: readonly ResponseItem[]): void {
    this.history.length = 0;
    this.history.push(...history);
    this.ids = new CallIdAllocator(history);
    this.waiting.clear();
    this.inRound = false;
    this.outputsStarted = false;
  }

  /** The turn a call was recorded in, for filing its repair. */
  turnOf = (call: FunctionCallItem): number | undefined => this.turns.get(call);
}
