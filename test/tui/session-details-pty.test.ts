// Smaller things the terminal got wrong (issue 25 item 12): /debug's file holds the whole request
// and is private (0600, like the session files); a fork's status line counts the tokens of the
// history it carries, as the session list does, instead of 0; an answer cut off by Esc is
// marked as cancelled, not left looking like a finished one; and /model refuses a model of
// another provider's API than the endpoint's, and without a name is a picker.

import assert from 'node:assert/strict';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startFakeProvider } from '../../src/testing/index.js';
import { ptyEnv, ptyProject, requireTmux } from './pty-fixtures.js';
import { TmuxScreen, waitUntil } from './tmux-screen.js';

const skip = requireTmux();

const TOKENS = /· ([\d.]+k?) tokens ·/;

describe('session details in the terminal (tmux)', { skip, concurrency: true }, () => {
  test('/debug writes its file 0600; after /fork the status line keeps the tokens of the history', async (t) => {
    const { root, home } = await ptyProject();
    const provider = await startFakeProvider({ script: [{ text: 'First answer.' }] });
    t.after(() => provider.close());
    // Wide: the file's path is read off the screen in one piece.
    const screen = await TmuxScreen.start({
      args: ['--base-url', provider.baseURL],
      env: ptyEnv({ GLASSBOX_HOME: home }),
      cwd: root,
      width: 200,
    });
    try {
      await screen.waitFor('new session');
      await screen.submit('first question');
      await screen.waitFor('First answer.');
      await screen.waitIdle();
      const before = TOKENS.exec(await screen.capture())?.[1];
      assert.ok(before !== undefined && before !== '0', 'the turn used tokens');

      await screen.submit('/debug');
      const shown = await screen.waitFor(/full request: (\S+\.json)/);
      const file = /full request: (\S+\.json)/.exec(shown)![1]!;
      assert.equal((await stat(file)).mode & 0o777, 0o600);
      assert.equal((await stat(join(home, 'debug'))).mode & 0o777, 0o700);

      await screen.submit('/fork');
      await screen.waitFor(/forked \S+ →/);
      await screen.waitIdle();
      assert.equal(TOKENS.exec(await screen.capture())?.[1], before, await screen.capture());
    } finally {
      await screen.close();
    }
  });

  test("/model refuses another provider's model than the endpoint speaks, and names the wire that would; the picker switches", async (t) => {
    const { root, home } = await ptyProject();
    const provider = await startFakeProvider({ script: [] });
    t.after(() => provider.close());
    const screen = await TmuxScreen.start({
      args: ['--base-url', provider.baseURL],
      env: ptyEnv({ GLASSBOX_HOME: home }),
      cwd: root,
      width: 200,
    });
    try {
      await screen.waitFor('new session');
      await screen.submit('/model claude-sonnet-4-5');
      const refused = await screen.waitFor(/model not changed: claude-sonnet-4-5 is anthropic's model/);
      assert.match(refused, /--wire-api\s+anthropic/, refused);
      // The status line still names the model the session started on (drawn by its own frame).
      await screen.waitUntil((s) => s.includes('gpt-5-mini · chat') && s.includes('Enter send'), 'the status line, unchanged');
      // A model of the endpoint's own provider switches without a word more.
      await screen.submit('/model gpt-5');
      const plain = await screen.waitFor(/model: gpt-5\b/);
      assert.doesNotMatch(plain.slice(plain.lastIndexOf('model: gpt-5')), /--wire-api/, plain);
      // Without a name: a picker of the catalog's models for this API, on the current one.
      await screen.waitIdle();
      await screen.submit('/model');
      // The whole picker: its top can be on screen a frame before its key line.
      const picker = await screen.waitUntil((s) => /› +gpt-5 +\(current\)/.test(s) && s.includes('Enter pick · Esc cancel'), 'the picker');
      assert.doesNotMatch(picker, /│ +claude/, picker);
      await screen.keys('Down');
      await screen.waitFor(/› +gpt-5-mini/);
      await screen.keys('Enter');
      await screen.waitFor(/model: gpt-5-mini\b/);
      await screen.waitUntil((s) => /gpt-5-mini · chat/.test(s) && s.includes('Enter send'), 'the status line on gpt-5-mini');
      await screen.submit('/model');
      await screen.waitFor(/› +gpt-5-mini +\(current\)/);
      await screen.keys('Escape');
      await screen.waitUntil((s) => s.includes('Enter send') && !s.includes('Enter pick'), 'the picker closed');
    } finally {
      await screen.close();
    }
  });

  test('an answer cut off by Esc is marked (cancelled)', async (t) => {
    const { root, home } = await ptyProject();
    const provider = await startFakeProvider({
      script: [{ text: 'Here is the start of a long answer that never ends', chunkSize: 10, fault: { kind: 'stall', afterEvents: 4 } }],
    });
    t.after(() => provider.close());
    const screen = await TmuxScreen.start({ args: ['--base-url', provider.baseURL], env: ptyEnv({ GLASSBOX_HOME: home }), cwd: root });
    try {
      await screen.waitFor('new session');
      await screen.submit('tell me everything');
      await screen.waitFor('Here is');
      await waitUntil(() => provider.requests.length === 1, 'the request to reach the provider');
      await screen.keys('Escape');
      await screen.waitIdle();
      const text = await screen.capture({ history: true });
      assert.match(text, /● Here is[^\n]*\(cancelled\)/, text);
    } finally {
      await screen.close();
    }
  });
});
