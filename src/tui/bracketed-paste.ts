// Bracketed paste (xterm's mode 2004): with it on, the terminal wraps pasted text in ESC[200~ …
// ESC[201~, so a paste is known for what it is however it arrives. Without it a paste is just fast
// typing: a newline in it would send the prompt half-written and a `y` could answer an approval.
// The tracker sees ink's raw input events (text runs and escape sequences, in order) before any
// key handler does, collects everything between the markers, and says which events it consumed so
// the key handler ignores them. Pasted text may arrive in many chunks (a 200 KB paste does).

export const ENABLE_BRACKETED_PASTE = '\x1b[?2004h';
export const DISABLE_BRACKETED_PASTE = '\x1b[?2004l';
export const PASTE_START = '\x1b[200~';
export const PASTE_END = '\x1b[201~';

export interface PasteStep {
  /** The event was part of a paste (markers included): no key binding may act on it. */
  consumed: boolean;
  /** The whole pasted text, once its end marker arrived. */
  pasted: string | null;
}

export class PasteTracker {
  private parts: string[] | null = null;

  get pasting(): boolean {
    return this.parts !== null;
  }

  push(event: string): PasteStep {
    if (this.parts === null) {
      const start = event.indexOf(PASTE_START);
      // Ink cuts input at every escape sequence, so a start marker normally is an event of its own.
      if (start === -1) return { consumed: false, pasted: null };
      this.parts = [];
      return this.collect(event.slice(start + PASTE_START.length));
    }
    return this.collect(event);
  }

  private collect(text: string): PasteStep {
    const parts = this.parts!;
    const end = text.indexOf(PASTE_END);
    if (end === -1) {
      if (text !== '') parts.push(text);
      return { consumed: true, pasted: null };
    }
    parts.push(text.slice(0, end));
    this.parts = null;
    return { consumed: true, pasted: parts.join('') };
  }
}
