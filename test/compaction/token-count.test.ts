import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { systemMessage, userMessage, type ResponseItem } from '../../src/agent/index.js';
import {
  ITEM_OVERHEAD_TOKENS,
  TokenCounter,
  boundedRuns,
  loadO200kTokenizer,
  MAX_RUN_CHARS,
  cheapTokenEstimate,
  countContext,
  itemsSinceUsage,
  type CountTokens,
} from '../../src/compaction/index.js';
import type { Usage } from '../../src/model/index.js';

function usage(input: number, output: number, cached: number | null = null): Usage {
  return {
    inputTokens: input,
    cachedInputTokens: cached,
    outputTokens: output,
    reasoningTokens: 0,
    totalTokens: input + output,
    raw: null,
  };
}

/** A loader that counts words and remembers whether it was asked to load. */
function spyLoader(): { loads: number; load: () => Promise<CountTokens> } {
  const spy = {
    loads: 0,
    load: async (): Promise<CountTokens> => {
      spy.loads += 1;
      return (text: string) => text.split(/\s+/).filter(Boolean).length;
    },
  };
  return spy;
}

const roundItems: ResponseItem[] = [
  { type: 'message', role: 'assistant', content: 'Reading the file.', runtimeRole: 'working_message' },
  { type: 'function_call', callId: 'c1', name: 'read_file', arguments: '{"path":"a.ts"}' },
  { type: 'function_call_output', callId: 'c1', name: 'read_file', output: 'word '.repeat(2000), isError: false },
];

describe('Counting', () => {
  test('items since usage skip the round’s own output, which output tokens already cover', () => {
    const history = [systemMessage('s'), userMessage('u'), ...roundItems];
    assert.deepEqual(itemsSinceUsage(history, 2), [roundItems[2]]);
    assert.deepEqual(itemsSinceUsage(history, 5), []);
  });

  test('last reported usage (input incl. cached + output) plus a cheap estimate of what was appended, tokenizer not loaded far from the threshold', async () => {
    const spy = spyLoader();
    const counter = new TokenCounter(spy.load);
    const history = [systemMessage('s'), userMessage('u'), ...roundItems];
    const count = await countContext({ history, lastUsage: usage(1000, 50, 800), lastUsageHistoryLength: 2 }, counter, {
      threshold: 1_000_000,
      estimate: true,
      overheadTokens: 0,
    });
    const appended =
      cheapTokenEstimate(roundItems[2]!.type === 'function_call_output' ? `read_file\n${roundItems[2]!.output}` : '') +
      ITEM_OVERHEAD_TOKENS;
    assert.deepEqual(count, { tokens: 1050 + appended, estimated: false, method: 'usage+appended' });
    assert.equal(spy.loads, 0, 'the tokenizer is not loaded when the cheap estimate is far below the threshold');
  });

  test('near the threshold (within 25 %) the appended items are counted with the real tokenizer, loaded once', async () => {
    const spy = spyLoader();
    const counter = new TokenCounter(spy.load);
    const history = [systemMessage('s'), userMessage('u'), ...roundItems];
    const view = { history, lastUsage: usage(3000, 50), lastUsageHistoryLength: 2 };
    const count = await countContext(view, counter, { threshold: 5000, estimate: true, overheadTokens: 0 });
    // The spy counts words: "read_file" + 2000 × "word".
    assert.equal(count.tokens, 3050 + 2001 + ITEM_OVERHEAD_TOKENS);
    await countContext(view, counter, { threshold: 5000, estimate: true, overheadTokens: 0 });
    assert.equal(spy.loads, 1);
    assert.equal(counter.tokenizerLoaded, true);
  });

  test('from half the threshold the tokenizer loads in the background, the count staying cheap and unawaited', async () => {
    const spy = spyLoader();
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const counter = new TokenCounter(async () => {
      await gate;
      return spy.load();
    });
    const history = [systemMessage('s'), userMessage('u'), ...roundItems];
    const view = { history, lastUsage: usage(1000, 50), lastUsageHistoryLength: 2 };
    const appended = counter.cheap([roundItems[2]!]);
    // 1050 + ~2507 tokens against 6000: past half, short of the precise count's 75 %.
    const count = await countContext(view, counter, { threshold: 6000, estimate: true, overheadTokens: 0 });
    assert.deepEqual(count, { tokens: 1050 + appended, estimated: false, method: 'usage+appended' });
    assert.equal(counter.tokenizerLoaded, false, 'the count did not wait for the load');
    release();
    await gate;
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(spy.loads, 1);
    assert.equal(counter.tokenizerLoaded, true);
  });

  test('no usage reported: a full estimate of history plus overhead, marked estimated', async () => {
    const counter = new TokenCounter(spyLoader().load);
    const history = [systemMessage('system prompt'), userMessage('hello there')];
    const count = await countContext({ history, lastUsage: null, lastUsageHistoryLength: 0 }, counter, {
      threshold: 1_000_000,
      estimate: true,
      overheadTokens: 300,
    });
    assert.deepEqual(count, { tokens: 300 + counter.cheap(history), estimated: true, method: 'estimate' });
  });

  test('no usage and estimating off: nothing to go on', async () => {
    const count = await countContext(
      { history: [userMessage('x')], lastUsage: null, lastUsageHistoryLength: 0 },
      new TokenCounter(spyLoader().load),
      {
        threshold: 10,
        estimate: false,
        overheadTokens: 0,
      },
    );
    assert.deepEqual(count, { tokens: null, estimated: false, method: 'none' });
  });

  test('usage measured on a longer history than the current one (before a compaction) is never reused', async () => {
    const history = [userMessage('short now')];
    const count = await countContext(
      { history, lastUsage: usage(90_000, 10), lastUsageHistoryLength: 40 },
      new TokenCounter(spyLoader().load),
      {
        threshold: 50_000,
        estimate: true,
        overheadTokens: 0,
      },
    );
    assert.equal(count.estimated, true);
    assert.ok((count.tokens ?? 0) < 100);
  });

  test('a tokenizer that cannot be loaded falls back to the cheap estimate', async () => {
    const counter = new TokenCounter(async () => {
      throw new Error('no tokenizer here');
    });
    const items = [userMessage('a'.repeat(400))];
    assert.equal(await counter.precise(items), counter.cheap(items));
    assert.match(counter.tokenizerFailure?.message ?? '', /no tokenizer/);
  });

  test('the default tokenizer is o200k, loaded on demand', async () => {
    const counter = new TokenCounter();
    const items = [userMessage('hello world <|endoftext|>')];
    const precise = await counter.precise(items);
    assert.ok(counter.tokenizerLoaded);
    assert.ok(precise > ITEM_OVERHEAD_TOKENS && precise < 20, String(precise));
  });
});

describe('long runs of non-blank text', () => {
  test('reach the encoder in pieces of at most MAX_RUN_CHARS (BPE is quadratic in a pre-token), the rest unchanged', () => {
    const seen: string[] = [];
    const count = boundedRuns((text) => {
      seen.push(text);
      return text.length;
    });
    const long = 'x'.repeat(MAX_RUN_CHARS * 3 + 7);
    const text = `before ${long} after ${'y'.repeat(MAX_RUN_CHARS)} end`;
    assert.equal(count(text), text.length, 'every character counted once');
    const longest = Math.max(...seen.flatMap((piece) => (piece.match(/\S+/g) ?? []).map((run) => run.length)));
    assert.ok(longest <= MAX_RUN_CHARS, `a run of ${longest} characters reached the encoder`);
    seen.length = 0;
    assert.equal(count('short words only'), 16);
    assert.deepEqual(seen, ['short words only'], 'text without long runs goes whole');
  });

  test('the real o200k counts of a megabyte of one letter and of its pieces agree closely', async () => {
    const count = await loadO200kTokenizer();
    const blob = 'a'.repeat(1_000_000);
    const tokens = count(blob);
    // o200k packs runs of one letter into tokens of a few characters; the pieces' joins add at most one each.
    assert.ok(tokens > 1_000_000 / 64 && tokens < 1_000_000 / 2, `${tokens} tokens`);
    assert.equal(count('hello world'), 2);
  });
});
