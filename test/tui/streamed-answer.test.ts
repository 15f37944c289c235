// A streaming answer is printed into the scrollback block by block as it completes (item 8 of
// issue 25), and what is printed, part after part, reads exactly as the whole answer would.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { RunEvent } from '../../src/agent/index.js';
import { answerText } from '../../src/tui/entry-view.js';
import { finishedMarkdown } from '../../src/tui/finished-markdown.js';
import { markdownToAnsi } from '../../src/tui/markdown-to-ansi.js';
import { createTheme } from '../../src/tui/theme.js';
import { emptyTranscript, reduceRunEvent, type Entry, type TranscriptState } from '../../src/tui/transcript-state.js';

const theme = createTheme(true);
type Answer = Extract<Entry, { kind: 'assistant' }>;

const ANSWER = [
  '# Plan',
  '',
  `First paragraph, which wraps\nover two source lines. ${'And it goes on. '.repeat(30).trimEnd()}`,
  '',
  '- one',
  '- two',
  '',
  '- three, loose',
  '',
  '```ts',
  'const a = 1;',
  ...Array.from({ length: 12 }, (_, i) => `const line${i} = 'a line of code to make the block long';`),
  '/* a comment',
  '   over lines */',
  '',
  'const b = "two";',
  '```',
  '',
  '| name | value |',
  '|------|-------|',
  '| a    | 1     |',
  '',
  '> a quote',
  '',
  'x'.repeat(420),
  '',
  'Last words.',
].join('\n');

function stream(text: string, size: number): { states: TranscriptState[]; end: TranscriptState } {
  let state = emptyTranscript();
  const states: TranscriptState[] = [];
  for (let at = 0; at < text.length; at += size) {
    const event: RunEvent = { type: 'assistant_delta', round: 1, delta: text.slice(at, at + size) };
    state = reduceRunEvent(state, event);
    states.push(state);
  }
  const end = reduceRunEvent(state, { type: 'model_completed', round: 1, stage: 'turn', usage: null, finishReason: 'stop', durationMs: 1 });
  return { states, end };
}

/** The answer's parts as the terminal shows them one under another. */
function shown(parts: Answer[]): string {
  const out: string[] = [];
  for (const part of parts) {
    if (part.text.trim() === '' && part.continues !== 'code') continue;
    const text = answerText(part, theme);
    if (out.length > 0 && part.continues !== 'code') out.push('');
    out.push(text);
  }
  return out.join('\n');
}

describe('a streaming answer', () => {
  for (const size of [1, 3, 12, 40]) {
    test(`is printed as its blocks finish and reads as the whole (chunks of ${size})`, () => {
      const { states, end } = stream(ANSWER, size);
      const mid = states[Math.floor(states.length * 0.6)]!;
      // Before the answer ends its start is printed, and the live entry holds only the rest.
      assert.ok(mid.done.length > 0, 'nothing printed while streaming');
      assert.match((mid.done[0] as Answer).text, /^# Plan/);
      assert.ok(!(mid.live[0] as Answer).text.includes('# Plan'));
      assert.equal(end.live.length, 0);
      // The long code block was printed in parts while open, the rest going on below them.
      assert.ok(
        (end.done as Answer[]).some((part) => part.openCode === true),
        'no part ended inside the code block',
      );
      const parts = end.done as Answer[];
      assert.ok(parts.every((part) => part.kind === 'assistant'));
      assert.equal(shown(parts), markdownToAnsi(ANSWER, theme));
      // Every intermediate frame too: the printed parts plus the live tail read as the text so far.
      for (const state of states) {
        const so = [...state.done, ...state.live] as Answer[];
        const source = so.map((part) => part.text).join('');
        assert.equal(shown(so).trimEnd(), markdownToAnsi(source, theme), `diverged at ${JSON.stringify(source.slice(-30))}`);
      }
    });
  }

  test('an open code fence is printed line by line, a paragraph or list only once it is closed by what follows', () => {
    assert.deepEqual(finishedMarkdown('```ts\nline one\nline tw'), { end: 15, codeStart: 0 });
    assert.deepEqual(finishedMarkdown('```ts\nline one\n\n\n'), { end: 15, codeStart: 0 });
    assert.deepEqual(finishedMarkdown('para\nmore'), { end: 0, codeStart: null });
    // A line followed by `---` or `|--|` would change its rendering: only a blank line finishes it.
    assert.deepEqual(finishedMarkdown('para\n'), { end: 0, codeStart: null });
    assert.equal(finishedMarkdown('para\n\nnext').end, 6);
    // A list after a blank line can still go on (and turn loose); another kind of block ends it.
    assert.equal(finishedMarkdown('- a\n- b\n\n').end, 0);
    assert.equal(finishedMarkdown('- a\n- b\n\n- c').end, 0);
    assert.equal(finishedMarkdown('- a\n- b\n\nText').end, 9);
    assert.equal(finishedMarkdown('| a | b |\n|--|--|\n| 1 | 2 |\n').end, 0);
    assert.equal(finishedMarkdown('| a | b |\n|--|--|\n| 1 | 2 |\n\n').end, 29);
  });
});
