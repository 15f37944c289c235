// Usage objects as real providers send them, normalized to one meaning: inputTokens includes the
// cached tokens, cachedInputTokens says how many were served from cache (null when the provider
// does not say), outputTokens counts every generated token with reasoning included, and
// reasoningTokens is the part of it spent on reasoning.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chatUsage } from '../../src/model/chat-completions/convert-response.js';
import { responsesUsage } from '../../src/model/responses/convert-response.js';

function numbers(usage: ReturnType<typeof chatUsage>) {
  assert.ok(usage, 'usage expected');
  const { raw: _raw, ...rest } = usage;
  return rest;
}

describe('chat usage', () => {
  it('the OpenAI shape: cached tokens are already inside prompt_tokens', () => {
    // https://docs.x.ai/developers/advanced-api-usage/prompt-caching/usage-and-pricing (Chat Completions example)
    const raw = {
      prompt_tokens: 125,
      completion_tokens: 48,
      total_tokens: 173,
      prompt_tokens_details: { text_tokens: 125, audio_tokens: 0, image_tokens: 0, cached_tokens: 98 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
    };
    assert.deepEqual(numbers(chatUsage(raw)), {
      inputTokens: 125,
      cachedInputTokens: 98,
      outputTokens: 48,
      reasoningTokens: 0,
      totalTokens: 173,
    });
  });

  it('xAI: reasoning tokens are reported outside completion_tokens and counted into output', () => {
    // grok-4-fast reply quoted in https://github.com/vercel/ai/pull/9774: total = prompt + completion + reasoning.
    const raw = {
      prompt_tokens: 2640,
      completion_tokens: 182,
      total_tokens: 3494,
      prompt_tokens_details: { text_tokens: 2640, audio_tokens: 0, image_tokens: 0, cached_tokens: 473 },
      completion_tokens_details: { reasoning_tokens: 672, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
      num_sources_used: 0,
    };
    assert.deepEqual(numbers(chatUsage(raw)), {
      inputTokens: 2640,
      cachedInputTokens: 473,
      outputTokens: 854,
      reasoningTokens: 672,
      totalTokens: 3494,
    });
  });

  it('DeepSeek: prompt_cache_hit_tokens are the cached part of prompt_tokens', () => {
    // https://github.com/BerriAI/litellm/issues/5017 (a real reply) and
    // https://github.com/mozilla-ai/any-llm/issues/795 (prompt_tokens = hit + miss, per the DeepSeek API docs).
    assert.deepEqual(
      numbers(
        chatUsage({ completion_tokens: 40, prompt_tokens: 11, total_tokens: 51, prompt_cache_hit_tokens: 0, prompt_cache_miss_tokens: 11 }),
      ),
      { inputTokens: 11, cachedInputTokens: 0, outputTokens: 40, reasoningTokens: 0, totalTokens: 51 },
    );
    assert.deepEqual(
      numbers(
        chatUsage({
          prompt_tokens: 100,
          prompt_cache_hit_tokens: 80,
          prompt_cache_miss_tokens: 20,
          completion_tokens: 50,
          total_tokens: 150,
        }),
      ),
      { inputTokens: 100, cachedInputTokens: 80, outputTokens: 50, reasoningTokens: 0, totalTokens: 150 },
    );
  });

  it('Gemini through an OpenAI-compatible layer: thoughts outside completion_tokens count as output', () => {
    // https://github.com/router-for-me/CLIProxyAPI/issues/5733: a reply that was all thinking.
    assert.deepEqual(
      numbers(
        chatUsage({ completion_tokens: 0, total_tokens: 81, prompt_tokens: 21, completion_tokens_details: { reasoning_tokens: 60 } }),
      ),
      { inputTokens: 21, cachedInputTokens: null, outputTokens: 60, reasoningTokens: 60, totalTokens: 81 },
    );
    // https://github.com/Clarifai/clarifai-python/pull/978: "Gemini: prompt=20, completion=424, total=1016",
    // the 572 thinking tokens in the total only (Gemini bills thoughts as output).
    assert.deepEqual(numbers(chatUsage({ prompt_tokens: 20, completion_tokens: 424, total_tokens: 1016 })), {
      inputTokens: 20,
      cachedInputTokens: null,
      outputTokens: 996,
      reasoningTokens: 572,
      totalTokens: 1016,
    });
  });

  it('a provider that reports neither cache nor reasoning (Ollama, llama.cpp) keeps cached unknown', () => {
    // Ollama openai/openai.go ToUsage: prompt, completion and their sum only (the counts are an example).
    assert.deepEqual(numbers(chatUsage({ prompt_tokens: 26, completion_tokens: 12, total_tokens: 38 })), {
      inputTokens: 26,
      cachedInputTokens: null,
      outputTokens: 12,
      reasoningTokens: 0,
      totalTokens: 38,
    });
  });
});

describe('responses usage', () => {
  it('input_tokens include the cached tokens', () => {
    // https://docs.x.ai/developers/advanced-api-usage/prompt-caching/usage-and-pricing (Responses example)
    const raw = {
      input_tokens: 125,
      output_tokens: 48,
      total_tokens: 173,
      input_tokens_details: { cached_tokens: 98 },
      output_tokens_details: { reasoning_tokens: 0 },
    };
    assert.deepEqual(numbers(responsesUsage(raw)), {
      inputTokens: 125,
      cachedInputTokens: 98,
      outputTokens: 48,
      reasoningTokens: 0,
      totalTokens: 173,
    });
  });

  it('reasoning left out of output_tokens (Gemini through a Responses layer) counts as output', () => {
    // The same fact as the chat case: total = input + output + reasoning
    // (https://github.com/router-for-me/CLIProxyAPI/pull/5746).
    assert.deepEqual(
      numbers(responsesUsage({ input_tokens: 21, output_tokens: 0, total_tokens: 81, output_tokens_details: { reasoning_tokens: 60 } })),
      { inputTokens: 21, cachedInputTokens: null, outputTokens: 60, reasoningTokens: 60, totalTokens: 81 },
    );
  });
});
