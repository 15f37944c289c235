// Without a terminal there is no interactive session: a prompt runs once as `exec` would (and
// says so), no prompt is a usage error that says what to do, and a mistyped command is still an
// unknown command rather than a session.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { join } from 'node:path';
import { JsonlSessionStore } from '../../src/sessions/index.js';
import { startFakeProvider } from '../../src/testing/index.js';
import { cliEnv, runCli } from '../helpers/run-cli.js';
import { ptyProject } from './pty-fixtures.js';

describe('glassbox without a terminal', { concurrency: true }, () => {
  test('no prompt: exit 2 with a clear message; a prompt: runs once like exec', async () => {
    const { root, home } = await ptyProject();
    const provider = await startFakeProvider({ script: [{ text: 'Answered once.' }] });
    try {
      const env = cliEnv({ OPENAI_API_KEY: 'k', GLASSBOX_HOME: home });
      // The bare run sends nothing, so both can run at once.
      const [bare, chat] = await Promise.all([
        runCli(['--base-url', provider.baseURL, '-C', root], env),
        runCli(['chat', '--base-url', provider.baseURL, '-C', root, 'say', 'hi'], env),
      ]);
      assert.equal(bare.code, 2);
      assert.match(bare.stderr, /interactive session needs a terminal/);
      assert.match(bare.stderr, /glassbox exec/);

      assert.equal(chat.code, 0, chat.stderr);
      assert.equal(chat.stdout, 'Answered once.\n');
      assert.match(chat.stderr, /not a terminal .*running the prompt once/);
      assert.equal((await new JsonlSessionStore(join(home, 'sessions')).list()).sessions.length, 1);
    } finally {
      await provider.close();
    }
  });

  test('a mistyped command is reported with a suggestion, not taken as a prompt', async () => {
    const result = await runCli(['exce', 'hello'], cliEnv({}));
    assert.equal(result.code, 2);
    assert.match(result.stderr, /unknown command 'exce'/);
    assert.match(result.stderr, /Did you mean exec/);
  });
});
