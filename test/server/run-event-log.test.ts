import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { RunEvent } from '../../src/agent/index.js';
import { emptyUsage } from '../../src/model/index.js';
import { formatSseFrame, RunEventLog, type NumberedEvent } from '../../src/server/index.js';

const usage = { total: emptyUsage(), byStage: {}, calls: 0 };
const started: RunEvent = { type: 'run_started', sessionId: 's', runId: 'r', model: 'm', wireApi: 'chat', resumed: false };
const succeeded: RunEvent = { type: 'run_succeeded', answer: 'ok', usage, rounds: 1 };

function collect(log: RunEventLog, afterId: number): { events: NumberedEvent[]; ended: boolean; stop: () => void } {
  const result = { events: [] as NumberedEvent[], ended: false, stop: () => {} };
  result.stop = log.subscribe(afterId, { onEvent: (entry) => result.events.push(entry), onEnd: () => (result.ended = true) });
  return result;
}

/** A random run: run_started, then deltas (across rounds, including emoji and empty ones) and other events, then the end. */
const runEvents = fc
  .array(
    fc.oneof(
      fc
        .record({ round: fc.integer({ min: 1, max: 3 }), delta: fc.string({ unit: 'binary', maxLength: 8 }) })
        .map((d): RunEvent => ({ type: 'assistant_delta', ...d })),
      fc.constantFrom<RunEvent>(
        { type: 'model_requested', round: 1, stage: 'turn', messageCount: 2, toolCount: 3 },
        { type: 'warning', code: 'W', message: 'careful' },
        { type: 'tool_started', callId: 'c1', name: 'read_file' },
      ),
    ),
    { maxLength: 60 },
  )
  .map((middle) => [started, ...middle, succeeded]);

describe('RunEventLog', () => {
  test('numbers events 1..n and replays exactly what came after any id, deltas included', () => {
    fc.assert(
      fc.property(runEvents, fc.integer({ min: 0, max: 70 }), fc.integer({ min: 0, max: 200 }), (events, cut, cap) => {
        const log = new RunEventLog(cap);
        const live = collect(log, 0);
        events.forEach((event) => log.append(event));
        assert.deepEqual(
          live.events.map((e) => e.id),
          events.map((_, index) => index + 1),
        );
        assert.deepEqual(
          live.events.map((e) => e.event),
          events,
        );
        assert.equal(live.ended, true);
        const after = Math.min(cut, events.length);
        const replay = collect(log, after);
        assert.equal(replay.ended, true);
        assert.deepEqual(
          replay.events.map((e) => e.id),
          events.slice(after).map((_, index) => after + index + 1),
        );
        // Within the cap, replay is exact; past it, deltas keep their place but lose their text.
        let kept = 0;
        const expected = events.map((event) => {
          if (event.type !== 'assistant_delta') return event;
          if (kept + event.delta.length > cap) return { ...event, delta: '' };
          kept += event.delta.length;
          return event;
        });
        assert.deepEqual(
          replay.events.map((e) => e.event),
          expected.slice(after),
        );
      }),
      { numRuns: 300, seed: 7 },
    );
  });

  test('consecutive deltas of a round are stored as one entry', () => {
    const log = new RunEventLog();
    log.append(started);
    for (let index = 0; index < 1000; index += 1) log.append({ type: 'assistant_delta', round: 1, delta: `d${index} ` });
    log.append({ type: 'model_completed', round: 1, stage: 'turn', usage: null, finishReason: 'stop', durationMs: 1 });
    for (let index = 0; index < 500; index += 1) log.append({ type: 'assistant_delta', round: 2, delta: 'x' });
    log.append(succeeded);
    assert.equal(log.storedEntries, 5);
    assert.equal(log.lastId, 1503);
    const middle = [...log.replay(500)];
    assert.deepEqual(middle[0], { id: 501, event: { type: 'assistant_delta', round: 1, delta: 'd499 ' } });
  });

  test('late subscribers get the replay then live events; nothing after the terminal event', () => {
    const log = new RunEventLog();
    log.append(started);
    const late = collect(log, 0);
    assert.equal(late.events.length, 1);
    log.append({ type: 'warning', code: 'W', message: 'x' });
    const gone = collect(log, 2);
    gone.stop();
    log.append(succeeded);
    assert.equal(late.events.length, 3);
    assert.equal(late.ended, true);
    assert.equal(gone.events.length, 0);
    assert.equal(gone.ended, false);
    assert.equal(log.append({ type: 'warning', code: 'W', message: 'after' }), 0);
    assert.equal(log.lastId, 3);
    assert.equal(log.finished, true);
  });
});

describe('SSE frames', () => {
  test('id, event and one data line holding the event JSON, even with newlines in the text', () => {
    const event: RunEvent = { type: 'assistant_delta', round: 1, delta: 'line one\nline two\r\n\u2028end' };
    const frame = formatSseFrame(7, event);
    const lines = frame.split('\n');
    assert.equal(lines[0], 'id: 7');
    assert.equal(lines[1], 'event: assistant_delta');
    assert.equal(lines[2], `data: ${JSON.stringify(event)}`);
    assert.deepEqual(lines.slice(3), ['', '']);
    assert.deepEqual(JSON.parse(lines[2].slice(6)), event);
    assert.doesNotMatch(frame.slice(0, -2), /\r|\n\n/);
  });
});
