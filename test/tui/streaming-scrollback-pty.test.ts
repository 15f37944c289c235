// A long answer streams into the terminal's scrollback as its paragraphs finish (item 8 of issue
// 25): in tmux its top can be read (scrolled back to) before the turn ends, and what is still
// streaming is never cut to "… lines above". Bytes per streamed character are bounded: ink redraws
// its whole live frame (the unfinished paragraph, the editor, the status lines) on every render, so
// the controller draws deltas at most every DELTA_INTERVAL_MS (~7.5 bytes a character here; a render
// per delta was ~40). The bound is loose because renders follow time: a stream slowed by load gets
// more of them (the bound, 30, holds until it streams ~4x slower than on a quiet machine; a render
// per delta fails it).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startFakeProvider } from '../../src/testing/index.js';
import { ptyEnv, ptyProject, requireTmux } from './pty-fixtures.js';
import { TmuxScreen } from './tmux-screen.js';

const skip = requireTmux();

const PARAGRAPHS = 50;
const ANSWER = Array.from(
  { length: PARAGRAPHS },
  (_, i) => `Paragraph ${i + 1}: the streamed answer goes on here with a few more words.`,
).join('\n\n');
const CHUNK = 24;
/** The stream stalls (the turn does not end) after about nine tenths of the answer. */
const STREAMED_CHUNKS = Math.floor((ANSWER.length * 0.9) / CHUNK);

describe('a long streamed answer in the terminal (tmux)', { skip }, () => {
  test('its top is in the scrollback before the turn ends', async (t) => {
    const { root, home } = await ptyProject();
    const provider = await startFakeProvider({
      // A delta per frame or so, as a model streams: drawn together, a few per render.
      script: [{ text: ANSWER, chunkSize: CHUNK, chunkDelayMs: 15, fault: { kind: 'stall', afterEvents: STREAMED_CHUNKS } }],
    });
    t.after(() => provider.close());
    const screen = await TmuxScreen.start({ args: ['--base-url', provider.baseURL], env: ptyEnv({ GLASSBOX_HOME: home }), cwd: root });
    try {
      await screen.waitFor('new session');
      await screen.waitIdle();
      const before = screen.bytesWritten;
      await screen.submit('write a long answer');
      // The last paragraph that streamed whole, on screen while the turn still runs.
      const last = Math.floor((STREAMED_CHUNKS * CHUNK - 40) / (ANSWER.length / PARAGRAPHS));
      await screen.waitUntil((s) => s.includes(`Paragraph ${last}:`) && s.includes('working…'), `paragraph ${last} while working`);
      const written = screen.bytesWritten - before;
      const streamed = last * (ANSWER.length / PARAGRAPHS);
      t.diagnostic(`${written} bytes written for about ${Math.round(streamed)} characters of answer`);
      assert.ok(written / streamed < 30, `${(written / streamed).toFixed(1)} bytes per streamed character`);
      const history = await screen.capture({ history: true });
      // The first paragraphs went into the scrollback as they finished: readable from the top.
      assert.match(history, /Paragraph 1: the streamed answer/, history);
      assert.match(history, /Paragraph 2: the streamed answer/, history);
      assert.doesNotMatch(history, /lines above/, history);
      assert.match(await screen.capture(), /working…/);
      await screen.keys('Escape');
      await screen.waitIdle();
      await screen.submit('/quit');
      assert.equal(await screen.exitCode(), 0);
    } finally {
      await screen.close();
    }
  });
});
