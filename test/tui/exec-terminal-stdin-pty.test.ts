// `glassbox exec` never reads a terminal on stdin (the person is there, not a piped prompt): with
// a prompt it runs at once, without one it says how to give one. In tmux, so stdin is a real TTY.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startFakeProvider } from '../../src/testing/index.js';
import { ptyEnv, ptyProject, requireTmux } from './pty-fixtures.js';
import { TmuxScreen } from './tmux-screen.js';

const skip = requireTmux();

describe('glassbox exec with a terminal on stdin (tmux)', { skip, concurrency: true }, () => {
  test('a prompt runs without waiting for stdin', async (t) => {
    const { root, home } = await ptyProject();
    const provider = await startFakeProvider({ script: [{ text: 'Answered at once.' }] });
    t.after(() => provider.close());
    const screen = await TmuxScreen.start({
      args: ['exec', '--base-url', provider.baseURL, 'hi'],
      env: ptyEnv({ GLASSBOX_HOME: home }),
      cwd: root,
    });
    try {
      assert.equal(await screen.exitCode(), 0, await screen.capture({ history: true }));
      const text = await screen.capture({ history: true });
      assert.match(text, /Answered at once\./);
      assert.doesNotMatch(text, /waiting for stdin/);
      assert.equal(JSON.stringify(provider.requests[0]!.body).includes('<stdin>'), false);
    } finally {
      await screen.close();
    }
  });

  for (const [args, message] of [
    [[], /no prompt: give it as arguments \(glassbox exec "…"\) or pipe it on stdin/],
    [['-'], /"-" reads the prompt from stdin, but stdin is a terminal/],
  ] as const) {
    test(`exec ${args.join(' ') || '(no prompt)'} is a usage error that says how to give the prompt`, async () => {
      const { root, home } = await ptyProject();
      const screen = await TmuxScreen.start({ args: ['exec', ...args], env: ptyEnv({ GLASSBOX_HOME: home }), cwd: root });
      try {
        assert.equal(await screen.exitCode(), 2);
        assert.match(await screen.capture({ history: true }), message);
      } finally {
        await screen.close();
      }
    });
  }
});
