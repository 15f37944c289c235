import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Key } from 'ink';
import * as edit from '../../src/tui/editor-state.js';
import { editorKey, editorLines } from '../../src/tui/editor-keys.js';
import { PASTE_END, PASTE_START, PasteTracker } from '../../src/tui/bracketed-paste.js';

const NO_KEY: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};

function press(state: edit.EditorState, input: string, key: Partial<Key> = {}) {
  return editorKey(state, input, { ...NO_KEY, ...key });
}

function typed(text: string): edit.EditorState {
  return edit.insertText(edit.emptyEditor(), text);
}

describe('prompt editor', () => {
  test('Enter submits; Ctrl-J, Alt-Enter and a trailing backslash add a line', () => {
    assert.equal(press(typed('hi'), '', { return: true }).action, 'submit');
    assert.equal(press(typed('a'), '\n').state.text, 'a\n');
    assert.equal(press(typed('a'), '', { return: true, meta: true }).state.text, 'a\n');
    const continued = press(typed('first \\'), '', { return: true });
    assert.equal(continued.action, 'none');
    assert.equal(continued.state.text, 'first \n');
    // Typed ahead in one read: the backslash and Enter still continue the line, never send it.
    const fast = press(typed('a'), 'b\\\r');
    assert.equal(fast.action, 'none');
    assert.equal(fast.state.text, 'ab\n');
  });

  test('readline keys: Ctrl-A/E move, Ctrl-U/K/W delete, Backspace deletes a code point', () => {
    let state = typed('hello big world');
    state = press(state, 'w', { ctrl: true }).state;
    assert.equal(state.text, 'hello big ');
    state = press(state, 'a', { ctrl: true }).state;
    assert.equal(state.cursor, 0);
    state = press(state, 'k', { ctrl: true }).state;
    assert.equal(state.text, '');
    state = press(typed('x😀'), '', { delete: true }).state;
    assert.equal(state.text, 'x');
    state = press(typed('one\ntwo'), 'u', { ctrl: true }).state;
    assert.equal(state.text, 'one\n');
  });

  test('Up/Down move between lines, then walk the prompt history and restore the draft', () => {
    let state = edit.insertText(edit.emptyEditor(['first', 'second']), 'draft');
    state = press(state, '', { upArrow: true }).state;
    assert.equal(state.text, 'second');
    state = press(state, '', { upArrow: true }).state;
    assert.equal(state.text, 'first');
    state = press(state, '', { downArrow: true }).state;
    state = press(state, '', { downArrow: true }).state;
    assert.equal(state.text, 'draft');
    const multi = edit.moveUp(typed('ab\ncd'));
    assert.equal(multi.cursor, 2, 'on the second line, Up moves to the first line, same column');
  });

  test('a large paste is one placeholder, expanded on submit; Backspace removes it whole', () => {
    const log = Array.from({ length: 50 }, (_, i) => `line ${i}`).join('\r\n');
    const pasted = press(typed('look: '), log).state;
    assert.equal(pasted.text, 'look: [Pasted text #1 +50 lines]');
    const { prompt, next } = edit.submit(pasted);
    assert.equal(prompt, `look: ${log.replace(/\r\n/g, '\n')}`);
    assert.equal(next.text, '');
    assert.deepEqual(next.history, [prompt], 'history keeps what was sent, not the label');
    assert.equal(edit.backspace(pasted).text, 'look: ');
    // Recalled, the paste is folded again, and sending it sends the whole text once more.
    const recalled = press(next, '', { upArrow: true }).state;
    assert.equal(recalled.text, '[Pasted text #2 +50 lines]');
    assert.equal(edit.submit(recalled).prompt, prompt);
    assert.equal(press(typed(''), 'short paste').state.text, 'short paste', 'a short paste is plain text');
    const ahead = press(typed('say '), 'hello there\r');
    assert.deepEqual([ahead.state.text, ahead.action], ['say hello there', 'submit'], 'a line typed ahead with its Enter is sent');
    const lines = press(typed(''), 'one\rtwo\r');
    assert.deepEqual([lines.state.text, lines.action], ['one\ntwo\n', 'none'], 'several lines at once stay text');
  });

  test('bracketed paste: everything between the markers is one paste, however it is chunked', () => {
    const tracker = new PasteTracker();
    assert.deepEqual(tracker.push('typed'), { consumed: false, pasted: null });
    assert.deepEqual(tracker.push(PASTE_START), { consumed: true, pasted: null });
    assert.deepEqual(tracker.push('first\r'), { consumed: true, pasted: null });
    assert.equal(tracker.pasting, true);
    assert.deepEqual(tracker.push('\x1b'), { consumed: true, pasted: null }, 'an escape inside a paste is text too');
    assert.deepEqual(tracker.push(`y${PASTE_END}`), { consumed: true, pasted: 'first\r\x1by' });
    assert.equal(tracker.pasting, false);
    assert.deepEqual(tracker.push(`${PASTE_START}one${PASTE_END}`), { consumed: true, pasted: 'one' });
    assert.deepEqual(tracker.push('\r'), { consumed: false, pasted: null }, 'after the paste, Enter is a key again');
  });

  test('Ctrl-C, Ctrl-D, Esc, Tab and Ctrl-O are actions for the app', () => {
    assert.equal(press(typed('x'), 'c', { ctrl: true }).action, 'interrupt');
    assert.equal(press(edit.emptyEditor(), 'd', { ctrl: true }).action, 'eof');
    assert.equal(press(typed('x'), 'd', { ctrl: true }).action, 'none');
    assert.equal(press(typed('x'), '', { escape: true }).action, 'escape');
    assert.equal(press(typed('@sr'), '', { tab: true }).action, 'complete');
    assert.equal(press(typed(''), 'o', { ctrl: true }).action, 'toggle-output');
  });

  test('the cursor is drawn, and control characters in the text are shown, not sent', () => {
    const state = { ...typed('a\x1b[2Jb'), cursor: 0 };
    const [line] = editorLines(state, (c) => `[${c}]`);
    assert.equal(line, '[a]\\e[2Jb');
    assert.deepEqual(
      editorLines(typed('ab\n'), (c) => `[${c}]`),
      ['ab', '[ ]'],
    );
  });

  test('the word at the cursor is what @ completion replaces', () => {
    assert.deepEqual(edit.wordAtCursor(typed('look at @src/ma')), { word: '@src/ma', start: 8 });
    const replaced = edit.replaceRange(typed('look at @src/ma'), 8, 15, '@src/main.ts ');
    assert.equal(replaced.text, 'look at @src/main.ts ');
  });
});

describe('prompts a cancel puts back', () => {
  test('go in front of what is typed now, one per line; a long one is a placeholder again and submits whole', () => {
    const long = Array.from({ length: 20 }, (_, i) => `log line ${i}`).join('\n');
    const typing = edit.insertText(edit.emptyEditor(), 'half typed');
    const restored = edit.restorePrompts(typing, ['first', long]);
    assert.equal(restored.text, 'first\n[Pasted text #1 +20 lines]\nhalf typed');
    assert.equal(restored.cursor, restored.text.length);
    assert.equal(edit.submit(restored).prompt, `first\n${long}\nhalf typed`);
    assert.equal(edit.restorePrompts(typing, []), typing);
  });
});
