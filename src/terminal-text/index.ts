// What text others chose looks like on a terminal: control characters shown, never obeyed. A leaf:
// it imports nothing, so `exec`'s start-up path can use it without loading the interactive session.

export { escapeControls, hasControlCharacters, oneLine, terminalJson, visibleText } from './visible-text.js';
