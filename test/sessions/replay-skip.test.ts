import assert from 'node:assert/strict';
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { HistoryReplay, JsonlSessionStore, REPLAY_SKIPPABLE_TYPES, type SessionRecord } from '../../src/sessions/index.js';
import { withTempDir } from '../helpers/temp-dir.js';

test('replay that skips audit lines by prefix gives the same history as a full parse, and never parses them', async () => {
  await withTempDir(async (dir) => {
    const store = new JsonlSessionStore(join(dir, 'sessions'));
    const writer = await store.create({ cwd: dir, model: 'm', wireApi: 'chat', glassboxVersion: '0.0.0' });
    await writer.append({
      type: 'turn_started',
      turn: 1,
      runId: 'r',
      prompt: 'p',
      policy: { approvalPolicy: 'on-request', sandbox: 'read-only' },
      model: 'm',
      wireApi: 'chat',
    });
    await writer.append({ type: 'response_item', turn: 1, item: { type: 'message', role: 'user', content: 'p' } });
    await writer.append({
      type: 'response_item',
      turn: 1,
      item: { type: 'function_call', callId: 'c1', name: 'read_file', arguments: '{}' },
    });
    await writer.append({ type: 'audit', turn: 1, event: { type: 'tool_started', callId: 'c1', name: 'read_file' } });
    await writer.append({
      type: 'response_item',
      turn: 1,
      item: { type: 'function_call_output', callId: 'c1', name: 'read_file', output: 'x', isError: false },
    });
    await writer.close();
    // A broken audit line: a full parse reports it; the skipping replay never looks inside it.
    await appendFile(store.sessionPath(writer.sessionId), '{"type":"audit", this is not json\n');

    const full = new HistoryReplay();
    const fullScan = await store.scan(writer.sessionId, (record: SessionRecord) => full.add(record));
    const skipping = new HistoryReplay();
    const seen: string[] = [];
    const skipScan = await store.scan(
      writer.sessionId,
      (record: SessionRecord) => {
        seen.push(record.type);
        skipping.add(record);
      },
      { skipTypes: REPLAY_SKIPPABLE_TYPES },
    );
    assert.deepEqual(skipping.finish().history, full.finish().history);
    assert.ok(!seen.includes('audit'));
    assert.equal(fullScan.problems.length, 1);
    assert.equal(skipScan.problems.length, 0);
  });
});
