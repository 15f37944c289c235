// Keys in the prompt editor, as a pure function from (state, key) to the next state or an action
// for the app (send, quit, cancel…). Kept apart from the React view so the conventions (Enter
// sends, Ctrl-J / Alt-Enter / `\` Enter add a line, readline's Ctrl keys) are tested directly.

import type { Key } from 'ink';
import * as edit from './editor-state.js';
import type { EditorState } from './editor-state.js';
import { visibleText } from '../terminal-text/index.js';

export type EditorAction =
  | 'none'
  | 'submit'
  | 'interrupt'
  | 'eof'
  | 'escape'
  | 'complete'
  | 'toggle-output'
  | 'toggle-reasoning'
  | 'search-history';

export interface KeyResult {
  state: EditorState;
  action: EditorAction;
}

export function editorKey(state: EditorState, input: string, key: Key): KeyResult {
  const same = (action: EditorAction): KeyResult => ({ state, action });
  const next = (s: EditorState): KeyResult => ({ state: s, action: 'none' });

  if (key.ctrl && input === 'c') return same('interrupt');
  if (key.ctrl && input === 'd') return state.text === '' ? same('eof') : next(edit.deleteForward(state));
  if (key.ctrl && input === 'o') return same('toggle-output');
  if (key.ctrl && input === 't') return same('toggle-reasoning');
  if (key.ctrl && input === 'r') return same('search-history');
  if (key.escape) return same('escape');
  if (key.tab) return same('complete');
  if (key.return) {
    // Alt-Enter, or a line ending in a backslash (the shell's continuation), adds a line.
    if (key.meta) return next(edit.insertText(state, '\n'));
    const before = state.text.slice(0, state.cursor);
    if (before.endsWith('\\')) return next(edit.insertText(edit.backspace(state), '\n'));
    return same('submit');
  }
  if (input === '\n') return next(edit.insertText(state, '\n')); // Ctrl-J
  if (key.backspace || key.delete) return next(key.meta ? edit.deleteWordBefore(state) : edit.backspace(state));
  if (key.leftArrow) return next(key.ctrl || key.meta ? edit.moveWordLeft(state) : edit.moveLeft(state));
  if (key.rightArrow) return next(key.ctrl || key.meta ? edit.moveWordRight(state) : edit.moveRight(state));
  if (key.upArrow) return next(edit.moveUp(state));
  if (key.downArrow) return next(edit.moveDown(state));
  if (key.home) return next(edit.moveLineStart(state));
  if (key.end) return next(edit.moveLineEnd(state));
  if (key.ctrl) {
    switch (input) {
      case 'a':
        return next(edit.moveLineStart(state));
      case 'e':
        return next(edit.moveLineEnd(state));
      case 'u':
        return next(edit.killLineBefore(state));
      case 'k':
        return next(edit.killLineAfter(state));
      case 'w':
        return next(edit.deleteWordBefore(state));
      case 'b':
        return next(edit.moveLeft(state));
      case 'f':
        return next(edit.moveRight(state));
      case 'p':
        return next(edit.historyPrevious(state));
      case 'n':
        return next(edit.historyNext(state));
      default:
        return same('none');
    }
  }
  if (key.meta && input === 'b') return next(edit.moveWordLeft(state));
  if (key.meta && input === 'f') return next(edit.moveWordRight(state));
  if (input === '') return same('none');
  // Several keys in one read are typing that ran ahead (keys pressed while the session was
  // starting, or faster than a frame): a `\` then Enter among them continues the line, as the
  // key on its own does above. Real pastes arrive bracketed (bracketed-paste.ts), so only a
  // terminal without that mode gets here with a pasted text.
  const typed = input.replace(/\\\r/g, '\n');
  // One line then Enter in one read: sent, as a shell would.
  if (/^[^\r\n]+\r$/.test(typed)) return { state: edit.insertText(state, typed.slice(0, -1)), action: 'submit' };
  // Several characters at once is a paste (or fast typing, which a paste handles the same way).
  return next(typed.length > 1 ? edit.pasteText(state, typed) : edit.insertText(state, typed));
}

/** The editor's text split into lines with the cursor drawn as an inverse cell. */
export function editorLines(state: EditorState, cursorMark: (char: string) => string): string[] {
  const before = state.text.slice(0, state.cursor);
  const at = state.text.slice(state.cursor, state.cursor + 1);
  const after = state.text.slice(state.cursor + 1);
  // Pasted text may hold escape sequences: shown, never sent to the terminal as such.
  const cursor = at === '' || at === '\n' ? cursorMark(' ') + at : cursorMark(visibleText(at));
  return (visibleText(before) + cursor + visibleText(after)).split('\n');
}
