// The plan reaches OpenTelemetry: a successful update_plan call's execute_tool span carries the
// step counts and a `glassbox.plan.update` event; the steps' text (the model's words) only with
// --trace-content, redacted; a refused plan (the tool's error) adds nothing.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRedactor, TraceBuilder, type Attributes, type SpanHandle, type SpanSink } from '../../src/telemetry/index.js';

interface Recorded {
  name: string;
  attributes: Attributes;
  events: { name: string; attributes: Attributes }[];
}

function recordingSink(spans: Recorded[]): SpanSink {
  return {
    start(name, options): SpanHandle {
      const span: Recorded = { name, attributes: { ...options.attributes }, events: [] };
      spans.push(span);
      return {
        set: (attributes) => Object.assign(span.attributes, attributes),
        event: (eventName, _at, attributes) => span.events.push({ name: eventName, attributes: attributes ?? {} }),
        end: () => {},
      };
    },
  };
}

const KEY = 'sk-proj-SUPERSECRETabcdefghijklmnop0123456789';

function traced(traceContent: boolean): Recorded[] {
  const spans: Recorded[] = [];
  const builder = new TraceBuilder(recordingSink(spans), { traceContent, redact: createRedactor([], {}) });
  let at = 1;
  builder.event({ type: 'run_started', sessionId: 's', runId: 'r', model: 'm', wireApi: 'chat', resumed: false }, at++);
  builder.event({ type: 'model_requested', round: 1, stage: 'turn', messageCount: 2, toolCount: 1 }, at++);
  const plan = {
    explanation: 'Found it',
    plan: [
      { step: 'Read the parser', status: 'completed' },
      { step: `Rotate ${KEY}`, status: 'in_progress' },
      { step: 'Run the tests', status: 'pending' },
    ],
  };
  const bad = {
    plan: [
      { step: 'a', status: 'in_progress' },
      { step: 'b', status: 'in_progress' },
    ],
  };
  for (const [callId, args, isError] of [
    ['c1', plan, false],
    ['c2', bad, true],
  ] as const) {
    builder.event({ type: 'tool_requested', round: 1, callId, name: 'update_plan', arguments: JSON.stringify(args) }, at++);
    builder.event({ type: 'tool_started', callId, name: 'update_plan' }, at++);
    const output = isError ? 'Error [INVALID_PLAN]: At most one step can be in_progress' : 'Plan updated';
    builder.event({ type: 'tool_finished', callId, name: 'update_plan', isError, output, durationMs: 1 }, at++);
  }
  return spans;
}

test('a plan call sets step counts and a plan event; its text only with content tracing, redacted', () => {
  for (const content of [false, true]) {
    const spans = traced(content);
    const [good, refused] = spans.filter((span) => span.name === 'execute_tool update_plan');
    assert.ok(good && refused);
    assert.equal(good.attributes['glassbox.plan.steps'], 3);
    assert.equal(good.attributes['glassbox.plan.completed'], 1);
    assert.equal(good.attributes['glassbox.plan.in_progress'], 1);
    assert.equal(good.attributes['glassbox.plan.pending'], 1);
    const event = good.events.find((each) => each.name === 'glassbox.plan.update');
    assert.ok(event);
    assert.equal(event.attributes['glassbox.plan.steps'], 3);
    if (content) {
      assert.deepEqual(event.attributes['glassbox.plan.step_statuses'], ['completed', 'in_progress', 'pending']);
      const texts = event.attributes['glassbox.plan.step_texts'] as string[];
      assert.equal(texts[0], 'Read the parser');
      assert.equal(event.attributes['glassbox.plan.explanation'], 'Found it');
    } else assert.equal(event.attributes['glassbox.plan.step_texts'], undefined);
    assert.ok(!JSON.stringify(spans).includes('SUPERSECRET'));
    assert.equal(refused.attributes['glassbox.plan.steps'], undefined);
    assert.deepEqual(refused.events, []);
  }
});
