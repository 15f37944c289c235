// Input in a real terminal (tmux): a bracketed paste is text (its newlines do not send, a 200 KB
// paste is one placeholder on screen and reaches the model whole), and the prompt history outlives
// the process (Up in the next `glassbox` recalls it; the file is private and keeps no secrets).

import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startFakeProvider, type CapturedRequest } from '../../src/testing/index.js';
import { ptyEnv, ptyProject, requireTmux } from './pty-fixtures.js';
import { TmuxScreen, waitUntil } from './tmux-screen.js';

const skip = requireTmux();

/** The text of the last user message a chat-completions request carried. */
function lastUserText(request: CapturedRequest): string {
  const messages = (request.body as { messages: Array<{ role: string; content: unknown }> }).messages;
  const content = messages.filter((m) => m.role === 'user').at(-1)?.content;
  return typeof content === 'string' ? content : JSON.stringify(content);
}

describe('glassbox in a terminal: input (tmux)', { skip, concurrency: true }, () => {
  test('a bracketed paste keeps its newlines in the editor; a 200 KB paste is one placeholder and is sent whole', async (t) => {
    const { root, home } = await ptyProject();
    const provider = await startFakeProvider({ script: [{ text: 'Got three lines.' }, { text: 'Got the log.' }] });
    // Closed however the test ends: an open server would keep the test process alive.
    t.after(() => provider.close());
    const screen = await TmuxScreen.start({ args: ['--base-url', provider.baseURL], env: ptyEnv({ GLASSBOX_HOME: home }), cwd: root });
    try {
      await screen.waitFor('new session');
      await screen.paste('first line\nsecond line\nthird line');
      // Typing after the paste shows it was taken in full; a newline that sent would have emptied the editor.
      await screen.type(' END');
      const editing = await screen.waitFor('third line END');
      assert.match(editing, /│ › first line\s+│\n│\s+second line\s+│/);
      assert.equal(provider.requests.length, 0, 'the pasted newlines did not send the prompt');
      await screen.keys('Enter');
      await screen.waitFor('Got three lines.');
      assert.equal(lastUserText(provider.requests[0]!), 'first line\nsecond line\nthird line END');

      const log = Array.from({ length: 4000 }, (_, i) => `log line ${i} ${'x'.repeat(40)}`).join('\n');
      assert.ok(log.length > 200_000);
      await screen.paste(log);
      await screen.waitFor('[Pasted text #1 +4000 lines]');
      await screen.keys('Enter');
      await screen.waitFor('Got the log.');
      assert.equal(lastUserText(provider.requests[1]!), log);
      const scrollback = await screen.capture({ history: true });
      assert.doesNotMatch(scrollback, /log line 2000/, 'the transcript shows the placeholder, not 4000 lines');
    } finally {
      await screen.close();
    }
  });

  test('a line typed ahead with its Enter in one read (as while the session starts) is sent', async (t) => {
    const { root, home } = await ptyProject();
    const provider = await startFakeProvider({ script: [{ text: 'Heard you.' }] });
    // Closed however the test ends: an open server would keep the test process alive.
    t.after(() => provider.close());
    const screen = await TmuxScreen.start({ args: ['--base-url', provider.baseURL], env: ptyEnv({ GLASSBOX_HOME: home }), cwd: root });
    try {
      await screen.waitFor('new session');
      await screen.type('typed ahead\r');
      await screen.waitFor('Heard you.');
      assert.equal(lastUserText(provider.requests[0]!), 'typed ahead');
    } finally {
      await screen.close();
    }
  });

  test('a line ending in a backslash: Enter adds a line and drops the backslash, as a shell continues a line, typed fast too', async (t) => {
    const { root, home } = await ptyProject();
    const provider = await startFakeProvider({ script: [{ text: 'Two lines heard.' }] });
    t.after(() => provider.close());
    const screen = await TmuxScreen.start({ args: ['--base-url', provider.baseURL], env: ptyEnv({ GLASSBOX_HOME: home }), cwd: root });
    try {
      await screen.waitFor('new session');
      await screen.type('first line\\');
      await screen.waitFor('first line\\');
      await screen.keys('Enter');
      // The editor has grown a second line: the Enter was read on its own, as a key.
      await screen.waitFor(/│ › first line\\?\s*│\n│\s+│\n╰/);
      // Typed fast, the next line's backslash, Enter and the line after it come in one read.
      await screen.type('second line\\\rthird line');
      const editor = await screen.waitFor(/first line\s*│\s*\n│\s+second line\s*│\n│\s+third line/);
      assert.doesNotMatch(editor, /line\\/, editor);
      await screen.keys('Enter');
      await screen.waitFor('Two lines heard.');
      assert.equal(lastUserText(provider.requests[0]!), 'first line\nsecond line\nthird line');
    } finally {
      await screen.close();
    }
  });

  test('prompts are kept in <home>/history.jsonl (0600, no secrets) and Up recalls them in the next session', async (t) => {
    const { root, home } = await ptyProject();
    const provider = await startFakeProvider({ script: [], whenExhausted: { text: 'Noted.' } });
    // Closed however the test ends: an open server would keep the test process alive.
    t.after(() => provider.close());
    const env = ptyEnv({ GLASSBOX_HOME: home });
    const args = ['--base-url', provider.baseURL];
    const first = await TmuxScreen.start({ args, env, cwd: root });
    try {
      await first.waitFor('new session');
      await first.submit('remember the first prompt');
      await waitUntil(() => provider.requests.length === 1, 'the first prompt to be sent');
      await first.waitFor('Noted.');
      await first.submit('the token is sk-proj-abcdefghijklmnop1234', 'the token is');
      await waitUntil(() => provider.requests.length === 2, 'the second prompt to be sent');
      await first.waitUntil((s) => s.includes('Enter send'), 'the turn to end');
      await first.submit('/quit');
      assert.equal(await first.exitCode(), 0);
    } finally {
      await first.close();
    }
    const file = join(home, 'history.jsonl');
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    const stored = (await readFile(file, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { prompt: string }).prompt);
    assert.deepEqual(stored, ['remember the first prompt', '/quit']);

    const second = await TmuxScreen.start({ args, env, cwd: root });
    try {
      await second.waitFor('new session');
      await second.keys('Up');
      await second.waitFor('› /quit');
      await second.keys('Up');
      await second.waitFor('› remember the first prompt');
      await second.keys('Enter');
      await waitUntil(() => provider.requests.length === 3, 'the recalled prompt to be sent');
      assert.equal(lastUserText(provider.requests[2]!), 'remember the first prompt');
    } finally {
      await second.close();
    }
  });
});
