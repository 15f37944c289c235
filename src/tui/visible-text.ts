// Text the model controls (answers, commands, paths, tool output) must not reach the terminal
// with its control characters: an escape sequence could move the cursor and redraw the approval
// panel to show a harmless command while another waits for the "y". Newlines and tabs are
// layout and kept (tabs as spaces); everything else is made visible, as `\e` or `\uXXXX`.

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export function visibleText(text: string): string {
  return text.replace(/\t/g, '  ').replace(CONTROL, (char) => {
    const code = char.charCodeAt(0);
    return code === 0x1b ? '\\e' : code === 0x0d ? '' : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** One line: newlines and runs of spaces collapsed, then made visible. */
export function oneLine(text: string, max = Number.POSITIVE_INFINITY): string {
  const line = visibleText(text.replace(/\s+/g, ' ').trim());
  return line.length > max ? `${line.slice(0, Math.max(0, max - 1))}…` : line;
}
