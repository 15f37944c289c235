// `exec`'s progress on stderr marks a shell command that exited non-zero as failed, with its exit
// code and the last lines it printed (the model still gets it as a normal result). Through the
// built CLI, running real bash.

import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { startFakeProvider } from '../../src/testing/index.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { cliEnv, runCli } from '../helpers/run-cli.js';

const FAILING_COMMAND = "printf 'compiling\\nsrc/a.ts:3 error: missing semicolon\\n' >&2; exit 1";

test('exec shows a failed shell command as ✗ with its exit code and output tail; one that exits 0 as ✓', async (t) => {
  const base = await makeTempDir();
  const root = join(base, 'project');
  await mkdir(root, { recursive: true });
  const provider = await startFakeProvider({
    script: [
      { toolCalls: [{ name: 'shell', arguments: { command: FAILING_COMMAND } }] },
      { toolCalls: [{ name: 'shell', arguments: { command: 'echo fine' } }] },
      { text: 'It fails on a missing semicolon.' },
    ],
  });
  t.after(() => provider.close());
  const result = await runCli(
    ['exec', '--base-url', provider.baseURL, '-C', root, '--sandbox', 'danger-full-access', '--approval-policy', 'never', 'build it'],
    cliEnv({ OPENAI_API_KEY: 'sk-test', GLASSBOX_HOME: join(base, 'home') }),
  );
  assert.equal(result.code, 0, result.stderr);
  assert.match(
    result.stderr,
    /\n {2}✗ shell exit 1 \(\d+ ms\)\n {4}│ compiling\n {4}│ src\/a\.ts:3 error: missing semicolon\n/,
    result.stderr,
  );
  assert.match(result.stderr, /\n {2}✓ shell \(\d+ ms\)\n/, result.stderr);
  // The model got the whole result, exit code first, as a normal tool output.
  assert.match(JSON.stringify(provider.requests[1]!.body), /exit_code: 1, /);
});
