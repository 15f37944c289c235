// Answers are Markdown; the terminal gets ANSI text. marked's lexer gives the block structure
// (it copes with a half-streamed answer: an open code fence is simply code to the end), and
// each block becomes plain lines with the theme's styles. Wrapping is left to ink, which knows
// the width, except in tables: their columns are laid out here, by display width, to the width
// given.

import { Lexer, type Token, type Tokens } from 'marked';
import { highlightCode } from './highlight-code.js';
import { tableLines } from './table-lines.js';
import type { Theme } from './theme.js';

/** `width`: the columns the text is shown in (tables are fitted to it); unbounded when absent. */
export function markdownToAnsi(markdown: string, theme: Theme, width = Number.POSITIVE_INFINITY): string {
  const tokens = new Lexer({ gfm: true }).lex(markdown);
  return blocks(tokens, theme, width)
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd();
}

function blocks(tokens: Token[], theme: Theme, width: number): string[] {
  const out: string[] = [];
  for (const token of tokens) {
    const lines = block(token, theme, width);
    if (lines === null) continue;
    if (out.length > 0 && token.type !== 'space') out.push('');
    out.push(...lines);
  }
  return out;
}

function block(token: Token, theme: Theme, width: number): string[] | null {
  switch (token.type) {
    case 'space':
      return null;
    case 'heading': {
      const t = token as Tokens.Heading;
      return [theme.bold(theme.tone('title', `${'#'.repeat(t.depth)} ${inline(t.tokens, theme)}`))];
    }
    case 'paragraph':
      return [inline((token as Tokens.Paragraph).tokens, theme)];
    case 'text': {
      const t = token as Tokens.Text;
      return [t.tokens ? inline(t.tokens, theme) : t.text];
    }
    case 'code': {
      const t = token as Tokens.Code;
      const language = t.lang?.split(/\s+/)[0] || null;
      const label = theme.dim(`┌─ ${language ?? 'code'}`);
      const body = highlightCode(t.text, language, theme)
        .split('\n')
        .map((line) => `${theme.dim('│')} ${line}`);
      return [label, ...body, theme.dim('└─')];
    }
    case 'blockquote': {
      const inner = blocks((token as Tokens.Blockquote).tokens, theme, width - 2);
      return inner.map((line) => `${theme.dim('▌')} ${theme.italic(line)}`);
    }
    case 'list':
      return list(token as Tokens.List, theme, width);
    case 'hr':
      return [theme.dim('────────')];
    case 'table':
      return table(token as Tokens.Table, theme, width);
    case 'html':
      return [(token as Tokens.HTML).text.trimEnd()];
    default:
      return 'raw' in token && typeof token.raw === 'string' ? [token.raw.trimEnd()] : null;
  }
}

function list(token: Tokens.List, theme: Theme, width: number): string[] {
  const out: string[] = [];
  const start = typeof token.start === 'number' ? token.start : 1;
  token.items.forEach((item, index) => {
    const marker = token.ordered ? `${start + index}.` : '•';
    const check = item.task ? (item.checked ? '[x] ' : '[ ] ') : '';
    // A tight list (no blank lines between items in the source) stays tight when it nests.
    const inner = blocks(item.tokens, theme, width - marker.length - 1 - check.length).filter((line) => token.loose || line !== '');
    const pad = ' '.repeat(marker.length + 1);
    for (const [i, line] of inner.entries())
      out.push(i === 0 ? `${theme.tone('accent', marker)} ${check}${line}` : line === '' ? '' : `${pad}${line}`);
  });
  return out.filter((line, i) => !(line === '' && (i === 0 || out[i - 1] === '')));
}

function table(token: Tokens.Table, theme: Theme, width: number): string[] {
  const header = token.header.map((cell) => inline(cell.tokens, theme));
  const rows = token.rows.map((row) => row.map((cell) => inline(cell.tokens, theme)));
  return tableLines({ header, rows, align: token.align }, theme, width);
}

function inline(tokens: Token[] | undefined, theme: Theme): string {
  if (!tokens) return '';
  let out = '';
  for (const token of tokens) {
    switch (token.type) {
      case 'strong':
        out += theme.bold(inline((token as Tokens.Strong).tokens, theme));
        break;
      case 'em':
        out += theme.italic(inline((token as Tokens.Em).tokens, theme));
        break;
      case 'codespan':
        out += theme.tone('code', (token as Tokens.Codespan).text);
        break;
      case 'del':
        out += `~${inline((token as Tokens.Del).tokens, theme)}~`;
        break;
      case 'link': {
        const t = token as Tokens.Link;
        const text = inline(t.tokens, theme);
        out += text === t.href ? theme.underline(text) : `${theme.underline(text)} ${theme.dim(`(${t.href})`)}`;
        break;
      }
      case 'br':
        out += '\n';
        break;
      case 'text': {
        const t = token as Tokens.Text;
        out += t.tokens ? inline(t.tokens, theme) : decodeEntities(t.text);
        break;
      }
      case 'escape':
        out += (token as Tokens.Escape).text;
        break;
      default:
        out += 'text' in token && typeof token.text === 'string' ? decodeEntities(token.text) : token.raw;
    }
  }
  return out;
}

/** marked escapes `&<>"'` in text for HTML output; a terminal wants them back. */
function decodeEntities(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (_, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[name] ?? _);
}
