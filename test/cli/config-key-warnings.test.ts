// Keys of config.json that no part of Glassbox reads warn, naming the file and the nearest known
// key, and everything the file says that is known still applies. Through the built CLI for what a
// user sees (stderr of `exec`); the nearest-key choice on its own.

import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { nearestKey, PROJECT_CONFIG_KEYS, USER_CONFIG_KEYS } from '../../src/cli/config-key-warnings.js';
import { startFakeProvider } from '../../src/testing/index.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { cliEnv, jsonLines, runCli } from '../helpers/run-cli.js';

describe('unknown keys in config.json', { concurrency: true }, () => {
  test('exec warns on stderr for each, with the nearest known key, and the known settings still apply', async (t) => {
    const base = await makeTempDir();
    const root = join(base, 'project');
    const home = join(base, 'home');
    await mkdir(join(root, '.glassbox'), { recursive: true });
    await mkdir(home, { recursive: true });
    await writeFile(
      join(home, 'config.json'),
      JSON.stringify({
        model: 'gpt-5',
        mcp_servers: {},
        approval_policy: 'never',
        // Known: a price of $1 per million tokens either way, which the run's cost must show.
        models: { 'gpt-5-mini': { pricing: { inputPerMillion: 1, outputPerMillion: 1 } } },
      }),
    );
    await writeFile(join(root, '.glassbox', 'config.json'), JSON.stringify({ mcpServers: {}, models: {}, 'evil\u001b]0;x\u0007': 1 }));
    const provider = await startFakeProvider({ script: [{ text: 'ok', usage: { input: 600_000, output: 400_000 } }] });
    t.after(() => provider.close());
    const result = await runCli(
      ['exec', '--json', '--base-url', provider.baseURL, '-m', 'gpt-5-mini', '-C', root, 'hi'],
      cliEnv({ OPENAI_API_KEY: 'sk-test', GLASSBOX_HOME: home }),
    );
    assert.equal(result.code, 0, result.stderr);
    const userFile = join(home, 'config.json');
    const projectFile = join(root, '.glassbox', 'config.json');
    const warnings = result.stderr.split('\n').filter((line) => line.startsWith('glassbox: warning: '));
    assert.deepEqual(warnings, [
      `glassbox: warning: ${userFile}: unknown setting "model" is ignored (did you mean "models"?; the model itself is chosen with -m/--model or GLASSBOX_MODEL; "models" overrides catalog entries)`,
      `glassbox: warning: ${userFile}: unknown setting "mcp_servers" is ignored (did you mean "mcpServers"?)`,
      `glassbox: warning: ${userFile}: unknown setting "approval_policy" is ignored (known settings: ${USER_CONFIG_KEYS.join(', ')})`,
      `glassbox: warning: ${projectFile}: "models" is read only from ${userFile}, never from a project's config; it is ignored here`,
      `glassbox: warning: ${projectFile}: unknown setting "evil\\u001b]0;x\\u0007" is ignored (known settings: ${PROJECT_CONFIG_KEYS.join(', ')})`,
    ]);
    // The price override was read: 1M tokens at $1 per million.
    assert.equal(jsonLines(result.stdout).at(-1)!.totalCostUsd, 1);
  });

  test('a file with only known keys, or none at all, says nothing', async () => {
    const base = await makeTempDir();
    const home = join(base, 'home');
    await mkdir(home, { recursive: true });
    await writeFile(join(home, 'config.json'), JSON.stringify(Object.fromEntries(USER_CONFIG_KEYS.map((key) => [key, {}]))));
    const [known, none] = await Promise.all([
      runCli(['exec', '-C', base, 'hi'], cliEnv({ GLASSBOX_HOME: home })),
      runCli(['exec', '-C', base, 'hi'], cliEnv({ GLASSBOX_HOME: join(base, 'nowhere') })),
    ]);
    for (const result of [known, none]) {
      assert.equal(result.code, 0, result.stderr);
      assert.doesNotMatch(result.stderr, /unknown setting/);
    }
  });
});

test('the nearest known key: close misspellings and other spellings, not unrelated words', () => {
  assert.equal(nearestKey('model', USER_CONFIG_KEYS), 'models');
  assert.equal(nearestKey('sandbx', USER_CONFIG_KEYS), 'sandbox');
  assert.equal(nearestKey('MCP-Servers', USER_CONFIG_KEYS), 'mcpServers');
  assert.equal(nearestKey('compation', USER_CONFIG_KEYS), 'compaction');
  assert.equal(nearestKey('approval_policy', USER_CONFIG_KEYS), null);
  assert.equal(nearestKey('x', USER_CONFIG_KEYS), null);
});
