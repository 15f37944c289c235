// A shell command that exits non-zero is a normal result for the model, but a person must see it
// failed: in the interactive terminal (tmux) the call is marked ✗ with its exit code in red and
// the last lines the command printed, not `✓ shell … · done`.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startFakeProvider } from '../../src/testing/index.js';
import { ptyEnv, ptyProject, requireTmux } from './pty-fixtures.js';
import { TmuxScreen } from './tmux-screen.js';

const skip = requireTmux();

const FAILING_COMMAND = "printf 'compiling\\nsrc/a.ts:3 error: missing semicolon\\n' >&2; exit 1";

describe('a failed shell command in the terminal (tmux)', { skip }, () => {
  test('shows ✗, the exit code in red and the tail of its output; a command that exits 0 stays ✓', async (t) => {
    const { root, home } = await ptyProject();
    const provider = await startFakeProvider({
      script: [
        { toolCalls: [{ name: 'shell', arguments: { command: FAILING_COMMAND } }] },
        { toolCalls: [{ name: 'shell', arguments: { command: 'echo fine' } }] },
        { text: 'The build fails on a missing semicolon.' },
      ],
    });
    t.after(() => provider.close());
    const screen = await TmuxScreen.start({
      args: ['--base-url', provider.baseURL, '--sandbox', 'danger-full-access', '--approval-policy', 'never'],
      env: ptyEnv({ GLASSBOX_HOME: home }),
      cwd: root,
    });
    try {
      await screen.waitFor('new session');
      await screen.submit('build it');
      await screen.waitFor('The build fails on a missing semicolon.');
      const text = await screen.capture({ history: true });
      assert.match(text, /✗ shell printf .*· exit 1 · \d/, text);
      assert.match(text, /└ compiling\n\s+src\/a\.ts:3 error: missing semicolon\n/, text);
      assert.doesNotMatch(text, /✓ shell printf/, text);
      assert.match(text, /✓ shell echo fine · done/, text);
      // Red (SGR 31): the exit code and the lines under it.
      const escaped = await screen.capture({ escapes: true, history: true });
      assert.match(escaped, /\u001b\[31m[^\u001b]*exit 1/, escaped);
      assert.match(escaped, /\u001b\[31m[^\u001b]*src\/a\.ts:3 error: missing semicolon/, escaped);
    } finally {
      await screen.close();
    }
  });
});
