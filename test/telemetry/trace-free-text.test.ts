// Without --trace-content no message content may leave in a span, and no secret ever: a warning
// can quote an MCP server's stderr, a provider error can echo a key, and an escalation's reason
// carries the model's own justification (and any reason quotes the command).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRedactor, TraceBuilder, type Attributes, type SpanHandle, type SpanSink } from '../../src/telemetry/index.js';

interface Recorded {
  name: string;
  attributes: Attributes;
  events: { name: string; attributes: Attributes }[];
  error?: string;
}

function recordingSink(spans: Recorded[]): SpanSink {
  return {
    start(name, options): SpanHandle {
      const span: Recorded = { name, attributes: { ...options.attributes }, events: [] };
      spans.push(span);
      return {
        set: (attributes) => Object.assign(span.attributes, attributes),
        event: (eventName, _at, attributes) => span.events.push({ name: eventName, attributes: attributes ?? {} }),
        end: (_at, error) => {
          if (error !== undefined) span.error = error;
        },
      };
    },
  };
}

const KEY = 'sk-proj-SUPERSECRETabcdefghijklmnop0123456789';

function traced(traceContent: boolean): string {
  const spans: Recorded[] = [];
  const builder = new TraceBuilder(recordingSink(spans), { traceContent, redact: createRedactor([], {}) });
  let at = 1;
  builder.event({ type: 'run_started', sessionId: 's', runId: 'r', model: 'm', wireApi: 'chat', resumed: false }, at++);
  builder.event(
    { type: 'warning', code: 'MCP_SERVER_FAILED', message: `server "docs" exited: stderr: auth rejected for token ${KEY}` },
    at++,
  );
  builder.event({ type: 'model_requested', round: 1, stage: 'turn', messageCount: 2, toolCount: 1 }, at++);
  builder.event({ type: 'tool_requested', round: 1, callId: 'c1', name: 'shell', arguments: '{"command":"make"}' }, at++);
  const reason = 'asks to run outside the sandbox: the build needs my private registry at corp.example and the token in ~/.npmrc';
  builder.event({ type: 'tool_permission_decided', callId: 'c1', name: 'shell', decision: 'ask', reason, rule: 'escalation' }, at++);
  builder.event({ type: 'approval_requested', callId: 'c1', name: 'shell', summary: 'make', reason, arguments: '{}' }, at++);
  builder.event({ type: 'approval_resolved', callId: 'c1', name: 'shell', decision: 'deny', by: 'user', message: null }, at++);
  builder.event(
    {
      type: 'run_failed',
      error: { code: 'PROVIDER_ERROR', message: `401: invalid key ${KEY}`, retryable: false },
      usage: { rounds: [], total: { inputTokens: 0, outputTokens: 0, totalTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 } },
    } as never,
    at++,
  );
  return JSON.stringify(spans);
}

test('warnings and errors are redacted in every span; permission and approval reasons only with --trace-content', () => {
  for (const content of [false, true]) {
    const exported = traced(content);
    assert.ok(!exported.includes('SUPERSECRET'), exported);
    assert.match(exported, /auth rejected for token/);
    // A reason quotes what it judges (here the model's justification): content, like the arguments.
    assert.equal(exported.includes('asks to run outside the sandbox'), content, exported);
    assert.equal(exported.includes('private registry'), content, exported);
  }
});
