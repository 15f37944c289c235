// The gateways `exec` wraps around the retrying one for CI runs: the fallback model and the
// spending cap, on a stub gateway that answers or fails as each case needs.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  BudgetGateway,
  FallbackGateway,
  ModelError,
  emptyUsage,
  type ModelGateway,
  type ModelRequest,
  type ModelStreamEvent,
} from '../../src/model/index.js';

type Answer = 'ok' | ModelError | 'break-after-text';

/** Answers each call with the next of `answers`, recording the models asked. */
function stubGateway(answers: Answer[], inputTokens = 0): ModelGateway & { models: string[] } {
  const models: string[] = [];
  return {
    wireApi: 'chat',
    baseURL: 'http://stub',
    models,
    createResponse: () => Promise.reject(new Error('not used')),
    async *streamResponse(request: ModelRequest): AsyncIterable<ModelStreamEvent> {
      models.push(request.model);
      const answer = answers.shift() ?? 'ok';
      if (answer instanceof ModelError) throw answer;
      yield { type: 'text-delta', delta: 'hi' } as ModelStreamEvent;
      if (answer === 'break-after-text') throw new ModelError('SERVER_ERROR', 'broke', { retryable: true });
      const usage = { ...emptyUsage(), inputTokens, totalTokens: inputTokens };
      yield {
        type: 'completed',
        response: { text: 'hi', toolCalls: [], reasoning: [], usage, finishReason: 'stop', responseId: null, model: null },
      } as ModelStreamEvent;
    },
  };
}

const request: ModelRequest = { model: 'primary', messages: [{ role: 'user', content: 'x' }] };
const overloaded = (): ModelError =>
  new ModelError('SERVER_ERROR', 'Overloaded (gave up after 4 attempts)', { status: 529, retryable: true });

async function drain(stream: AsyncIterable<ModelStreamEvent>): Promise<void> {
  for await (const _event of stream);
}

describe('FallbackGateway', () => {
  test('switches for the rest of the run after a server error, and reports it once, also when the failing call could not', async () => {
    const inner = stubGateway([overloaded()]);
    const gateway = new FallbackGateway(inner, 'backup');
    const warnings: string[] = [];
    // A call without onWarning (a compaction summary) makes the switch…
    await drain(gateway.streamResponse(request));
    assert.deepEqual(inner.models, ['primary', 'backup']);
    // …and the next call that can report it does.
    await drain(gateway.streamResponse(request, { onWarning: (w) => warnings.push(`${w.code}: ${w.message}`) }));
    await drain(gateway.streamResponse(request, { onWarning: (w) => warnings.push(w.code) }));
    assert.deepEqual(inner.models, ['primary', 'backup', 'backup', 'backup']);
    assert.equal(warnings.length, 1);
    assert.match(
      warnings[0]!,
      /^MODEL_FALLBACK: primary failed after its retries \(SERVER_ERROR: Overloaded.*\); the run continues on backup/,
    );
    assert.equal(gateway.onFallback, true);
  });

  test('keeps the model on a request error, and never takes over an answer that had started', async () => {
    const badRequest = new FallbackGateway(stubGateway([new ModelError('BAD_REQUEST', 'no')]), 'backup');
    await assert.rejects(drain(badRequest.streamResponse(request)), /no/);
    assert.equal(badRequest.onFallback, false);
    const started = new FallbackGateway(stubGateway(['break-after-text']), 'backup');
    await assert.rejects(drain(started.streamResponse(request)), /broke/);
    assert.equal(started.onFallback, false);
  });
});

describe('BudgetGateway', () => {
  const pricing = { inputPerMillion: 1, cachedInputPerMillion: 0.1, outputPerMillion: 10 };

  test('charges each call at its usage and refuses, unsent, the one that could pass the cap', async () => {
    const inner = stubGateway(['ok', 'ok'], 100_000);
    // Each call could cost its ~10 input tokens + 1000 output tokens ($0.01) and costs $0.10 of input.
    const gateway = new BudgetGateway(inner, { limitUsd: 0.105, model: () => ({ pricing, maxOutputTokens: 1000 }) });
    await drain(gateway.streamResponse(request));
    assert.ok(Math.abs(gateway.spentUsd - 0.1) < 1e-9, String(gateway.spentUsd));
    await assert.rejects(drain(gateway.streamResponse(request)), (error: unknown) => {
      assert.ok(error instanceof ModelError);
      assert.equal(error.code, 'BUDGET_EXCEEDED');
      assert.match(error.message, /up to 1000 output tokens of primary.*with \$0\.1000 spent it could pass the budget of \$0\.1050/);
      return true;
    });
    assert.equal(inner.models.length, 1);
  });

  test('a request with its own output cap is estimated with it; an unpriced model is refused', async () => {
    const capped = new BudgetGateway(stubGateway(['ok']), { limitUsd: 0.001, model: () => ({ pricing, maxOutputTokens: 1_000_000 }) });
    await drain(capped.streamResponse({ ...request, maxOutputTokens: 10 }));
    const unpriced = new BudgetGateway(stubGateway(['ok']), { limitUsd: 5, model: () => ({ pricing: null, maxOutputTokens: 10 }) });
    await assert.rejects(drain(unpriced.streamResponse(request)), /primary has no known price/);
  });
});
