// A resume reads the session once: the summary the writer appends to and the replay come from
// the same pass (a 20 MB session used to be parsed twice before its first request, issue 30).
// The oracle is JSON.parse itself, counted while a resume runs.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { JsonlSessionStore, MemorySessionStore, resumeSession, type SessionStore } from '../../src/sessions/index.js';
import { withTempDir } from '../helpers/temp-dir.js';

async function writeSession(store: SessionStore, dir: string, rounds: number): Promise<{ id: string; lines: number }> {
  const writer = await store.create({ cwd: dir, model: 'm', wireApi: 'chat', glassboxVersion: '0.0.0' });
  let lines = 1;
  const append = async (record: Parameters<typeof writer.append>[0]) => {
    await writer.append(record);
    lines += 1;
  };
  await append({
    type: 'turn_started',
    turn: 1,
    runId: 'r',
    prompt: 'p',
    policy: { approvalPolicy: 'on-request', sandbox: 'read-only' },
    model: 'm',
    wireApi: 'chat',
  });
  await append({ type: 'response_item', turn: 1, item: { type: 'message', role: 'user', content: 'p' } });
  for (let round = 0; round < rounds; round += 1) {
    const callId = `c${round}`;
    await append({ type: 'response_item', turn: 1, item: { type: 'function_call', callId, name: 'read_file', arguments: '{}' } });
    await append({ type: 'audit', turn: 1, event: { type: 'tool_started', callId, name: 'read_file' } });
    await append({
      type: 'response_item',
      turn: 1,
      item: { type: 'function_call_output', callId, name: 'read_file', output: `out ${round}`, isError: false },
    });
  }
  await writer.close();
  return { id: writer.sessionId, lines };
}

async function parsesDuring(work: () => Promise<void>): Promise<number> {
  const original = JSON.parse;
  let count = 0;
  JSON.parse = ((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
    count += 1;
    return original(text, reviver);
  }) as typeof JSON.parse;
  try {
    await work();
  } finally {
    JSON.parse = original;
  }
  return count;
}

test('resuming a JSONL session parses each of its lines at most once, and replays the same history as a plain scan', async () => {
  await withTempDir(async (dir) => {
    const store = new JsonlSessionStore(join(dir, 'sessions'));
    const { id, lines } = await writeSession(store, dir, 200);
    let history: unknown;
    const parses = await parsesDuring(async () => {
      const resumed = await resumeSession(store, id);
      history = resumed.history;
      await resumed.writer.close();
    });
    assert.ok(parses <= lines, `${parses} JSON.parse calls for ${lines} lines`);
    const again = await resumeSession(store, id);
    await again.writer.close();
    assert.deepEqual(again.history, history);
    assert.equal((history as unknown[]).length, 1 + 2 * 200);
  });
});

test('the memory store resumes to the same history', async () => {
  await withTempDir(async (dir) => {
    const store = new MemorySessionStore();
    const { id } = await writeSession(store, dir, 3);
    const resumed = await resumeSession(store, id);
    await resumed.writer.close();
    assert.equal(resumed.history.length, 7);
    assert.equal(resumed.turns, 1);
  });
});
