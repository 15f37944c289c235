// An applied change keeps its diff in the transcript (issue 25 item 4): after the approver's `y`
// and under workspace-write with no approval alike, the edited lines stay under the call's line,
// capped to a few rows with a count of the rest, which Ctrl-O then shows in full.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startFakeProvider } from '../../src/testing/index.js';
import { ptyEnv, ptyProject, requireTmux } from './pty-fixtures.js';
import { TmuxScreen } from './tmux-screen.js';

const skip = requireTmux();

const LONG_FILE = Array.from({ length: 30 }, (_, index) => `line ${index + 1}`).join('\n');

describe('an applied edit in the terminal (tmux)', { skip, concurrency: true }, () => {
  test('after y, the diff of the edit stays under its line', async (t) => {
    const { root, home } = await ptyProject();
    const provider = await startFakeProvider({
      script: [
        { toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
        { toolCalls: [{ name: 'edit_file', arguments: { path: 'notes.txt', old_string: 'the milk', new_string: 'the oat milk' } }] },
        { text: 'Done: it now says oat milk.' },
      ],
    });
    t.after(() => provider.close());
    const screen = await TmuxScreen.start({ args: ['--base-url', provider.baseURL], env: ptyEnv({ GLASSBOX_HOME: home }), cwd: root });
    try {
      await screen.waitFor('new session');
      await screen.submit('change the milk to oat milk');
      await screen.waitFor('[y] approve once');
      await screen.keys('y');
      await screen.waitFor('Done: it now says oat milk.');
      const text = await screen.capture({ history: true });
      // The approval panel is gone; what stays is the call's line, its note and the diff.
      assert.match(text, /✓ edit_file notes\.txt[^\n]*\n\s+└ approved\n[\s\S]*-remember the milk\n\s+\+remember the oat milk/, text);
      const escaped = await screen.capture({ escapes: true, history: true });
      assert.match(escaped, /\u001b\[[0-9;]*m\+remember the oat milk/, escaped);
    } finally {
      await screen.close();
    }
  });

  test('under workspace-write (no approval) a long write shows a capped diff; Ctrl-O shows all of it', async (t) => {
    const { root, home } = await ptyProject();
    const provider = await startFakeProvider({
      script: [
        { toolCalls: [{ name: 'write_file', arguments: { path: 'long.txt', content: `${LONG_FILE}\n` } }] },
        { text: 'Wrote the long file.' },
      ],
    });
    t.after(() => provider.close());
    const screen = await TmuxScreen.start({
      args: ['--base-url', provider.baseURL, '--sandbox', 'workspace-write', '--approval-policy', 'never'],
      env: ptyEnv({ GLASSBOX_HOME: home }),
      cwd: root,
    });
    try {
      await screen.waitFor('new session');
      await screen.submit('write the long file');
      await screen.waitFor('Wrote the long file.');
      assert.equal(await readFile(join(root, 'long.txt'), 'utf8'), `${LONG_FILE}\n`);
      const text = await screen.capture({ history: true });
      assert.match(text, /✓ write_file long\.txt[^\n]*\n[\s\S]*\+line 1\n\s+\+line 2\n/, text);
      assert.match(text, /… \d+ more lines · ctrl-o/, text);
      assert.doesNotMatch(text, /\+line 30/, text);
      await screen.keys('C-o');
      const expanded = await screen.waitFor(/\+line 30/);
      assert.match(expanded, /\+line 29\n/, expanded);
    } finally {
      await screen.close();
    }
  });
});
