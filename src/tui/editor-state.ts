// The prompt editor as plain data and pure functions (no React): multi-line text with a cursor,
// readline-style keys, prompt history, and pasted text. A large paste is shown as one short
// placeholder, as the agents users know do, so a 500-line log does not push the screen away;
// the placeholder is expanded back when the prompt is submitted.

export interface EditorState {
  text: string;
  /** Offset into `text`, in UTF-16 units, always on a code point boundary. */
  cursor: number;
  /** Earlier prompts, oldest first. */
  history: readonly string[];
  /** Position while browsing history; null when editing the draft. */
  historyIndex: number | null;
  /** What was typed before browsing started, restored when browsing ends. */
  draft: string;
  /** Placeholder label → pasted text. */
  pastes: Readonly<Record<string, string>>;
  pasteCount: number;
}

/** A paste longer than this (characters or lines) becomes a placeholder. */
export const PASTE_PLACEHOLDER_CHARS = 800;
export const PASTE_PLACEHOLDER_LINES = 8;

export function emptyEditor(history: readonly string[] = []): EditorState {
  return { text: '', cursor: 0, history, historyIndex: null, draft: '', pastes: {}, pasteCount: 0 };
}

function withText(state: EditorState, text: string, cursor: number): EditorState {
  return { ...state, text, cursor: Math.max(0, Math.min(cursor, text.length)), historyIndex: null };
}

export function insertText(state: EditorState, input: string): EditorState {
  const text = state.text.slice(0, state.cursor) + input + state.text.slice(state.cursor);
  return withText(state, text, state.cursor + input.length);
}

/** Typed or pasted input: line endings normalised, and a large paste kept aside as a placeholder. */
export function pasteText(state: EditorState, raw: string): EditorState {
  const text = raw.replace(/\r\n?/g, '\n');
  const lines = text.split('\n').length;
  if (text.length <= PASTE_PLACEHOLDER_CHARS && lines <= PASTE_PLACEHOLDER_LINES) return insertText(state, text);
  const count = state.pasteCount + 1;
  const label = `[Pasted text #${count} +${lines} lines]`;
  const next = insertText(state, label);
  return { ...next, pastes: { ...state.pastes, [label]: text }, pasteCount: count };
}

function previousBoundary(text: string, offset: number): number {
  if (offset <= 0) return 0;
  const code = text.charCodeAt(offset - 1);
  return code >= 0xdc00 && code <= 0xdfff && offset >= 2 ? offset - 2 : offset - 1;
}

function nextBoundary(text: string, offset: number): number {
  if (offset >= text.length) return text.length;
  const code = text.charCodeAt(offset);
  return code >= 0xd800 && code <= 0xdbff ? offset + 2 : offset + 1;
}

export function backspace(state: EditorState): EditorState {
  if (state.cursor === 0) return state;
  // A placeholder goes as a whole: half a label would expand to nothing.
  for (const label of Object.keys(state.pastes)) {
    if (state.text.slice(0, state.cursor).endsWith(label)) {
      const start = state.cursor - label.length;
      const { [label]: _removed, ...pastes } = state.pastes;
      return { ...withText(state, state.text.slice(0, start) + state.text.slice(state.cursor), start), pastes };
    }
  }
  const start = previousBoundary(state.text, state.cursor);
  return withText(state, state.text.slice(0, start) + state.text.slice(state.cursor), start);
}

export function deleteForward(state: EditorState): EditorState {
  if (state.cursor >= state.text.length) return state;
  const end = nextBoundary(state.text, state.cursor);
  return withText(state, state.text.slice(0, state.cursor) + state.text.slice(end), state.cursor);
}

export function moveLeft(state: EditorState): EditorState {
  return { ...state, cursor: previousBoundary(state.text, state.cursor) };
}

export function moveRight(state: EditorState): EditorState {
  return { ...state, cursor: nextBoundary(state.text, state.cursor) };
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

function lineEnd(text: string, offset: number): number {
  const end = text.indexOf('\n', offset);
  return end === -1 ? text.length : end;
}

export function moveLineStart(state: EditorState): EditorState {
  return { ...state, cursor: lineStart(state.text, state.cursor) };
}

export function moveLineEnd(state: EditorState): EditorState {
  return { ...state, cursor: lineEnd(state.text, state.cursor) };
}

/** Ctrl-U: delete from the start of the line to the cursor. */
export function killLineBefore(state: EditorState): EditorState {
  const start = lineStart(state.text, state.cursor);
  return withText(state, state.text.slice(0, start) + state.text.slice(state.cursor), start);
}

/** Ctrl-K: delete from the cursor to the end of the line. */
export function killLineAfter(state: EditorState): EditorState {
  const end = lineEnd(state.text, state.cursor);
  return withText(state, state.text.slice(0, state.cursor) + state.text.slice(end), state.cursor);
}

/** Ctrl-W: delete the word before the cursor (and the spaces after it). */
export function deleteWordBefore(state: EditorState): EditorState {
  const before = state.text.slice(0, state.cursor);
  const match = /\S*\s*$/.exec(before);
  const start = state.cursor - (match ? match[0].length : 0);
  return withText(state, state.text.slice(0, start) + state.text.slice(state.cursor), start);
}

export function moveWordLeft(state: EditorState): EditorState {
  const match = /\S+\s*$/.exec(state.text.slice(0, state.cursor));
  return { ...state, cursor: match ? state.cursor - match[0].length : 0 };
}

export function moveWordRight(state: EditorState): EditorState {
  const match = /^\s*\S+/.exec(state.text.slice(state.cursor));
  return { ...state, cursor: match ? state.cursor + match[0].length : state.text.length };
}

/** Up: to the line above, or, on the first line, to the previous prompt in history. */
export function moveUp(state: EditorState): EditorState {
  const start = lineStart(state.text, state.cursor);
  if (start === 0) return historyPrevious(state);
  const column = state.cursor - start;
  const previousStart = lineStart(state.text, start - 1);
  return { ...state, cursor: Math.min(previousStart + column, start - 1) };
}

/** Down: to the line below, or, on the last line, to the next prompt in history. */
export function moveDown(state: EditorState): EditorState {
  const end = lineEnd(state.text, state.cursor);
  if (end === state.text.length) return historyNext(state);
  const column = state.cursor - lineStart(state.text, state.cursor);
  const nextStart = end + 1;
  return { ...state, cursor: Math.min(nextStart + column, lineEnd(state.text, nextStart)) };
}

export function historyPrevious(state: EditorState): EditorState {
  if (state.history.length === 0) return state;
  const index = state.historyIndex === null ? state.history.length - 1 : Math.max(0, state.historyIndex - 1);
  const draft = state.historyIndex === null ? state.text : state.draft;
  return { ...recall(state, state.history[index]!), historyIndex: index, draft };
}

export function historyNext(state: EditorState): EditorState {
  if (state.historyIndex === null) return state;
  if (state.historyIndex >= state.history.length - 1) {
    return { ...state, text: state.draft, cursor: state.draft.length, historyIndex: null };
  }
  const index = state.historyIndex + 1;
  return { ...recall(state, state.history[index]!), historyIndex: index };
}

/** A recalled prompt in the editor: a large one folded to a placeholder again, as when it was pasted. */
function recall(state: EditorState, prompt: string): EditorState {
  // The draft's placeholders stay known: Down past the newest entry brings the draft back.
  const base = { ...state, text: '', cursor: 0 };
  const next = pasteText(base, prompt);
  return { ...next, cursor: next.text.length };
}

/** The prompt to send (placeholders expanded) and the editor after sending it. */
export function submit(state: EditorState): { prompt: string; next: EditorState } {
  let prompt = state.text;
  for (const [label, pasted] of Object.entries(state.pastes)) prompt = prompt.split(label).join(pasted);
  // History keeps what was sent, so a recalled paste is the paste, not its placeholder's label.
  const kept = prompt.trim();
  const history = kept === '' || state.history.at(-1) === kept ? state.history : [...state.history, kept];
  return { prompt, next: { ...emptyEditor(history), pasteCount: state.pasteCount } };
}

/**
 * Prompts that were waiting behind a cancelled turn, put back in front of whatever is being typed
 * now, one per line; a long one becomes a paste placeholder again.
 */
export function restorePrompts(state: EditorState, prompts: readonly string[]): EditorState {
  if (prompts.length === 0) return state;
  let next = withText(state, '', 0);
  prompts.forEach((prompt, index) => {
    if (index > 0) next = insertText(next, '\n');
    next = pasteText(next, prompt);
  });
  // `next` grew from `state`: the placeholders already typed keep their pastes.
  return state.text === '' ? next : insertText(insertText(next, '\n'), state.text);
}

export function clearText(state: EditorState): EditorState {
  return { ...emptyEditor(state.history), pasteCount: state.pasteCount };
}

export function replaceRange(state: EditorState, start: number, end: number, replacement: string): EditorState {
  const text = state.text.slice(0, start) + replacement + state.text.slice(end);
  return withText(state, text, start + replacement.length);
}

/** The word the cursor is in or right after (no spaces), with its start offset. */
export function wordAtCursor(state: EditorState): { word: string; start: number } {
  const before = state.text.slice(0, state.cursor);
  const match = /\S*$/.exec(before);
  const word = match ? match[0] : '';
  return { word, start: state.cursor - word.length };
}
