// Reading a stored session back for the screen: the transcript of its last turns (on resume and
// after /fork), the usage and cost so far, the prompts for the editor's history, the files its
// write tools touched, and, for /debug, the last model request rebuilt by replaying the session
// up to that call (session files store no requests; replay is deterministic).

import { oneLine } from '../terminal-text/index.js';
import { itemsToModelMessages, type ResponseItem } from '../agent/index.js';
import { cheapItemTokens, historyCompactedEvent } from '../compaction/index.js';
import type { ModelEntry, ModelMessage } from '../model/index.js';
import { skillContextCost, type SkillContextCost } from '../runner/index.js';
import { HistoryReplay, type SessionRecord, type SessionStore } from '../sessions/index.js';
import type { SessionMeter } from './session-meter.js';
import { addEntry, emptyTranscript, reduceRunEvent, type TranscriptState } from './transcript-state.js';
import { argumentsObject, writtenPaths } from '../views/index.js';

/** Turns shown when a session is opened; older ones stay in the file (`glassbox sessions show`). */
export const SHOWN_TURNS = 3;

export interface LoadedSession {
  sessionId: string;
  turns: number;
  model: string;
  prompts: string[];
  writtenPaths: string[];
  transcript: TranscriptState;
}

/** The catalog entry (with config overrides) whose price applies to a call on `model`. */
export type EntryFor = (model: string) => Pick<ModelEntry, 'pricing'> | null;

/**
 * `entryFor`: each call is priced at the model its turn ran on (turn_started records it), not at
 * the one the session continues on: a session resumed on another model keeps what it cost.
 */
export async function loadSession(
  store: SessionStore,
  sessionId: string,
  meter: SessionMeter,
  epoch: number,
  entryFor: EntryFor,
): Promise<LoadedSession> {
  const { records, meta } = await store.read(sessionId);
  let turns = 0;
  for (const record of records) if (record.type === 'turn_started') turns = Math.max(turns, record.turn);
  const firstShown = Math.max(1, turns - SHOWN_TURNS + 1);
  let transcript = emptyTranscript(epoch);
  if (firstShown > 1) {
    transcript = addEntry(transcript, {
      kind: 'notice',
      tone: 'info',
      text: `… ${firstShown - 1} earlier turn${firstShown === 2 ? '' : 's'} not shown (glassbox sessions show ${sessionId})`,
    });
  }
  const prompts: string[] = [];
  const paths = new Set<string>();
  let model = meta.model;
  const outputs = new Map<string, Extract<ResponseItem, { type: 'function_call_output' }>>();
  for (const record of records)
    if (record.type === 'response_item' && record.item.type === 'function_call_output') outputs.set(record.item.callId, record.item);
  meter.reset();
  let measured = false;
  // Turns whose calls are listed; the others (a fork's copied turns) count by their totals.
  const called = new Set<number>();
  for (const record of records) {
    if ((record.type === 'turn_completed' || record.type === 'turn_failed' || record.type === 'turn_cancelled') && !called.has(record.turn))
      meter.addCarried(record.usage.total, entryFor(model));
    if (record.type === 'model_call') {
      called.add(record.turn);
      meter.addCall(record.usage, record.stage, entryFor(model));
      if (record.stage === 'turn' && record.usage !== null) measured = true;
    }
    if (record.type === 'compaction') meter.compacted(record.tokensAfter);
    if (record.type === 'turn_started') {
      prompts.push(record.prompt);
      model = record.model;
    }
    if (record.type === 'response_item' && record.item.type === 'function_call') {
      for (const path of writtenPaths(record.item.name, argumentsObject(record.item.arguments))) paths.add(path);
    }
    if (!('turn' in record) || record.turn === null || record.turn < firstShown) continue;
    transcript = replayForScreen(transcript, record, outputs);
  }
  // A fork copies the history but no model calls: until its first call, the meter shows what the
  // parent measured for the same history, or failing that an estimate of it, rather than 0.
  if (!measured && turns > 0) meter.estimated((await forkParentContext(store, meta.parent)) ?? estimateHistoryTokens(records));
  return { sessionId, turns, model, prompts, writtenPaths: [...paths], transcript };
}

/**
 * The context the parent had at the end of the forked turn: its last turn-stage call's input +
 * output up to that turn (tool definitions included, which an estimate of the history lacks), or
 * what a later compaction in those turns left. Null when the parent is gone or never measured it.
 */
export async function forkParentContext(store: SessionStore, parent: { sessionId: string; atTurn: number } | null): Promise<number | null> {
  if (parent === null || parent.atTurn === 0) return null;
  const records = await store
    .read(parent.sessionId)
    .then((read) => read.records)
    .catch(() => null);
  if (records === null) return null;
  let tokens: number | null = null;
  for (const record of records) {
    if (record.type === 'model_call' && record.stage === 'turn' && record.usage !== null && record.turn <= parent.atTurn)
      tokens = record.usage.inputTokens + record.usage.outputTokens;
    if (record.type === 'compaction' && record.turn !== null && record.turn <= parent.atTurn) tokens = record.tokensAfter;
  }
  return tokens;
}

/** What skills cost in the history the next request would carry (compactions applied). */
export async function sessionSkillCost(store: SessionStore, sessionId: string): Promise<SkillContextCost> {
  const { records } = await store.read(sessionId);
  const replay = new HistoryReplay();
  for (const record of records) replay.add(record);
  return skillContextCost(replay.finish().history);
}

/** The history the next request would carry (compactions applied), estimated at chars/4 per item. */
export function estimateHistoryTokens(records: readonly SessionRecord[]): number {
  const replay = new HistoryReplay();
  for (const record of records) replay.add(record);
  return replay.finish().history.reduce((sum, item) => sum + cheapItemTokens(item), 0);
}

function replayForScreen(
  state: TranscriptState,
  record: SessionRecord,
  outputs: Map<string, Extract<ResponseItem, { type: 'function_call_output' }>>,
): TranscriptState {
  switch (record.type) {
    case 'turn_started':
      return addEntry(state, { kind: 'user', text: record.prompt });
    case 'response_item': {
      const item = record.item;
      if (item.type === 'message' && item.role === 'assistant') {
        return reduceRunEvent(reduceRunEvent(state, { type: 'assistant_delta', round: 0, delta: item.content }), {
          type: 'model_completed',
          round: 0,
          stage: 'turn',
          usage: null,
          finishReason: 'stop',
          durationMs: 0,
        });
      }
      if (item.type === 'function_call') {
        const output = outputs.get(item.callId);
        const requested = reduceRunEvent(state, {
          type: 'tool_requested',
          round: 0,
          callId: item.callId,
          name: item.name,
          arguments: item.arguments,
        });
        return reduceRunEvent(requested, {
          type: 'tool_finished',
          callId: item.callId,
          name: item.name,
          isError: output?.isError ?? true,
          output: output?.output ?? '(no output recorded)',
          durationMs: 0,
        });
      }
      return state;
    }
    case 'compaction':
      return reduceRunEvent(state, historyCompactedEvent(record));
    case 'turn_failed':
      return addEntry(withPartialText(state, record.partialText), {
        kind: 'notice',
        tone: 'error',
        text: `turn ${record.turn} failed [${record.error.code}]: ${oneLine(record.error.message, 600)}`,
      });
    case 'turn_cancelled':
      return addEntry(withPartialText(state, record.partialText), {
        kind: 'notice',
        tone: 'warning',
        text: `turn ${record.turn} was cancelled`,
      });
    default:
      return state;
  }
}

export interface LastRequest {
  turn: number;
  round: number;
  model: string;
  messages: ModelMessage[];
}

/** The last turn-stage model request of the session, as it was sent; null before any call. */
export async function lastRequest(store: SessionStore, sessionId: string): Promise<LastRequest | null> {
  const { records } = await store.read(sessionId);
  let last = -1;
  records.forEach((record, index) => {
    if (record.type === 'model_call' && record.stage === 'turn') last = index;
  });
  if (last === -1) return null;
  const replay = new HistoryReplay();
  let model = '';
  for (const record of records.slice(0, last)) {
    if (record.type === 'turn_started') model = record.model;
    replay.add(record);
  }
  const call = records[last] as Extract<SessionRecord, { type: 'model_call' }>;
  return { turn: call.turn, round: call.round, model, messages: itemsToModelMessages(replay.finish().history) };
}

/** A cancelled or failed turn's streamed, uncommitted answer: shown as it was seen, said to be unsent. */
function withPartialText(state: TranscriptState, text: string | undefined): TranscriptState {
  if (text === undefined || text.trim() === '') return state;
  return addEntry(state, { kind: 'notice', tone: 'info', text: `(not sent) ${oneLine(text, 400)}` });
}
