// How much of a streaming answer can be printed for good. The terminal keeps only the unfinished
// tail of an answer in ink's live frame and prints the rest into its scrollback as it completes:
// a long answer can then be read from the top while it streams, and each frame redraws a few
// rows instead of a screenful. Only text whose rendering can no longer change is finished. In
// Markdown that is a block followed by a blank line (a paragraph line without one can still turn
// into a setext heading or a table header); a list or a quote only once a block of another kind
// follows it (a blank line and a `- ` can still continue it, and looseness changes every item);
// a heading, rule or closed code fence once anything follows it. An open code fence is finished
// line by line: its lines render one to one, highlighted left to right.

import { Lexer, type Token } from 'marked';

export interface FinishedMarkdown {
  /** Characters of the source that are finished. */
  end: number;
  /** When `end` falls inside a fenced code block: where its opening fence starts, else null. */
  codeStart: number | null;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

function closedFence(raw: string): boolean {
  const open = FENCE.exec(raw);
  if (open === null) return true; // an indented code block ends at its last line
  const lines = raw.replace(/\n$/, '').split('\n');
  if (lines.length < 2 || !raw.endsWith('\n')) return false;
  const last = lines[lines.length - 1]!.trim();
  return last.startsWith(open[1]![0]!.repeat(open[1]!.length)) && /^[`~]+$/.test(last);
}

function isFinal(tokens: Token[], index: number): boolean {
  const token = tokens[index]!;
  const next = tokens[index + 1];
  if (next === undefined) return token.type === 'code' && FENCE.test(token.raw) && closedFence(token.raw);
  switch (token.type) {
    case 'code':
      return closedFence(token.raw);
    case 'heading':
    case 'hr':
      return true;
    case 'list':
    case 'blockquote': {
      const following = tokens.slice(index + 1).find((t) => t.type !== 'space');
      return next.type === 'space' && following !== undefined && following.type !== token.type;
    }
    default:
      return next.type === 'space';
  }
}

/** The finished part of `source`, which starts at a block boundary (the answer's start, or past finished blocks). */
export function finishedMarkdown(source: string): FinishedMarkdown {
  const tokens = new Lexer({ gfm: true }).lex(source);
  // The offsets below are the tokens' raw text laid end to end; if the lexer ever normalised the
  // source (it turns CR LF into LF), they would not point into it, and nothing is finished.
  if (tokens.map((t) => t.raw).join('') !== source) return { end: 0, codeStart: null };
  let end = 0;
  let index = 0;
  for (; index < tokens.length; index += 1) {
    const token = tokens[index]!;
    if (token.type !== 'space' && !isFinal(tokens, index)) break;
    end += token.raw.length;
  }
  const open = tokens[index];
  if (open === undefined || open.type !== 'code' || !FENCE.test(open.raw)) return { end, codeStart: null };
  // Inside an open fence: its complete lines, but not trailing blank ones (the lexer drops those
  // from a block's end, so they would vanish from a printed part and reappear below it).
  const complete = open.raw.slice(0, open.raw.lastIndexOf('\n') + 1);
  const kept = complete.replace(/(\n[ \t]*)+\n$/, '\n');
  const firstLine = open.raw.indexOf('\n') + 1;
  if (firstLine === 0 || kept.length <= firstLine) return { end, codeStart: null };
  return { end: end + kept.length, codeStart: end };
}
