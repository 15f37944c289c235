// `exec --command <name> args…` through the built CLI: the command file's text is the prompt
// with `$1`… and `$ARGUMENTS` put in (argv words, as the shell split them); an unknown command
// is a usage error that names the ones there are.

import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { startFakeProvider } from '../../src/testing/index.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { cliEnv, runCli } from '../helpers/run-cli.js';
import { sentEntries } from '../helpers/sent-requests.js';

test('exec --command sends the prompt command with its arguments; an unknown one is a usage error', async (t) => {
  const base = await makeTempDir();
  const root = join(base, 'project');
  await mkdir(join(root, '.claude', 'commands'), { recursive: true });
  await writeFile(
    join(root, '.claude', 'commands', 'fix-issue.md'),
    '---\ndescription: Fix a numbered issue\n---\nFix issue #$1 ($2). Everything: $ARGUMENTS\n',
  );
  const provider = await startFakeProvider({ script: [{ text: 'Fixed.' }] });
  t.after(() => provider.close());
  const env = cliEnv({ OPENAI_API_KEY: 'sk-test', GLASSBOX_HOME: join(base, 'home') });
  const [ran, unknown] = await Promise.all([
    runCli(['exec', '--base-url', provider.baseURL, '-C', root, '--command', 'fix-issue', '123', 'high priority'], env),
    runCli(['exec', '--base-url', provider.baseURL, '-C', root, '--command', 'nope', 'x'], env),
  ]);
  assert.equal(ran.code, 0, ran.stderr);
  assert.equal(ran.stdout, 'Fixed.\n');
  const request = provider.requests[0]!;
  const user = sentEntries(request.body, request.wireApi).find((entry) => entry.kind === 'message' && entry.role === 'user');
  assert.ok(user?.kind === 'message', JSON.stringify(sentEntries(request.body, request.wireApi)));
  assert.equal(user.text, 'Fix issue #123 (high priority). Everything: 123 high priority');
  assert.equal(unknown.code, 2, unknown.stderr);
  assert.match(unknown.stderr, /no prompt command "nope": there are fix-issue/);
  assert.equal(provider.requests.length, 1);
});
