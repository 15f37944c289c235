import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  CompactionConfigError,
  DEFAULT_MODEL_LIMITS,
  compactAtTokens,
  lookupModelLimits,
  parseCompactAt,
  parseCompactionConfig,
  parseContextWindow,
  readCompactionConfig,
  resolveCompactionSettings,
} from '../../src/compaction/index.js';
import { withTempDir } from '../helpers/temp-dir.js';

describe('model catalog', () => {
  test('knows common OpenAI, Anthropic and open models, by longest prefix', () => {
    const cases: Array<[string, number]> = [
      ['gpt-5', 400_000],
      ['gpt-5-mini', 400_000],
      ['gpt-5-chat-latest', 128_000],
      ['gpt-4.1-mini-2025-04-14', 1_047_576],
      ['gpt-4o-2024-08-06', 128_000],
      ['gpt-4o-mini', 128_000],
      ['o3', 200_000],
      ['o4-mini', 200_000],
      ['claude-sonnet-4-20250514', 200_000],
      ['claude-3-5-haiku-latest', 200_000],
      ['meta-llama/Llama-3.1-8B-Instruct', 131_072],
      ['llama3.2:3b', 131_072],
      ['qwen2.5-coder:32b', 32_768],
      ['qwen3:8b', 40_960],
      ['mistral-large-latest', 131_072],
      ['mistral:7b', 32_768],
      ['deepseek-chat', 131_072],
      ['gemma3:12b', 131_072],
      ['gemma2:9b', 8_192],
    ];
    for (const [name, window] of cases) {
      const lookup = lookupModelLimits(name);
      assert.equal(lookup.limits.contextWindow, window, name);
      assert.notEqual(lookup.matched, null, name);
    }
    assert.equal(lookupModelLimits('claude-opus-4-1').limits.maxOutputTokens, 32_000);
    assert.equal(lookupModelLimits('claude-sonnet-4-5').limits.maxOutputTokens, 64_000);
    assert.equal(lookupModelLimits('gpt-4o').limits.maxOutputTokens, 16_384);
  });

  test('an unknown model gets the documented default', () => {
    const lookup = lookupModelLimits('my-private-model');
    assert.equal(lookup.matched, null);
    assert.deepEqual(lookup.limits, DEFAULT_MODEL_LIMITS);
    assert.equal(DEFAULT_MODEL_LIMITS.contextWindow, 128_000);
  });
});

describe('--compact-at', () => {
  test('accepts token counts and percentages', () => {
    assert.deepEqual(parseCompactAt('120000'), { kind: 'tokens', tokens: 120_000 });
    assert.deepEqual(parseCompactAt('120_000'), { kind: 'tokens', tokens: 120_000 });
    assert.deepEqual(parseCompactAt('120,000'), { kind: 'tokens', tokens: 120_000 });
    assert.deepEqual(parseCompactAt('120k'), { kind: 'tokens', tokens: 120_000 });
    assert.deepEqual(parseCompactAt(' 85% '), { kind: 'percent', percent: 85 });
    assert.deepEqual(parseCompactAt('72.5%'), { kind: 'percent', percent: 72.5 });
    assert.equal(compactAtTokens({ kind: 'percent', percent: 85 }, 400_000), 340_000);
    assert.equal(compactAtTokens({ kind: 'tokens', tokens: 9000 }, 400_000), 9000);
  });

  test('rejects junk with a clear usage error', () => {
    for (const junk of ['', 'lots', '85', '0', '0%', '101%', '-5', '12.5', '1e5', '%', '50%%', '9999999999999999999']) {
      if (junk === '85') continue; // 85 is a valid (tiny) token count
      assert.throws(
        () => parseCompactAt(junk),
        (error: unknown) => error instanceof CompactionConfigError && error.exitCode === 2 && error.message.includes('--compact-at'),
        JSON.stringify(junk),
      );
    }
    assert.throws(() => parseContextWindow('big'), /--context-window "big": expected a positive number of tokens/);
    assert.equal(parseContextWindow('32k'), 32_000);
  });
});

describe('compaction settings', () => {
  test('default: catalog window, threshold at 85 %', () => {
    const resolved = resolveCompactionSettings({ model: 'gpt-4o' });
    assert.equal(resolved.limits.contextWindow, 128_000);
    assert.equal(resolved.limitsSource, 'catalog');
    assert.equal(resolved.threshold, 108_800);
    assert.deepEqual(resolved.warnings, []);
  });

  test('an unknown model gets the default window and a warning that says how to fix it', () => {
    const resolved = resolveCompactionSettings({ model: 'acme-coder' });
    assert.equal(resolved.limits.contextWindow, 128_000);
    assert.equal(resolved.limitsSource, 'default');
    assert.equal(resolved.warnings.length, 1);
    assert.equal(resolved.warnings[0].code, 'UNKNOWN_MODEL_WINDOW');
    assert.match(resolved.warnings[0].message, /acme-coder.*128,000.*--context-window/);
  });

  test('config overrides the catalog, the flag overrides config; compactAt likewise', () => {
    const config = parseCompactionConfig(
      {
        models: { 'gpt-4o': { contextWindow: 64_000, maxOutputTokens: 4_000 }, acme: { contextWindow: 10_000 } },
        compaction: { compactAt: '50%', instructions: '  Mention the ticket number.  ' },
        server: { port: 1234 },
      },
      '/home/config.json',
    );
    const fromConfig = resolveCompactionSettings({ model: 'gpt-4o', config });
    assert.deepEqual(fromConfig.limits, { contextWindow: 64_000, maxOutputTokens: 4_000 });
    assert.equal(fromConfig.limitsSource, 'config');
    assert.equal(fromConfig.threshold, 32_000);
    assert.equal(fromConfig.instructions, 'Mention the ticket number.');
    const byPrefix = resolveCompactionSettings({ model: 'acme-large', config });
    assert.equal(byPrefix.limits.contextWindow, 10_000);
    assert.deepEqual(byPrefix.warnings, []);
    const fromFlags = resolveCompactionSettings({ model: 'gpt-4o', config, contextWindow: '100000', compactAt: '90000' });
    assert.equal(fromFlags.limits.contextWindow, 100_000);
    assert.equal(fromFlags.limitsSource, 'flag');
    assert.equal(fromFlags.threshold, 90_000);
  });

  test('a threshold at or beyond the window is allowed but warned about', () => {
    const resolved = resolveCompactionSettings({ model: 'gpt-4o', compactAt: '200k' });
    assert.deepEqual(resolved.warnings.map((warning) => warning.code), ['COMPACT_AT_BEYOND_WINDOW']);
  });

  test('bad config values are usage errors naming the file and the setting', () => {
    assert.throws(
      () => parseCompactionConfig({ models: { x: { contextWindow: -1 } } }, '/h/config.json'),
      (error: unknown) => error instanceof CompactionConfigError && /\/h\/config.json: models\.x\.contextWindow/.test(error.message),
    );
    assert.throws(() => parseCompactionConfig({ compaction: { compactAT: '50%' } }, '/h/config.json'), /compaction/);
    const config = parseCompactionConfig({ compaction: { compactAt: 'soon' } }, '/h/config.json');
    assert.throws(() => resolveCompactionSettings({ model: 'gpt-4o', config }), /\/h\/config.json: compaction.compactAt "soon" is not understood/);
  });

  test('reads <home>/config.json; a missing file is empty, broken JSON is an error', async () => {
    await withTempDir(async (home) => {
      assert.deepEqual((await readCompactionConfig(home)).models, {});
      await writeFile(join(home, 'config.json'), JSON.stringify({ models: { 'local-model': { contextWindow: 16_000 } } }));
      const config = await readCompactionConfig(home);
      assert.equal(resolveCompactionSettings({ model: 'local-model', config }).limits.contextWindow, 16_000);
      await writeFile(join(home, 'config.json'), '{ nope');
      await assert.rejects(readCompactionConfig(home), (error: unknown) => error instanceof CompactionConfigError && /is not valid JSON/.test(error.message));
    });
  });
});
