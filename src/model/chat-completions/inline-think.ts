// Reasoning written into `content` as a leading `<think>…</think>` block: MiniMax M2.x on its
// OpenAI-compatible API without `reasoning_split` (and servers run without a reasoning parser).
// MiniMax wants the block back byte for byte in the history, so it is never dropped: the IR text is
// the content after the block, and the block itself (tags and the whitespace around them included)
// rides on the message's reasoning as `state.inlineThink`, put back in front of the content when
// the message is sent again. Only a block that opens the content counts; `<think>` elsewhere is text.

import type { ModelReasoning } from '../ir.js';

const OPEN = '<think>';
const CLOSE = '</think>';

/** The length of the longest end of `text` that is a start of `tag` (a tag that may be cut in two). */
function partialTagAt(text: string, tag: string): number {
  for (let length = Math.min(tag.length - 1, text.length); length > 0; length--) {
    if (text.endsWith(tag.slice(0, length))) return length;
  }
  return 0;
}

export interface InlineThinkPiece {
  reasoning: string;
  text: string;
}

/** Splits streamed content into a leading think block and the text after it, a tag cut across chunks included. */
export class InlineThinkSplitter {
  private mode: 'start' | 'think' | 'after' | 'text' = 'start';
  /** Content not yet decided on (the start, or a possibly cut closing tag). */
  private pending = '';
  /** The block as received: what goes back before the text. */
  private block = '';
  private thought = '';

  push(piece: string): InlineThinkPiece {
    const out: InlineThinkPiece = { reasoning: '', text: '' };
    let rest = piece;
    while (rest !== '') {
      if (this.mode === 'text') {
        out.text += rest;
        break;
      }
      if (this.mode === 'start') {
        const buffered = this.pending + rest;
        rest = '';
        const lead = buffered.length - buffered.trimStart().length;
        const body = buffered.slice(lead);
        if (body.startsWith(OPEN)) {
          this.block = buffered.slice(0, lead + OPEN.length);
          this.pending = '';
          this.mode = 'think';
          rest = body.slice(OPEN.length);
        } else if (OPEN.startsWith(body)) {
          this.pending = buffered; // whitespace, or a cut `<think`: wait for more
        } else {
          this.pending = '';
          this.mode = 'text';
          out.text += buffered;
        }
        continue;
      }
      if (this.mode === 'think') {
        const buffered = this.pending + rest;
        rest = '';
        const end = buffered.indexOf(CLOSE);
        if (end !== -1) {
          this.addThought(buffered.slice(0, end), out);
          this.block += CLOSE;
          this.pending = '';
          this.mode = 'after';
          rest = buffered.slice(end + CLOSE.length);
        } else {
          const keep = partialTagAt(buffered, CLOSE);
          this.addThought(buffered.slice(0, buffered.length - keep), out);
          this.pending = buffered.slice(buffered.length - keep);
        }
        continue;
      }
      // after: the whitespace that parts the block from the answer belongs to the block.
      const trimmed = rest.trimStart();
      this.block += rest.slice(0, rest.length - trimmed.length);
      rest = trimmed;
      if (rest !== '') this.mode = 'text';
    }
    return out;
  }

  /** What is still held back when the stream ends. */
  finish(): InlineThinkPiece {
    const held = this.pending;
    this.pending = '';
    if (this.mode === 'think') {
      // An unclosed block: all of it was thinking, and all of it goes back as it came.
      this.block += held;
      return { reasoning: held, text: '' };
    }
    return { reasoning: '', text: this.mode === 'start' ? held : '' };
  }

  private addThought(text: string, out: InlineThinkPiece): void {
    this.block += text;
    this.thought += text;
    out.reasoning += text;
  }

  /** The reasoning entry for the block, or null when the content had none. */
  reasoning(): ModelReasoning | null {
    if (this.block === '' || this.mode === 'start') return null;
    return { format: 'chat', text: this.thought.trim(), state: { inlineThink: this.block } };
  }
}

/** A whole (non-streamed) content split the same way. */
export function splitInlineThink(content: string): { text: string; reasoning: ModelReasoning | null } {
  const splitter = new InlineThinkSplitter();
  const first = splitter.push(content);
  const last = splitter.finish();
  return { text: first.text + last.text, reasoning: splitter.reasoning() };
}

/** The think block to put back in front of an assistant message's content ('' when it had none). */
export function inlineThinkFor(reasoning: readonly ModelReasoning[] | undefined): string {
  for (const entry of reasoning ?? []) {
    const block = entry.format === 'chat' ? entry.state?.inlineThink : undefined;
    if (typeof block === 'string') return block;
  }
  return '';
}

/** The message's reasoning with the think block's entry after the field-borne one. */
export function withInlineThink(reasoning: ModelReasoning[], inline: ModelReasoning | null): ModelReasoning[] {
  return inline === null ? reasoning : [...reasoning, inline];
}
