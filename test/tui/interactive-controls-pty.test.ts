// The interactive session's controls in a real terminal (tmux) against the fake provider: Esc
// cancels a running turn, /fork branches (its context size shown at once) and continues in the branch, a denial carries the
// user's reason to the model, and the screen follows a resize and honours NO_COLOR.

import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startFakeProvider } from '../../src/testing/index.js';
import { farewellSessionId, ptyEnv, ptyProject, requireTmux, sessionRecords } from './pty-fixtures.js';
import { TmuxScreen, waitUntil } from './tmux-screen.js';

const skip = requireTmux();
// SGR colour parameters: 30–37, 90–97 and 38;… foregrounds (attributes like bold or inverse are not colour).
const COLOUR_SGR = /\x1b\[(?:[0-9;]*;)?(?:3[0-7]|9[0-7]|38)(?:;[0-9;]*)?m/;

describe('glassbox in a terminal: controls (tmux)', { skip, concurrency: true }, () => {
  test('Esc cancels the running turn; the session records it and the next prompt works', async (t) => {
    const { root, home } = await ptyProject();
    const provider = await startFakeProvider({ script: [{ fault: { kind: 'hang' } }, { text: 'Back again.' }] });
    // Closed however the test ends: an open server would keep the test process alive.
    t.after(() => provider.close());
    const screen = await TmuxScreen.start({ args: ['--base-url', provider.baseURL], env: ptyEnv({ GLASSBOX_HOME: home }), cwd: root });
    try {
      await screen.waitFor('new session');
      await screen.submit('this will hang');
      await screen.waitFor('Esc to cancel');
      // Only once the request is at the provider does the hang consume its script step.
      await waitUntil(() => provider.requests.length === 1, 'the request to reach the provider');
      await screen.keys('Escape');
      await screen.waitFor(/cancelled/);
      await screen.waitFor('Enter send');
      await screen.submit('try again');
      await screen.waitFor('Back again.');
      await screen.submit('/quit');
      assert.equal(await screen.exitCode(), 0);
      const sessionId = farewellSessionId(await screen.capture({ history: true }));
      const types = (await sessionRecords(home, sessionId)).map((r) => r.type);
      assert.deepEqual(
        types.filter((t) => String(t).startsWith('turn_')),
        ['turn_started', 'turn_cancelled', 'turn_started', 'turn_completed'],
      );
    } finally {
      await screen.close();
    }
  });

  test('a prompt typed ahead waits under the running turn; Esc puts it back in the editor instead of dropping it', async (t) => {
    const { root, home } = await ptyProject();
    const provider = await startFakeProvider({ script: [{ fault: { kind: 'hang' } }, { text: 'Sent after all.' }] });
    t.after(() => provider.close());
    const screen = await TmuxScreen.start({ args: ['--base-url', provider.baseURL], env: ptyEnv({ GLASSBOX_HOME: home }), cwd: root });
    try {
      await screen.waitFor('new session');
      await screen.submit('this will hang');
      await screen.waitFor('Esc to cancel');
      await waitUntil(() => provider.requests.length === 1, 'the request to reach the provider');
      await screen.type('typed ahead');
      await screen.waitFor('typed ahead');
      await screen.keys('Enter');
      await screen.waitFor('queued: typed ahead');
      await screen.keys('Escape');
      await screen.waitFor(/back in the editor/);
      // Back in the editor (drawn by the frame after the notice's), not sent: one request so far.
      await screen.waitFor(/› typed ahead/);
      await screen.waitFor('Enter send');
      assert.equal(provider.requests.length, 1);
      await screen.keys('Enter');
      await screen.waitFor('Sent after all.');
      const sent = JSON.stringify(provider.requests[1]?.body);
      assert.match(sent, /typed ahead/);
      await screen.submit('/quit');
      assert.equal(await screen.exitCode(), 0);
    } finally {
      await screen.close();
    }
  });

  test('/fork 1 branches the session and the next turn sends only turn 1', async (t) => {
    const { root, home } = await ptyProject();
    const provider = await startFakeProvider({
      script: [{ text: 'First answer.' }, { text: 'Second answer.' }, { text: 'Branch answer.' }],
    });
    // Closed however the test ends: an open server would keep the test process alive.
    t.after(() => provider.close());
    const screen = await TmuxScreen.start({ args: ['--base-url', provider.baseURL], env: ptyEnv({ GLASSBOX_HOME: home }), cwd: root });
    try {
      await screen.waitFor('new session');
      await screen.submit('first question');
      await screen.waitFor('First answer.');
      await screen.submit('second question');
      await screen.waitFor('Second answer.');
      await screen.submit('/fork 1');
      // Ink wraps the notice at a word boundary: the id may start on the next row.
      const forked = await screen.waitFor(/forked \S+ at turn 1 →\s+(\S+);/);
      const forkId = /forked \S+ at turn 1 →\s+(\S+);/.exec(forked)![1]!;
      // The fork has made no model call yet: its context is estimated from the history it holds.
      const meter = await screen.waitFor(/context ~([\d.]+k?)\/272k/);
      assert.notEqual(/context ~([\d.]+k?)\/272k/.exec(meter)![1], '0', 'the context meter is not 0 right after /fork');
      await screen.submit('branch question');
      await screen.waitFor('Branch answer.');
      const sent = JSON.stringify(provider.requests[2]!.body);
      assert.match(sent, /first question/);
      assert.doesNotMatch(sent, /second question/);
      await screen.submit('/quit');
      await screen.exitCode();
      const records = await sessionRecords(home, forkId);
      assert.deepEqual((records[0] as { parent: unknown }).parent, {
        sessionId: (records[0] as { parent: { sessionId: string } }).parent.sessionId,
        atTurn: 1,
      });
      assert.equal(records.filter((r) => r.type === 'turn_started').length, 2);
      assert.equal((await readdir(join(home, 'sessions'))).filter((f) => f.endsWith('.jsonl') && f !== 'index.jsonl').length, 2);
    } finally {
      await screen.close();
    }
  });

  test('a denial with a reason reaches the model as the call output', async (t) => {
    const { root, home } = await ptyProject();
    const provider = await startFakeProvider({
      script: [
        { toolCalls: [{ name: 'write_file', arguments: { path: 'todo.txt', content: 'buy bread\n' } }] },
        { text: 'Understood, no file.' },
      ],
    });
    // Closed however the test ends: an open server would keep the test process alive.
    t.after(() => provider.close());
    const screen = await TmuxScreen.start({ args: ['--base-url', provider.baseURL], env: ptyEnv({ GLASSBOX_HOME: home }), cwd: root });
    try {
      await screen.waitFor('new session');
      await screen.submit('write a todo file');
      const approval = await screen.waitFor('[y] approve once');
      assert.match(approval, /new file todo\.txt/);
      assert.match(approval, /\+buy bread/);
      await screen.keys('n');
      await screen.waitFor('why deny?');
      await screen.type('not today');
      await screen.waitFor('not today');
      await screen.keys('Enter');
      await screen.waitFor('Understood, no file.');
      assert.match(JSON.stringify(provider.requests[1]!.body), /not today/);
      await screen.waitFor(/⊘ write_file todo\.txt/);
    } finally {
      await screen.close();
    }
  });

  test('at 80×24 an answer taller than the screen ends up printed whole, its last line included', async (t) => {
    const { root, home } = await ptyProject();
    // Paragraphs of ~3 rows each: far more rows than lines, and more rows than the terminal has.
    const paragraphs = Array.from(
      { length: 12 },
      (_, i) => `Paragraph ${i + 1} says ${'something rather long about the project and its tests, '.repeat(3)}end.`,
    );
    const answer = `${paragraphs.join('\n\n')}\n\nThe very last line of the answer.`;
    // Larger chunks than the default: fewer frames to draw on a loaded machine, and the live frame still outgrows the screen.
    const provider = await startFakeProvider({ script: [{ text: answer, chunkSize: 120 }] });
    // Closed however the test ends: an open server would keep the test process alive.
    t.after(() => provider.close());
    const screen = await TmuxScreen.start({ args: ['--base-url', provider.baseURL], env: ptyEnv({ GLASSBOX_HOME: home }), cwd: root });
    try {
      await screen.waitFor('new session');
      await screen.submit('tell me everything');
      await screen.waitFor(/01[0-9a-f]{6}-[0-9a-f]{4}\n/);
      await screen.waitFor('Enter send', 60_000);
      const scrollback = await screen.capture({ history: true });
      assert.match(scrollback, /The very last line of the answer\./);
      for (let i = 1; i <= 12; i++) assert.match(scrollback, new RegExp(`Paragraph ${i} says`));
    } finally {
      await screen.close();
    }
  });

  test('80×24 with NO_COLOR has no colour; a resize redraws at the new width; colour is on without NO_COLOR', async (t) => {
    const { root, home } = await ptyProject();
    const provider = await startFakeProvider({ script: [{ text: 'Plain **answer** with `code`.' }], whenExhausted: { text: 'again' } });
    // Closed however the test ends: an open server would keep the test process alive.
    t.after(() => provider.close());
    const plain = await TmuxScreen.start({
      args: ['--base-url', provider.baseURL],
      env: ptyEnv({ GLASSBOX_HOME: home, NO_COLOR: '1' }),
      cwd: root,
    });
    try {
      await plain.waitFor('new session');
      await plain.submit('hello');
      // The answer is printed first and the editor redrawn under it after: wait for both (on loaded
      // cores the capture can fall between the two).
      await plain.waitFor(/Plain answer with code\.[\s\S]*╭─{78}╮/);
      const escaped = await plain.capture({ escapes: true });
      assert.doesNotMatch(escaped, COLOUR_SGR, 'NO_COLOR output has no colour sequences');
      const before = await plain.capture({ raw: true });
      assert.ok(
        before.split('\n').some((line) => line === `╭${'─'.repeat(78)}╮`),
        `the editor spans 80 columns:\n${before}`,
      );
      assert.ok(before.split('\n').every((line) => [...line].length <= 80));
      await plain.resize(100, 30);
      await plain.waitUntil(
        (screen) => screen.split('\n').some((line) => line === `╭${'─'.repeat(98)}╮`),
        'the editor to span 100 columns',
      );
      await plain.waitFor('context ');
    } finally {
      await plain.close();
    }
    const coloured = await TmuxScreen.start({ args: ['--base-url', provider.baseURL], env: ptyEnv({ GLASSBOX_HOME: home }), cwd: root });
    try {
      await coloured.waitFor('new session');
      assert.match(await coloured.capture({ escapes: true }), COLOUR_SGR);
    } finally {
      await coloured.close();
    }
  });
});
