// The bench's prompt-cache meter (bench/prompt-prefix.ts): what each provider's cache could serve,
// from request bodies. Rules from the OpenAI Cookbook "Prompt Caching 201" (from 1,024 tokens, in
// steps of 128) and Anthropic's prompt-caching guide (breakpoints, 20-block lookback, 1,024-token
// minimum, a changed tool_choice invalidates the message blocks).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openAiCachedTokens, PromptCacheMeter } from '../../bench/prompt-prefix.js';

const long = (label: string, words = 1_500): string => `${label}: ${Array.from({ length: words }, (_, n) => `w${n % 97}`).join(' ')}`;
const tool = { type: 'function', function: { name: 'read', description: 'Read.', parameters: { type: 'object' } } };

function chat(messages: Array<{ role: string; content: string }>): Record<string, unknown> {
  return { model: 'gpt-5', tools: [tool], messages };
}

describe('prompt-cache meter', () => {
  test('OpenAI granularity: nothing under 1,024 tokens, then steps of 128', () => {
    assert.equal(openAiCachedTokens(1_023), 0);
    assert.equal(openAiCachedTokens(1_024), 1_024);
    assert.equal(openAiCachedTokens(1_151), 1_024);
    assert.equal(openAiCachedTokens(1_152), 1_152);
  });

  test('OpenAI: an append-only request has the whole previous request eligible; a change in the middle cuts it there', () => {
    const meter = new PromptCacheMeter('chat');
    const system = { role: 'system', content: long('system') };
    const first = meter.measure(chat([system, { role: 'user', content: long('first') }]));
    assert.equal(first.eligible, 0);
    const second = meter.measure(chat([system, { role: 'user', content: long('first') }, { role: 'user', content: 'more' }]));
    assert.equal(second.eligible, openAiCachedTokens(first.tokens));
    assert.ok(second.tokens > first.tokens);
    // The first user message changed (its head kept): cached up to the tokens the two share.
    const third = meter.measure(chat([system, { role: 'user', content: `${long('first', 10)} changed` }]));
    assert.ok(third.eligible >= openAiCachedTokens(third.headTokens) && third.eligible < first.tokens, `${third.eligible}`);
    // Any earlier request counts, not only the one just before.
    const fourth = meter.measure(chat([system, { role: 'user', content: long('first') }, { role: 'user', content: 'other' }]));
    assert.equal(fourth.eligible, openAiCachedTokens(first.tokens));
  });

  test('Anthropic: only what a breakpoint wrote is read, a changed tool_choice leaves tools and system, and nothing marked means nothing cached', () => {
    const meter = new PromptCacheMeter('anthropic');
    const marked = { type: 'ephemeral' };
    const body = (blocks: string[], choice = 'auto', mark = true) => ({
      model: 'claude-sonnet-4-6',
      tools: [{ name: 'read', description: 'Read.', input_schema: { type: 'object' }, ...(mark ? { cache_control: marked } : {}) }],
      tool_choice: { type: choice },
      system: [{ type: 'text', text: long('system'), ...(mark ? { cache_control: marked } : {}) }],
      messages: [
        {
          role: 'user',
          content: blocks.map((text, i) => ({ type: 'text', text, ...(mark && i === blocks.length - 1 ? { cache_control: marked } : {}) })),
        },
      ],
    });
    const first = meter.measure(body([long('a')]));
    assert.equal(first.eligible, 0);
    assert.equal(first.written, first.tokens);
    const second = meter.measure(body([long('a'), 'b']));
    assert.equal(second.eligible, first.tokens);
    assert.equal(second.written, second.tokens - first.tokens);
    const third = meter.measure(body([long('a'), 'b', 'c'], 'none'));
    assert.equal(third.eligible, third.headTokens);
    const unmarked = new PromptCacheMeter('anthropic');
    unmarked.measure(body([long('a')], 'auto', false));
    const again = unmarked.measure(body([long('a')], 'auto', false));
    assert.deepEqual([again.eligible, again.written], [0, 0]);
  });

  test('Anthropic: a written prefix more than 20 blocks before every breakpoint is out of reach', () => {
    const meter = new PromptCacheMeter('anthropic');
    const marked = { type: 'ephemeral' };
    const blocks = (count: number) =>
      Array.from({ length: count }, (_, i) => ({ type: 'text', text: i === 0 ? long('first') : `block ${i}` }));
    const request = (count: number) => {
      const content: Array<Record<string, unknown>> = blocks(count);
      content[count - 1] = { ...content[count - 1], cache_control: marked };
      return { model: 'claude-sonnet-4-6', messages: [{ role: 'user', content }] };
    };
    const first = meter.measure(request(1));
    assert.equal(meter.measure(request(20)).eligible, first.tokens);
    const far = new PromptCacheMeter('anthropic');
    far.measure(request(1));
    assert.equal(far.measure(request(22)).eligible, 0);
  });
});
