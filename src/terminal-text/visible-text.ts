// Text others choose (the model's answers, commands and tool names, a provider's errors, a
// repository's file names and MCP config) must not reach a terminal with its control characters:
// an escape sequence could move the cursor and redraw an approval to show a harmless command while
// another waits for the "y", write the clipboard (OSC 52) or retitle the window. One definition of
// what is shown instead, for every terminal Glassbox writes to (`exec`, the interactive session,
// `mcp list`) and for the config strings refused for carrying them.

/** C0 and C1 controls, DEL, line/paragraph separators and bidirectional overrides. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const CONTROL_ALL = new RegExp(CONTROL.source, 'g');
/** The same without tab and newline, which are layout in multi-line text. */
const CONTROL_BUT_LAYOUT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function shown(char: string): string {
  const code = char.charCodeAt(0);
  return code === 0x1b ? '\\e' : `\\u${code.toString(16).padStart(4, '0')}`;
}

export function hasControlCharacters(text: string): boolean {
  return CONTROL.test(text);
}

/** Every control character shown, newlines and tabs included: for text that must stay on one line. */
export function escapeControls(text: string): string {
  return text.replace(CONTROL_ALL, shown);
}

/** Multi-line text: newlines kept, tabs as two spaces, carriage returns dropped, the rest shown. */
export function visibleText(text: string): string {
  return text.replace(/\t/g, '  ').replace(CONTROL_BUT_LAYOUT, (char) => (char === '\r' ? '' : shown(char)));
}

/** What `JSON.stringify` leaves raw in strings: DEL, C1 (`\x9b` is a CSI), separators, bidi overrides. */
const CONTROL_JSON_KEEPS = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * JSON for a terminal: the same value (`JSON.parse` gives back every string as it was), with the
 * controls JSON leaves raw written as `\uXXXX` escapes. Outside strings JSON holds only its own
 * punctuation and layout, so the replacement can only touch string contents.
 */
export function terminalJson(value: unknown, space?: number): string {
  return JSON.stringify(value, null, space).replace(CONTROL_JSON_KEEPS, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** One line: newlines and runs of spaces collapsed, then made visible. */
export function oneLine(text: string, max = Number.POSITIVE_INFINITY): string {
  const line = visibleText(text.replace(/\s+/g, ' ').trim());
  return line.length > max ? `${line.slice(0, Math.max(0, max - 1))}…` : line;
}
