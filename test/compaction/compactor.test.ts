import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { systemMessage, userMessage, type LoopState, type ResponseItem, type RunEvent, type UsageStage } from '../../src/agent/index.js';
import {
  CompactionFailure,
  TokenCounter,
  compactHistory,
  createCompactionHooks,
  summarizeHistory,
  type SummarizerContext,
} from '../../src/compaction/index.js';
import { ModelError, type ModelRequest, type ModelResponse, type Usage } from '../../src/model/index.js';
import { filler, testSettings } from './compaction-harness.js';

function usage(input: number, output: number): Usage {
  return { inputTokens: input, cachedInputTokens: null, outputTokens: output, reasoningTokens: 0, totalTokens: input + output, raw: null };
}

function response(text: string, reported: Usage | null = usage(100, 20)): ModelResponse {
  return { text, toolCalls: [], reasoning: [], usage: reported, finishReason: 'stop', responseId: null, model: null };
}

/** A gateway that answers from a list (a function may inspect the request) and keeps every request. */
function scriptedGateway(answers: Array<ModelResponse | Error | ((request: ModelRequest) => ModelResponse | Error)>) {
  const requests: ModelRequest[] = [];
  return {
    requests,
    async createResponse(request: ModelRequest): Promise<ModelResponse> {
      requests.push(request);
      const next = answers.shift();
      if (next === undefined) throw new Error('no more answers');
      const value = typeof next === 'function' ? next(request) : next;
      if (value instanceof Error) throw value;
      return value;
    },
  };
}

function longHistory(exchanges: number, outputChars = 3000): ResponseItem[] {
  const history: ResponseItem[] = [systemMessage('system')];
  for (let n = 0; n < exchanges; n += 1) {
    history.push(
      userMessage(`request ${n}`),
      { type: 'function_call', callId: `c${n}`, name: 'read_file', arguments: `{"path":"f${n}.ts"}` },
      { type: 'function_call_output', callId: `c${n}`, name: 'read_file', output: filler(`file ${n}:`, outputChars), isError: false },
    );
  }
  return history;
}

function context(
  gateway: SummarizerContext['gateway'],
  sleeps: number[] = [],
): SummarizerContext & { usages: Array<Usage | null>; events: RunEvent[] } {
  const usages: Array<Usage | null> = [];
  const events: RunEvent[] = [];
  let ids = 0;
  return {
    usages,
    events,
    gateway,
    counter: new TokenCounter(),
    signal: new AbortController().signal,
    round: 3,
    emit: (event) => events.push(event),
    recordUsage: (value) => usages.push(value),
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    newCompactionId: () => `cmp-${++ids}`,
  };
}

const summarizer = {
  model: 'm',
  contextWindow: 100_000,
  maxOutputTokens: 4_000,
  userBudgetTokens: 20_000,
  clipChars: 2_000,
  attempts: 3,
  retryBaseDelayMs: 100,
  rejectInflation: true,
};

describe('summarizer guards', () => {
  test('a summary request the provider says is too long is retried with the oldest exchanges left out, never splitting a call from its output', async () => {
    const gateway = scriptedGateway([
      new ModelError('CONTEXT_OVERFLOW', 'too long', { status: 400 }),
      (request) => {
        const body = request.messages[1]!.content;
        assert.match(body, /earlier items were left out/);
        assert.equal(body.match(/<tool_call /g)?.length, body.match(/<tool_output /g)?.length);
        return response('## Goal\nShorter.');
      },
    ]);
    const sleeps: number[] = [];
    const result = await summarizeHistory(longHistory(8), summarizer, context(gateway, sleeps), []);
    assert.equal(gateway.requests.length, 2);
    assert.ok(gateway.requests[1]!.messages[1]!.content.length < gateway.requests[0]!.messages[1]!.content.length / 1.5);
    assert.ok(result.omittedItems > 0);
    assert.deepEqual(sleeps, [], 'an overflow is not a reason to wait');
  });

  test('a request our own estimate says will not fit is trimmed before it is sent', async () => {
    const gateway = scriptedGateway([response('## Goal\nFits.')]);
    const small = { ...summarizer, contextWindow: 6_000, maxOutputTokens: 1_000 };
    const result = await summarizeHistory(longHistory(12), small, context(gateway), []);
    assert.equal(gateway.requests.length, 1);
    assert.ok(result.omittedItems > 0);
    assert.ok(gateway.requests[0]!.messages.reduce((sum, message) => sum + message.content.length, 0) / 4 < 6_000);
  });

  test('failures are retried with exponential backoff; each attempt is counted as a compaction call', async () => {
    const sleeps: number[] = [];
    const gateway = scriptedGateway([
      new ModelError('SERVER_ERROR', 'down', { status: 500 }),
      response('   '),
      response('## Goal\nThird time lucky.', usage(50, 10)),
    ]);
    const ctx = context(gateway, sleeps);
    const result = await summarizeHistory(longHistory(3), summarizer, ctx, []);
    assert.equal(result.summary, '## Goal\nThird time lucky.');
    assert.deepEqual(sleeps, [100, 200]);
    assert.deepEqual(ctx.usages, [null, usage(100, 20), usage(50, 10)]);
    const stages = ctx.events
      .filter((event) => event.type === 'model_requested')
      .map((event) => event.type === 'model_requested' && event.stage);
    assert.deepEqual(stages, ['compaction', 'compaction', 'compaction']);
  });

  test('after the last attempt the failure is a CompactionFailure naming the cause', async () => {
    const gateway = scriptedGateway([response(''), response(''), response('')]);
    await assert.rejects(summarizeHistory(longHistory(3), summarizer, context(gateway), []), (error: unknown) => {
      assert.ok(error instanceof CompactionFailure);
      assert.equal(error.code, 'SUMMARY_FAILED');
      assert.match(error.message, /failed 3 times: the model returned an empty summary/);
      return true;
    });
  });

  test('cancellation is not retried and not turned into a compaction failure', async () => {
    const controller = new AbortController();
    const gateway = scriptedGateway([
      () => {
        controller.abort();
        return new ModelError('ABORTED', 'cancelled');
      },
    ]);
    const ctx = { ...context(gateway), signal: controller.signal };
    await assert.rejects(
      summarizeHistory(longHistory(3), summarizer, ctx, []),
      (error: unknown) => error instanceof ModelError && error.code === 'ABORTED',
    );
    assert.equal(gateway.requests.length, 1);
  });
});

function loopState(history: ResponseItem[], lastUsage: Usage | null, lastUsageHistoryLength: number) {
  const events: RunEvent[] = [];
  const recorded: Array<[UsageStage, Usage | null]> = [];
  const state: LoopState = {
    history,
    lastUsage,
    lastUsageHistoryLength,
    round: 4,
    signal: new AbortController().signal,
    emit: (event) => events.push(event),
    recordUsage: (stage, value) => recorded.push([stage, value]),
    commit: async () => {},
  };
  return { state, events, recorded };
}

describe('compaction hooks', () => {
  test('Persistence: the entry is persisted before the history is replaced in place, and old usage is reset', async () => {
    const history = longHistory(4);
    const before = history.length;
    const { state, events, recorded } = loopState(history, usage(9_000, 100), history.length - 2);
    const order: string[] = [];
    // The cheap pass is set to never count as enough, so this goes straight to a summary.
    const hooks = createCompactionHooks(testSettings({ threshold: 5_000, pruneMinimumTokens: 1_000_000 }), {
      gateway: scriptedGateway([response('## Goal\nSummarized.', usage(800, 60))]),
      persist: async (entry) => {
        order.push(`persist ${entry.kind} (history still ${state.history.length} items)`);
      },
      newCompactionId: () => 'cmp-x',
    });
    await hooks.afterRound(state);
    assert.deepEqual(order, [`persist summary (history still ${before} items)`]);
    assert.equal(state.history, history, 'the same array, replaced in place');
    assert.deepEqual(
      history.map((item) => item.type),
      ['message', 'compaction_summary', 'message', 'message', 'message', 'message'],
    );
    assert.equal(state.lastUsage, null);
    assert.equal(state.lastUsageHistoryLength, 0);
    assert.deepEqual(recorded, [['compaction', usage(800, 60)]]);
    const compacted = events.find((event) => event.type === 'history_compacted');
    assert.ok(compacted && compacted.type === 'history_compacted');
    assert.equal(compacted.compactionId, 'cmp-x');
    assert.equal(compacted.tokensBefore > 9_100, true);
  });

  test('Boundary: below the threshold nothing happens, and no model call is made', async () => {
    const history = longHistory(4);
    const { state, events } = loopState(history, usage(100, 10), history.length);
    const hooks = createCompactionHooks(testSettings({ threshold: 5_000 }), {
      gateway: { createResponse: async () => assert.fail('no summary below the threshold') },
      persist: async () => assert.fail('nothing to persist'),
    });
    await hooks.afterRound(state);
    await hooks.beforeTurn(state);
    assert.equal(state.history.length, 13);
    assert.deepEqual(events, []);
  });

  test('settings warnings (an unknown model) are shown once, at the first check', async () => {
    const { state, events } = loopState([userMessage('hi')], null, 0);
    const hooks = createCompactionHooks(testSettings({ warnings: [{ code: 'UNKNOWN_MODEL_WINDOW', message: 'assuming 128k' }] }), {
      gateway: { createResponse: async () => assert.fail('not needed') },
      persist: async () => {},
    });
    await hooks.beforeTurn(state);
    await hooks.afterRound(state);
    assert.deepEqual(events, [{ type: 'warning', code: 'UNKNOWN_MODEL_WINDOW', message: 'assuming 128k' }]);
  });

  test('a session whose breaker already tripped starts disabled, says so, and does not compact', async () => {
    const history = longHistory(4);
    const { state, events } = loopState(history, usage(90_000, 10), history.length);
    const hooks = createCompactionHooks(testSettings({ threshold: 5_000 }), {
      gateway: { createResponse: async () => assert.fail('disabled') },
      persist: async () => assert.fail('disabled'),
      disabled: true,
    });
    await hooks.beforeTurn(state);
    await hooks.afterRound(state);
    assert.equal(await hooks.onContextOverflow(state, new ModelError('CONTEXT_OVERFLOW', 'too long')), false);
    assert.deepEqual(
      events.map((event) => event.type === 'warning' && event.code),
      ['COMPACTION_DISABLED'],
    );
    assert.equal(hooks.disabled, true);
  });

  test('an ineffective compaction (still over the threshold) counts toward the breaker', async () => {
    const huge = userMessage(filler('paste:', 40_000));
    const history: ResponseItem[] = [
      systemMessage('s'),
      huge,
      { type: 'message', role: 'assistant', content: 'ok', runtimeRole: 'working_message' },
      userMessage(filler('again:', 30_000)),
    ];
    const { state, events } = loopState(history, null, 0);
    const hooks = createCompactionHooks(testSettings({ threshold: 5_000, userBudgetTokens: 100 }), {
      gateway: scriptedGateway([response('## Goal\nPaste things.')]),
      persist: async () => {},
    });
    await hooks.beforeTurn(state);
    assert.equal(hooks.consecutiveFailures, 1);
    const warning = events.find((event) => event.type === 'warning');
    assert.match(warning && warning.type === 'warning' ? warning.message : '', /still about \d+ tokens, at or above the threshold 5000/);
  });
});

describe('manual compaction (compactHistory)', () => {
  test('summarizes whatever the size, with the extra instructions added to the template and config instructions', async () => {
    const gateway = scriptedGateway([response('## Goal\nManual.')]);
    const result = await compactHistory({
      history: longHistory(2, 100),
      settings: testSettings({ instructions: 'Config says: keep ticket ids.' }),
      gateway,
      instructions: 'Focus on the parser.',
      newCompactionId: () => 'cmp-manual',
    });
    const system = gateway.requests[0]!.messages[0]!.content;
    assert.ok(system.startsWith('You are compacting the working history'));
    assert.match(system, /- Config says: keep ticket ids\.\n- Focus on the parser\.$/);
    assert.equal(result.entry.trigger, 'manual');
    assert.equal(result.entry.phase, 'manual');
    assert.equal(result.entry.estimated, true);
    assert.match(result.entry.reason, /^Compacted on request with extra instructions/);
    assert.deepEqual(
      result.history.map((item) => item.type),
      ['message', 'compaction_summary', 'message', 'message'],
    );
    assert.deepEqual(result.usage, [usage(100, 20)]);
  });

  test('refuses a history with nothing worth compacting', async () => {
    await assert.rejects(
      compactHistory({ history: [systemMessage('s'), userMessage('u')], settings: testSettings(), gateway: scriptedGateway([]) }),
      (error: unknown) => error instanceof CompactionFailure && error.code === 'NOTHING_TO_COMPACT',
    );
  });
});
