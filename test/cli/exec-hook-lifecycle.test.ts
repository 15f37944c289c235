// Stop and SessionEnd hooks through the built CLI (issue 26): `glassbox exec` goes on when a Stop
// hook blocks, runs SessionEnd (`reason: "other"`) once the turn is over, and with --json the
// result is still the last line printed.

import assert from 'node:assert/strict';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startFakeProvider } from '../../src/testing/index.js';
import { cliEnv, jsonLines, runCli } from '../helpers/run-cli.js';
import { makeTempDir } from '../helpers/temp-dir.js';

describe('exec with lifecycle hooks', () => {
  test('a Stop hook keeps the turn going once; SessionEnd runs after it; the result stays the last --json line', async (t) => {
    const base = await makeTempDir();
    const root = join(base, 'project');
    const home = join(base, 'home');
    const log = join(base, 'hooks.log');
    await mkdir(root, { recursive: true });
    await mkdir(home, { recursive: true });
    const hook = join(base, 'hook.sh');
    await writeFile(
      hook,
      [
        '#!/bin/bash',
        'input=$(cat)',
        `printf '%s\\n' "$input" >> ${JSON.stringify(log)}`,
        `if printf '%s' "$input" | grep -q '"hook_event_name":"Stop","stop_hook_active":false'; then echo "also update the changelog" >&2; exit 2; fi`,
      ].join('\n'),
    );
    await chmod(hook, 0o755);
    const entry = [{ hooks: [{ type: 'command', command: hook }] }];
    await writeFile(join(home, 'config.json'), JSON.stringify({ hooks: { Stop: entry, SessionEnd: entry } }));
    const provider = await startFakeProvider({ script: [{ text: 'Fixed.' }, { text: 'Fixed, changelog too.' }] });
    t.after(() => provider.close());
    const result = await runCli(
      ['exec', '--json', '--base-url', provider.baseURL, '-m', 'm', '-C', root, 'fix it'],
      cliEnv({ OPENAI_API_KEY: 'sk-test', GLASSBOX_HOME: home }),
    );
    assert.equal(result.code, 0, result.stderr);
    const events = jsonLines(result.stdout);
    const last = events.at(-1)!;
    assert.equal(last.type, 'run_succeeded');
    assert.equal(last.answer, 'Fixed, changelog too.');
    assert.equal(provider.requests.length, 2);
    assert.match(JSON.stringify(provider.requests[1]?.body), /also update the changelog/);
    const inputs = (await readFile(log, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.deepEqual(
      inputs.map((input) => [input.hook_event_name, input.stop_hook_active ?? input.reason]),
      [
        ['Stop', false],
        ['Stop', true],
        ['SessionEnd', 'other'],
      ],
    );
    assert.equal(inputs[2]!.session_id, last.sessionId);
  });
});
