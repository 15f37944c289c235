// End to end: a provider that rejects a grown conversation with its own overflow body (llama.cpp,
// Gemini, xAI, old vLLM…) must reach the loop as CONTEXT_OVERFLOW, so compaction summarizes the
// history and the round is retried, and the run finishes. The overflow answer is the real body,
// served by a proxy in front of the scripted fake provider; everything else is the fake's.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  ALLOW_ALL_GATE,
  NO_APPROVER,
  ToolRuntime,
  runSamplingLoop,
  userMessage,
  type ModelCallRecord,
  type RunEvent,
  type TerminalRunEvent,
} from '../../src/agent/index.js';
import { createToolSessionState } from '../../src/tools/index.js';
import { createCompactionHooks } from '../../src/compaction/index.js';
import { createGateway, type WireApi } from '../../src/model/index.js';
import { startFakeProvider } from '../../src/testing/index.js';
import { bigOutputTool, compactedEvents, scriptedWithSummaries, SUMMARY_MARKER, testSettings } from '../compaction/compaction-harness.js';
import { fixtureNamed, originOf, startErrorProxy } from './provider-error-server.js';

const SUMMARY = '## Goal\nDo the thing.\n\n## Next step\nFinish.';
const OUTPUT_LABEL = 'big-output-marker';

interface OverflowRun {
  terminal: TerminalRunEvent;
  events: RunEvent[];
  modelCalls: ModelCallRecord[];
  overflowAnswers: number;
  turnRequests: number;
}

/** One run: turn 1 calls read_big, the request carrying its output gets the fixture, the rest is the fake's. */
async function runWithOverflow(wireApi: WireApi, fixtureName: string): Promise<OverflowRun> {
  const fixture = fixtureNamed(fixtureName);
  const provider = await startFakeProvider({
    whenExhausted: scriptedWithSummaries(
      [{ toolCalls: [{ name: 'read_big', arguments: { label: OUTPUT_LABEL } }] }, { text: 'Done after compaction.' }],
      () => ({ text: SUMMARY }),
    ),
  });
  let overflowAnswers = 0;
  let turnRequests = 0;
  const proxy = await startErrorProxy((request) => {
    if (request.body.includes(SUMMARY_MARKER)) return null;
    turnRequests++;
    // Only the first request that carries the big tool output is too long for this "model".
    if (overflowAnswers === 0 && request.body.includes(`${OUTPUT_LABEL}:`)) {
      overflowAnswers++;
      return fixture;
    }
    return null;
  }, originOf(provider.baseURL));
  try {
    const gateway = createGateway({
      wireApi,
      baseURL: proxy.baseURL,
      apiKey: 'test-key',
      retry: { baseDelayMs: 1, maxDelayMs: 2, random: () => 0 },
    });
    const events: RunEvent[] = [];
    const modelCalls: ModelCallRecord[] = [];
    let ids = 0;
    const compaction = createCompactionHooks(testSettings({ threshold: 1_000_000 }), {
      gateway,
      persist: async () => {},
      onModelCall: (call) => {
        modelCalls.push(call);
      },
      newCompactionId: () => `cmp-${++ids}`,
      sleep: async () => {},
    });
    const terminal = await runSamplingLoop({
      gateway,
      model: 'test-model',
      wireApi,
      sessionId: 'session-test',
      runId: 'run-test',
      resumed: false,
      history: [],
      newItems: [userMessage('do the thing')],
      tools: new ToolRuntime({
        tools: [bigOutputTool(20_000)],
        root: process.cwd(),
        state: createToolSessionState(),
        gate: ALLOW_ALL_GATE,
        approvals: NO_APPROVER,
      }),
      signal: new AbortController().signal,
      observer: {
        onEvent: (event) => {
          events.push(event);
        },
        onCommit: () => {},
        onModelCall: (call) => {
          modelCalls.push(call);
        },
      },
      compaction,
    });
    return { terminal, events, modelCalls, overflowAnswers, turnRequests };
  } finally {
    await proxy.close();
    await provider.close();
  }
}

const OVERFLOW_BODIES = [
  'llamacpp-exceed-context-400',
  'llamacpp-exceed-context-500',
  'gemini-compat-overflow-array',
  'xai-prompt-length',
  'vllm-old-overflow',
  'ollama-prompt-too-long',
  'lmstudio-context-overflow',
];

for (const wireApi of ['chat', 'responses'] as const) {
  describe(`provider overflow bodies compact and continue (${wireApi})`, () => {
    for (const name of OVERFLOW_BODIES) {
      test(name, async () => {
        const run = await runWithOverflow(wireApi, name);
        assert.equal(run.terminal.type, 'run_succeeded', JSON.stringify(run.terminal));
        assert.equal(run.terminal.type === 'run_succeeded' && run.terminal.answer, 'Done after compaction.');
        assert.equal(run.overflowAnswers, 1);
        // The overflow went to the loop once (no retry of the rejected request), then compaction, then the round again.
        assert.deepEqual(
          run.modelCalls.map((call) => `${call.stage}:${call.error?.code ?? 'ok'}`),
          ['turn:ok', 'turn:CONTEXT_OVERFLOW', 'compaction:ok', 'turn:ok'],
        );
        assert.equal(run.turnRequests, 3);
        const [event] = compactedEvents(run.events);
        assert.equal(event?.trigger, 'overflow');
        assert.ok(event.reason.includes(fixtureNamed(name).expect.messageIncludes), event.reason);
      });
    }
  });
}
