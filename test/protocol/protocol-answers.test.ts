// The protocol's schemas are true to what really crosses: every event of a real run (over the
// server's SSE stream) and every answer the server gives parses with protocol/'s schema, and
// parsing drops nothing (zod strips fields it does not know, so an answer with a field the
// schema lacks would come back different).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { z } from 'zod';
import {
  approvalListSchema,
  contextViewSchema,
  healthSchema,
  modelsInfoSchema,
  runEventSchema,
  runListSchema,
  sessionListSchema,
  sessionPageSchema,
} from '../../src/protocol/index.js';
import { eventsOf, readFrames, startHarness } from '../server/server-harness.js';

function assertExactly(schema: z.ZodType, value: unknown, what: string): void {
  const parsed = schema.safeParse(value);
  assert.ok(parsed.success, `${what}: ${parsed.success ? '' : JSON.stringify(parsed.error.issues)}\n${JSON.stringify(value)}`);
  assert.deepEqual(parsed.data, value, what);
}

describe('protocol schemas against the server', () => {
  test('a run with a tool call: every streamed event and every answer is a protocol shape, field for field', async (t) => {
    const h = await startHarness({
      script: [{ text: 'Let me look.', toolCalls: [{ name: 'read_file', arguments: { path: 'README.md' } }] }, { text: 'It is a sample.' }],
    });
    t.after(() => h.close());
    const response = await h.post('/api/runs', { prompt: 'What is this?', compactAt: 100_000 });
    assert.equal(response.status, 200);
    const events = eventsOf(await readFrames(response));
    assert.ok(events.some((entry) => entry.type === 'tool_finished'));
    assert.equal(events.at(-1)?.type, 'run_succeeded');
    for (const { type, event } of events) assertExactly(runEventSchema, event, `event ${type}`);

    const json = async (path: string): Promise<unknown> => {
      const answer = await h.api(path);
      assert.equal(answer.status, 200, path);
      return answer.json();
    };
    const sessionId = String(events[0]?.event.sessionId);
    assertExactly(healthSchema, await json('/api/health'), 'GET /api/health');
    assertExactly(modelsInfoSchema, await json('/api/models'), 'GET /api/models');
    assertExactly(runListSchema, await json('/api/runs'), 'GET /api/runs');
    assertExactly(approvalListSchema, await json('/api/approvals'), 'GET /api/approvals');
    assertExactly(sessionListSchema, await json('/api/sessions'), 'GET /api/sessions');
    const page = await json(`/api/sessions/${sessionId}`);
    assertExactly(sessionPageSchema, page, 'GET /api/sessions/:id');
    // The page holds every record type a turn writes, each checked by the record schemas.
    const types = new Set((page as { records: Array<{ record: { type: string } }> }).records.map((entry) => entry.record.type));
    for (const type of ['session_meta', 'turn_started', 'response_item', 'model_call', 'audit', 'turn_completed'])
      assert.ok(types.has(type), type);
    assertExactly(contextViewSchema, await json(`/api/sessions/${sessionId}/context`), 'GET /api/sessions/:id/context');
  });
});
