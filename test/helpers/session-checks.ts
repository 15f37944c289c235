// The checks a session must pass after a crash, whichever store holds it: the fault suite applies
// them to session files (test/faults/), the team tests to a PostgreSQL session a worker was killed
// in the middle of (test/team/team-server.test.ts). A session is checked as its JSONL text — the
// file itself, or the rows of the database store, which hold each line exactly — so both are held
// to the same rules: only appended to, every line a record, the replay equal to the history worked
// out here independently of src/sessions, each call answered once, and a resumed request sending
// exactly that history.

import assert from 'node:assert/strict';
import {
  COMPACTION_SUMMARY_PREFIX,
  COMPACTION_SUMMARY_SUFFIX,
  userMessage,
  type FunctionCallOutputItem,
  type ResponseItem,
} from '../../src/agent/index.js';
import { INTERRUPTED_CALL_OUTPUT, replaySession, resumeSession, type SessionStore } from '../../src/sessions/index.js';
import type { CapturedRequest } from '../../src/testing/index.js';
import { sentTranscript } from './sent-requests.js';

export interface SessionSnapshot {
  /** Where the session is, for messages: a file path, or the database store's name for it. */
  path: string;
  /** The whole text. */
  text: string;
  /** Up to and including the last newline: what readers use. */
  complete: string;
  tornTailBytes: number;
  records: Array<Record<string, unknown> & { type: string }>;
  /** Committed history items in order, repairs excluded. */
  items: ResponseItem[];
  /** Repair outputs already in the session, by call id. */
  repairs: Map<string, FunctionCallOutputItem>;
}

/**
 * A session's JSONL text, parsed byte-exactly. Every complete line must be a JSON record: a
 * corrupt line in the middle is exactly the damage the checks exist to rule out, so it fails here.
 */
export function snapshotOfText(path: string, text: string): SessionSnapshot {
  const end = text.lastIndexOf('\n') + 1;
  const complete = text.slice(0, end);
  const records: SessionSnapshot['records'] = [];
  const items: ResponseItem[] = [];
  const repairs = new Map<string, FunctionCallOutputItem>();
  const lines = complete.split('\n');
  lines.pop();
  lines.forEach((line, index) => {
    let record: Record<string, unknown> & { type: string };
    try {
      record = JSON.parse(line) as Record<string, unknown> & { type: string };
    } catch (error) {
      assert.fail(`${path}:${index + 1} is not a JSON record (${(error as Error).message}): ${line.slice(0, 200)}`);
    }
    records.push(record);
    if (record.type !== 'response_item') return;
    const item = record.item as ResponseItem;
    if (record.repaired === true && item.type === 'function_call_output') repairs.set(item.callId, item);
    else items.push(item);
  });
  return { path, text, complete, tornTailBytes: text.length - end, records, items, repairs };
}

/** The session only grew: everything a reader could see before is still there, byte for byte. */
export function assertAppendOnly(before: SessionSnapshot, after: SessionSnapshot): void {
  assert.ok(
    after.text.startsWith(before.complete),
    `${after.path}: the records that were in the session before are no longer its prefix (before: ${before.complete.length} bytes, after: ${after.text.length})`,
  );
}

/**
 * The history a resume must produce, worked out here independently of src/sessions: every call
 * without an output gets one (a persisted repair if there is one, else the interrupted output),
 * placed after its batch of calls and the outputs that directly follow that batch.
 */
export function expectedHistory(
  items: readonly ResponseItem[],
  repairs: ReadonlyMap<string, FunctionCallOutputItem> = new Map(),
): ResponseItem[] {
  const answered = new Set(items.filter((item) => item.type === 'function_call_output').map((item) => item.callId));
  const history: ResponseItem[] = [];
  let index = 0;
  while (index < items.length) {
    if (items[index]!.type !== 'function_call') {
      history.push(items[index]!);
      index += 1;
      continue;
    }
    const batch: Extract<ResponseItem, { type: 'function_call' }>[] = [];
    while (index < items.length && items[index]!.type === 'function_call') {
      batch.push(items[index] as Extract<ResponseItem, { type: 'function_call' }>);
      index += 1;
    }
    history.push(...batch);
    while (index < items.length && items[index]!.type === 'function_call_output') {
      history.push(items[index]!);
      index += 1;
    }
    for (const call of batch) {
      if (answered.has(call.callId)) continue;
      history.push(
        repairs.get(call.callId) ?? {
          type: 'function_call_output',
          callId: call.callId,
          name: call.name,
          output: INTERRUPTED_CALL_OUTPUT,
          isError: true,
        },
      );
    }
  }
  return history;
}

/** Calls in `items` that have no output. */
export function orphanCallIds(items: readonly ResponseItem[]): string[] {
  const answered = new Set(items.filter((item) => item.type === 'function_call_output').map((item) => item.callId));
  return items
    .filter((item) => item.type === 'function_call' && !answered.has(item.callId))
    .map((item) => (item as { callId: string }).callId);
}

/** Every call answered exactly once and no item twice: what a provider accepts. */
export function assertWellFormedHistory(history: readonly ResponseItem[], where: string): void {
  const calls = new Map<string, number>();
  const outputs = new Map<string, number>();
  for (const item of history) {
    if (item.type === 'function_call') calls.set(item.callId, (calls.get(item.callId) ?? 0) + 1);
    if (item.type === 'function_call_output') outputs.set(item.callId, (outputs.get(item.callId) ?? 0) + 1);
  }
  for (const [callId, count] of calls) {
    assert.equal(count, 1, `${where}: call ${callId} appears ${count} times`);
    assert.equal(outputs.get(callId), 1, `${where}: call ${callId} has ${outputs.get(callId) ?? 0} outputs`);
  }
  for (const callId of outputs.keys()) assert.ok(calls.has(callId), `${where}: output for unknown call ${callId}`);
}

/**
 * Read the session through `store`: no problem lines, and replay (the code under test) gives
 * exactly the history expected from `snapshot`, the same session's text. Returns that history.
 */
export async function assertStoreReplays(store: SessionStore, sessionId: string, snapshot: SessionSnapshot): Promise<ResponseItem[]> {
  const contents = await store.read(sessionId);
  assert.deepEqual(contents.problems, [], `${snapshot.path} has problem lines`);
  const replayed = replaySession(contents.records).history;
  // A compaction replaces part of the history by design, so only a session without one can be
  // checked against the raw items; with one, the replay must still answer every call.
  if (!snapshot.records.some((record) => record.type === 'compaction')) {
    const expected = expectedHistory(snapshot.items, snapshot.repairs);
    assert.deepEqual(replayed, expected, `${snapshot.path}: replay differs from the committed items`);
  }
  assertWellFormedHistory(replayed, snapshot.path);
  return replayed;
}

/**
 * What follows a resume of a session that had `orphans` (calls without an output) at `before`:
 * only appended to, one repair per orphan in call order right after the old records, and a second
 * resume finds nothing left to repair and leaves the session as it is (`read` gives its text).
 * Returns the records appended after the repairs.
 */
export async function assertRepairedOnce(
  store: SessionStore,
  sessionId: string,
  before: SessionSnapshot,
  after: SessionSnapshot,
  read: () => Promise<string>,
): Promise<SessionSnapshot['records']> {
  assertAppendOnly(before, after);
  const orphans = orphanCallIds(before.items);
  const added = after.records.slice(before.records.length);
  const repairs = added.filter((record) => record.type === 'response_item' && record.repaired === true);
  assert.deepEqual(
    repairs.map((record) => (record.item as { callId: string }).callId),
    orphans,
    'exactly one synthetic output per call left without one',
  );
  assert.deepEqual(added.slice(0, repairs.length), repairs, 'repairs come before what the resumed run added');
  const again = await resumeSession(store, sessionId);
  await again.writer.close();
  assert.deepEqual(again.repaired, [], 'a second resume had something left to repair');
  assert.equal(await read(), after.text, 'a second resume changed the session');
  return added.slice(repairs.length);
}

// ---------------------------------------------------------------------------------------------
// What the provider was sent

export type TranscriptEntry =
  | { kind: 'message'; role: string; text: string }
  | { kind: 'call'; callId: string; name: string; arguments: string }
  | { kind: 'output'; callId: string; text: string };

/** A captured request's conversation in a form every wire API shares. */
export function wireTranscript(request: CapturedRequest): TranscriptEntry[] {
  return sentTranscript(request).map((entry): TranscriptEntry => {
    if (entry.kind === 'message') return { kind: 'message', role: entry.role, text: entry.text };
    if (entry.kind === 'call') return { kind: 'call', callId: entry.callId, name: entry.name, arguments: entry.arguments };
    return { kind: 'output', callId: entry.callId, text: entry.text };
  });
}

/** The transcript history items should produce on the wire. */
export function itemTranscript(items: readonly ResponseItem[]): TranscriptEntry[] {
  return items.flatMap((item): TranscriptEntry[] => [entryOf(item)].filter((entry): entry is TranscriptEntry => entry !== null));
}

function entryOf(item: ResponseItem): TranscriptEntry | null {
  switch (item.type) {
    case 'reasoning':
      return null;
    case 'message':
      return { kind: 'message', role: item.role, text: item.content };
    case 'function_call':
      return { kind: 'call', callId: item.callId, name: item.name, arguments: item.arguments };
    case 'function_call_output':
      return { kind: 'output', callId: item.callId, text: item.output };
    case 'compaction_summary':
      return { kind: 'message', role: 'user', text: COMPACTION_SUMMARY_PREFIX + item.summary + COMPACTION_SUMMARY_SUFFIX };
  }
}

/**
 * Chat Completions sends consecutive messages of one role as one, joined by a blank line, for the
 * servers whose chat templates demand strict alternation (issue 23; convert-messages.ts).
 */
function mergedRoles(entries: readonly TranscriptEntry[]): TranscriptEntry[] {
  const out: TranscriptEntry[] = [];
  for (const entry of entries) {
    const last = out.at(-1);
    if (entry.kind === 'message' && last?.kind === 'message' && last.role === entry.role) {
      out[out.length - 1] = { ...last, text: `${last.text}\n\n${entry.text}` };
    } else {
      out.push(entry);
    }
  }
  return out;
}

/**
 * The request sent exactly `history` followed by the new prompt: nothing lost, nothing added.
 * `prompt` null: the request continues an interrupted turn (a takeover), so no new prompt follows.
 */
export function assertSentHistory(
  request: CapturedRequest | undefined,
  history: readonly ResponseItem[],
  prompt: string | null,
  where: string,
): void {
  assert.ok(request, `${where}: the provider received no request`);
  const expected = itemTranscript(prompt === null ? history : [...history, userMessage(prompt)]);
  assert.deepEqual(
    wireTranscript(request),
    request.wireApi === 'chat' ? mergedRoles(expected) : expected,
    `${where}: request #${request.index} did not send the session's history`,
  );
}
