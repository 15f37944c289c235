// Keys that change how the transcript is shown (issue 25 item 12): Ctrl-O expands the output of
// every tool call in the transcript and folds it again, Ctrl-T does the same for reasoning; and a
// window that shrinks is cleared and repainted instead of keeping pieces of the wider frame.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startFakeProvider } from '../../src/testing/index.js';
import { ptyEnv, ptyProject, requireTmux } from './pty-fixtures.js';
import { TmuxScreen } from './tmux-screen.js';

const skip = requireTmux();

const FULL_ACCESS = ['--sandbox', 'danger-full-access', '--approval-policy', 'never'];

describe('transcript keys and resizing (tmux)', { skip, concurrency: true }, () => {
  test('Ctrl-O expands every tool output and folds it again; Ctrl-T expands reasoning', async (t) => {
    const { root, home } = await ptyProject();
    const provider = await startFakeProvider({
      script: [
        {
          reasoning: { text: 'The secret plan is to count the lines first' },
          toolCalls: [{ name: 'shell', arguments: { command: "printf 'AAA-%s\\n' out" } }],
        },
        { toolCalls: [{ name: 'shell', arguments: { command: "printf 'BBB-%s\\n' out" } }] },
        { text: 'All done.' },
      ],
    });
    t.after(() => provider.close());
    const screen = await TmuxScreen.start({
      args: ['--base-url', provider.baseURL, ...FULL_ACCESS],
      env: ptyEnv({ GLASSBOX_HOME: home }),
      cwd: root,
      width: 100,
      height: 40,
    });
    try {
      await screen.submit('count them');
      await screen.waitFor('All done.');
      await screen.waitIdle();
      const folded = await screen.capture({ history: true });
      assert.match(folded, /∴ thought \(\d+ words\)/, folded);
      assert.doesNotMatch(folded, /AAA-out|BBB-out|The secret plan/, folded);

      await screen.keys('C-o');
      const expanded = await screen.waitFor(/AAA-out[\s\S]*BBB-out/);
      assert.doesNotMatch(expanded, /The secret plan/, expanded);
      await screen.keys('C-o');
      const again = await screen.waitUntil((s) => !s.includes('AAA-out') && s.includes('Enter send'), 'the outputs folded again');
      assert.match(again, /All done\./, again);

      await screen.keys('C-t');
      const reasoning = await screen.waitFor('The secret plan is to count the lines first');
      assert.doesNotMatch(reasoning, /AAA-out/, reasoning);
    } finally {
      await screen.close();
    }
  });

  test('shrinking the window clears the wider frame and repaints the transcript at the new width', async (t) => {
    const { root, home } = await ptyProject();
    const provider = await startFakeProvider({ script: [{ text: `The answer ${'is long and '.repeat(12)}ends here.` }] });
    t.after(() => provider.close());
    const screen = await TmuxScreen.start({
      args: ['--base-url', provider.baseURL, ...FULL_ACCESS],
      env: ptyEnv({ GLASSBOX_HOME: home }),
      cwd: root,
      width: 120,
      height: 30,
    });
    try {
      await screen.submit('answer at length');
      await screen.waitFor('ends here.');
      await screen.waitIdle();
      await screen.resize(60, 30);
      // The editor box drawn once, at the new width: no top border of the old frame left over.
      const shown = await screen.waitUntil(
        (s) => s.includes('Enter send') && s.split('\n').some((row) => /^╭─{58}╮$/.test(row)),
        'a frame at 60 columns',
      );
      const everything = await screen.capture({ history: true, raw: true });
      const tops = everything.split('\n').filter((row) => row.includes('╭'));
      assert.equal(tops.length, 1, everything);
      assert.equal(everything.split('\n').filter((row) => row.includes('answer at length')).length, 1, everything);
      assert.match(shown, /ends here\./, shown);
    } finally {
      await screen.close();
    }
  });
});
