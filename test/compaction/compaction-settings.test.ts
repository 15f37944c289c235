import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  CompactionConfigError,
  compactAtTokens,
  compactionSettings,
  parseCompactAt,
  parseCompactionConfig,
  parseContextWindow,
  readCompactionConfig,
  resolveCompactionSettings,
} from '../../src/compaction/index.js';
import { withTempDir } from '../helpers/temp-dir.js';

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
    assert.equal(resolved.warnings[0]!.code, 'UNKNOWN_MODEL_WINDOW');
    assert.match(resolved.warnings[0]!.message, /acme-coder.*128,000.*--context-window/);
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
    assert.deepEqual(
      resolved.warnings.map((warning) => warning.code),
      ['COMPACT_AT_BEYOND_WINDOW'],
    );
  });

  test('bad config values are usage errors naming the file and the setting', () => {
    assert.throws(
      () => parseCompactionConfig({ models: { x: { contextWindow: -1 } } }, '/h/config.json'),
      (error: unknown) => error instanceof CompactionConfigError && /\/h\/config.json: models\.x\.contextWindow/.test(error.message),
    );
    assert.throws(() => parseCompactionConfig({ compaction: { compactAT: '50%' } }, '/h/config.json'), /compaction/);
    const config = parseCompactionConfig({ compaction: { compactAt: 'soon' } }, '/h/config.json');
    assert.throws(
      () => resolveCompactionSettings({ model: 'gpt-4o', config }),
      /\/h\/config.json: compaction.compactAt "soon" is not understood/,
    );
  });

  test('reads <home>/config.json; a missing file is empty, broken JSON is an error', async () => {
    await withTempDir(async (home) => {
      assert.deepEqual((await readCompactionConfig(home)).models, {});
      await writeFile(join(home, 'config.json'), JSON.stringify({ models: { 'local-model': { contextWindow: 16_000 } } }));
      const config = await readCompactionConfig(home);
      assert.equal(resolveCompactionSettings({ model: 'local-model', config }).limits.contextWindow, 16_000);
      await writeFile(join(home, 'config.json'), '{ nope');
      await assert.rejects(
        readCompactionConfig(home),
        (error: unknown) => error instanceof CompactionConfigError && /is not valid JSON/.test(error.message),
      );
    });
  });

  test('a <home>/config.json that is a FIFO is a usage error at once, never read (like the MCP settings of the same file)', async () => {
    await withTempDir(async (home) => {
      const path = join(home, 'config.json');
      execFileSync('mkfifo', [path]);
      // Were it opened blocking, this writer would hand it a valid config and the read would succeed.
      const writer = spawn('sh', ['-c', 'printf %s "$1" > "$2"', 'writer', '{"models":{}}', path], { stdio: 'ignore' });
      try {
        await assert.rejects(
          readCompactionConfig(home),
          (error: unknown) =>
            error instanceof CompactionConfigError && error.message === `${path} is not a regular file (a FIFO), so it is not read`,
        );
      } finally {
        writer.kill('SIGKILL');
      }
    });
  });
});

describe('model overrides in <home>/config.json', () => {
  test('an override defines a local model, and its window is the one compaction uses', async () => {
    await withTempDir(async (home) => {
      // Without the override the catalog's qwen3-coder family (262,144 tokens) would apply.
      assert.equal(resolveCompactionSettings({ model: 'qwen3-coder:30b' }).limits.contextWindow, 262_144);
      await writeFile(
        join(home, 'config.json'),
        JSON.stringify({ models: { 'qwen3-coder:30b': { contextWindow: 32_768, pricing: null } } }),
      );
      const resolved = resolveCompactionSettings({ model: 'qwen3-coder:30b', config: await readCompactionConfig(home) });
      assert.equal(resolved.limitsSource, 'config');
      assert.equal(resolved.threshold, 27_852); // 85 % of 32,768
      assert.deepEqual(resolved.warnings, []);
      assert.equal(resolved.modelEntry.contextWindow, 32_768);
      assert.equal(resolved.modelEntry.maxOutputTokens, 65_536, 'fields the override leaves out come from the catalog');
      assert.equal(resolved.modelEntry.pricing, null);
      const settings = compactionSettings(resolved);
      assert.equal(settings.contextWindow, 32_768);
      assert.equal(settings.threshold, 27_852);
    });
  });

  test('an override is merged over the built-in entry: a price changes, the window stays', () => {
    const config = parseCompactionConfig(
      { models: { 'gpt-4o': { pricing: { inputPerMillion: 2, outputPerMillion: 8 }, promptCaching: 'none' } } },
      '/h/config.json',
    );
    const resolved = resolveCompactionSettings({ model: 'openai/gpt-4o-2024-08-06', config });
    assert.equal(resolved.limits.contextWindow, 128_000);
    assert.equal(resolved.limitsSource, 'catalog');
    assert.equal(resolved.modelEntry.reasoning, 'none');
    assert.equal(resolved.modelEntry.promptCaching, 'none');
    assert.deepEqual(resolved.modelEntry.pricing, { inputPerMillion: 2, cachedInputPerMillion: 2, outputPerMillion: 8 });
    assert.match(resolved.modelEntry.source, /overridden by config models\.gpt-4o/);
  });

  test('an unknown model with no override keeps the default window and its warning', () => {
    const config = parseCompactionConfig({ models: { 'other-model': { contextWindow: 8_000 } } }, '/h/config.json');
    const resolved = resolveCompactionSettings({ model: 'acme-coder', config });
    assert.equal(resolved.limitsSource, 'default');
    assert.equal(resolved.limits.contextWindow, 128_000);
    assert.deepEqual(
      resolved.warnings.map((warning) => warning.code),
      ['UNKNOWN_MODEL_WINDOW'],
    );
    assert.equal(resolved.modelEntry.pricing, null);
  });

  test('a bad models entry is a usage error that names the file and the key', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ models: { 'qwen3-coder:30b': { contextWindw: 32_768 } } }, /: models\.qwen3-coder:30b\.contextWindw: unknown setting$/],
      [{ models: { x: { pricing: { inputPerMillion: -1, outputPerMillion: 1 } } } }, /: models\.x\.pricing\.inputPerMillion: /],
      [{ models: { x: { pricing: { inputPerMillion: 1 } } } }, /: models\.x\.pricing\.outputPerMillion: /],
      [
        { models: { x: { pricing: { inputPerMillion: 1, outputPerMillion: 2, cachedInput: 0.1 } } } },
        /: models\.x\.pricing\.cachedInput: unknown setting$/,
      ],
      [{ models: { x: { reasoning: 'sometimes' } } }, /: models\.x\.reasoning: /],
      [{ models: { x: { promptCaching: true } } }, /: models\.x\.promptCaching: /],
    ];
    await withTempDir(async (home) => {
      for (const [value, pattern] of cases) {
        await writeFile(join(home, 'config.json'), JSON.stringify(value));
        await assert.rejects(
          readCompactionConfig(home),
          (error: unknown) =>
            error instanceof CompactionConfigError &&
            error.exitCode === 2 &&
            error.message.startsWith(join(home, 'config.json')) &&
            pattern.test(error.message),
          JSON.stringify(value),
        );
      }
    });
  });
});

test('a model that takes less input than its window compacts at a share of the input limit (gpt-5: 272k of 400k)', () => {
  const resolved = resolveCompactionSettings({ model: 'gpt-5-mini' });
  assert.equal(resolved.limits.contextWindow, 400_000);
  assert.equal(resolved.threshold, Math.floor(272_000 * 0.85));
  // An explicit window is the user's word: the share applies to it.
  assert.equal(resolveCompactionSettings({ model: 'gpt-5-mini', contextWindow: '100000' }).threshold, 85_000);
  const beyond = resolveCompactionSettings({ model: 'gpt-5-mini', compactAt: '300000' });
  assert.match(beyond.warnings.map((warning) => warning.message).join('\n'), /not below the input limit \(272,000\)/);
});
