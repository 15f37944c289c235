// The gate in front of "known safe": a command string qualifies only if it is made of simple
// commands whose every word is a literal — nothing left for bash to expand, substitute, join or
// reinterpret. This is our own lexer for that small subset, written to bash's rules (not a
// grammar's): it refuses every character and construct whose meaning could differ between a
// parser and bash (control characters, line continuations, comments, expansions of any kind,
// here-documents, subshells, backgrounding), so the words it returns are exactly the argv bash
// would run. test/security/classifier-oracle.test.ts proves it against bash itself.

import { hasGlobPattern } from './shell-word.js';

/** One word as bash will pass it, after quote removal. */
export interface LiteralWord {
  /** The argument value. */
  value: string;
  /** The word as written (quotes and escapes included), for messages and grant labels. */
  raw: string;
  /** Unquoted `*`, `?` or `[…]`: bash may replace the word with matching file names. */
  glob: boolean;
}

export interface LiteralSimpleCommand {
  words: LiteralWord[];
  /** Redirections, normalised (`2>/dev/null`, `2>&1`): only to /dev/null or between descriptors. */
  redirects: string[];
}

export type LiteralParse =
  | { literal: true; commands: LiteralSimpleCommand[] }
  | { literal: false; reason: string /** argv[0] of simple commands read before the refusal (informational). */; commands: string[] };

/** Control characters other than tab and newline, DEL, and the C1 controls (U+0080–U+009F). */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/** Words bash treats as keywords in command position; none of them is a program. */
const RESERVED_WORDS: ReadonlySet<string> = new Set([
  '!',
  '[[',
  ']]',
  '{',
  '}',
  'case',
  'coproc',
  'do',
  'done',
  'elif',
  'else',
  'esac',
  'fi',
  'for',
  'function',
  'if',
  'in',
  'select',
  'then',
  'time',
  'until',
  'while',
]);

/** Characters that, unquoted, mean something to bash other than themselves, and why they refuse. */
const UNQUOTED_REFUSALS: Readonly<Record<string, string>> = {
  $: 'an expansion (`$`)',
  '`': 'a command substitution (backtick)',
  '(': 'a subshell or other parenthesised construct',
  ')': 'a subshell or other parenthesised construct',
  '<': 'an input redirection, here-document, here-string or process substitution',
  '{': 'brace expansion or a command group',
  '}': 'brace expansion or a command group',
  '#': 'a `#` (a comment, or a character a parser may take for one)',
};

function describeChar(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

function column(text: string, index: number): string {
  const before = text.slice(0, index);
  const line = before.split('\n').length;
  const col = index - before.lastIndexOf('\n');
  return `line ${line}, column ${col}`;
}

class NotLiteral extends Error {}

/**
 * Reads `text` as a sequence of simple commands joined by `&&`, `||`, `;`, `|` or newlines, each
 * a list of literal words with at most redirections to /dev/null or between descriptors. Any
 * other construct makes the string "not literal", with the reason.
 */
export function parseLiteralCommand(text: string): LiteralParse {
  const commands: LiteralSimpleCommand[] = [];
  const fail = (reason: string): LiteralParse => ({ literal: false, reason, commands: commands.flatMap((c) => c.words[0]?.value ?? []) });
  const control = CONTROL.exec(text);
  if (control !== null) {
    return fail(
      `the command contains the control character ${describeChar(control[0])} (${column(text, control.index)}), which bash and a parser can read differently`,
    );
  }
  const continuation = text.indexOf('\\\n');
  if (continuation !== -1)
    return fail(`the command has a line continuation (backslash-newline, ${column(text, continuation)}), which bash joins back`);
  try {
    new LiteralLexer(text, commands).run();
  } catch (error) {
    if (error instanceof NotLiteral) return fail(error.message);
    throw error;
  }
  if (commands.length === 0) return fail('there is no command to run');
  return { literal: true, commands };
}

class LiteralLexer {
  private index = 0;
  private current: LiteralSimpleCommand = { words: [], redirects: [] };
  /** `&&`, `||` or `|` was read and no command has followed it yet. */
  private pendingOperator: string | null = null;

  constructor(
    private readonly text: string,
    private readonly commands: LiteralSimpleCommand[],
  ) {}

  private refuse(what: string, at = this.index): never {
    throw new NotLiteral(`${what} at ${column(this.text, at)}; only commands with nothing left to expand can be known safe`);
  }

  run(): void {
    const { text } = this;
    while (this.index < text.length) {
      const char = text[this.index]!;
      if (char === ' ' || char === '\t') {
        this.index++;
      } else if (char === '\n') {
        // A newline ends a command; after `&&`, `||` or `|` bash keeps reading the next line.
        if (this.pendingOperator === null) this.endCommand();
        this.index++;
      } else if (char === ';') {
        if (text[this.index + 1] === ';') this.refuse('`;;` (a case terminator)');
        if (this.pendingOperator !== null || this.isEmpty()) this.refuse('a `;` with no command before it');
        this.endCommand();
        this.index++;
      } else if (char === '|') {
        if (text[this.index + 1] === '&') this.refuse('`|&`');
        this.operator(text[this.index + 1] === '|' ? '||' : '|');
      } else if (char === '&') {
        if (text[this.index + 1] === '&') this.operator('&&');
        else if (text[this.index + 1] === '>') this.redirect();
        else this.refuse('`&` (a background job, which can outlive the call)');
      } else if (char === '>') {
        this.redirect();
      } else {
        this.word();
      }
    }
    if (this.pendingOperator !== null) this.refuse(`\`${this.pendingOperator}\` with no command after it`);
    this.endCommand();
  }

  private isEmpty(): boolean {
    return this.current.words.length === 0 && this.current.redirects.length === 0;
  }

  private operator(operator: '&&' | '||' | '|'): void {
    if (this.current.words.length === 0 || this.pendingOperator !== null) this.refuse(`\`${operator}\` with no command before it`);
    this.endCommand();
    this.index += operator.length;
    this.pendingOperator = operator;
  }

  /** Closes the simple command being read, if any. */
  private endCommand(): void {
    const { current } = this;
    if (current.words.length === 0) {
      if (current.redirects.length > 0) this.refuse('a redirection without a command');
      return;
    }
    this.commands.push(current);
    this.current = { words: [], redirects: [] };
  }

  /**
   * `>`, `>>`, `&>`, `&>>` to the literal /dev/null, or `>&N` / `>&-` between descriptors; an
   * optional descriptor number comes before (read by `word`, which hands it over). Anything else
   * writes somewhere or is not a redirection we know.
   */
  private redirect(descriptor = ''): void {
    const { text } = this;
    const start = this.index - descriptor.length;
    let operator = '';
    if (text.startsWith('&>>', this.index)) operator = '&>>';
    else if (text.startsWith('&>', this.index)) operator = '&>';
    else if (text.startsWith('>>', this.index)) operator = '>>';
    else if (text.startsWith('>&', this.index)) operator = '>&';
    else if (text.startsWith('>|', this.index)) this.refuse('`>|` (a write that overrides noclobber)');
    else if (text.startsWith('>(', this.index)) this.refuse('a process substitution `>( )`');
    else operator = '>';
    if (descriptor !== '' && operator.startsWith('&')) this.refuse('a redirection the classifier does not know');
    this.index += operator.length;
    while (text[this.index] === ' ' || text[this.index] === '\t') this.index++;
    const targetStart = this.index;
    while (this.index < text.length && /[A-Za-z0-9_./-]/.test(text[this.index]!)) this.index++;
    const target = text.slice(targetStart, this.index);
    const next = text[this.index];
    if (next !== undefined && !' \t\n;|&>'.includes(next)) this.refuse('a redirection whose target is not a plain word', targetStart);
    if (operator === '>&') {
      // Only to the standard descriptors: a higher one may be something Glassbox inherited.
      if (!/^([0-2]|-)$/.test(target)) {
        this.refuse(
          /^\d+$/.test(target)
            ? `\`>&${target}\` (only descriptors 0-2 are known safe: a higher one may be one Glassbox inherited)`
            : `\`>&\` to \`${target}\` (it writes a file; only descriptors 0-2 or \`-\` are known safe)`,
          start,
        );
      }
    } else if (target !== '/dev/null') {
      this.refuse(
        `a redirection to \`${target || text.slice(targetStart, targetStart + 20)}\` (a write; only /dev/null is known safe)`,
        start,
      );
    }
    this.current.redirects.push(`${descriptor}${operator}${target}`);
    this.pendingOperator = null;
  }

  /** One word: unquoted characters, single-quoted and double-quoted parts, backslash escapes. */
  private word(): void {
    const { text } = this;
    const start = this.index;
    let value = '';
    /** `value` with every quoted or escaped character replaced by a placeholder: where globs are. */
    let shape = '';
    let quoted = false;
    while (this.index < text.length) {
      const char = text[this.index]!;
      if (char === ' ' || char === '\t' || char === '\n' || char === ';' || char === '|' || char === '&') break;
      if (char === '>') {
        // Digits right before `>` are its descriptor (`2>/dev/null`), not a word.
        if (!quoted && /^\d+$/.test(value) && shape === value) {
          this.redirect(value);
          return;
        }
        break;
      }
      if (char === "'") {
        const end = text.indexOf("'", this.index + 1);
        if (end === -1) this.refuse('an unterminated single quote');
        const part = text.slice(this.index + 1, end);
        value += part;
        shape += '\0'.repeat(part.length);
        quoted = true;
        this.index = end + 1;
      } else if (char === '"') {
        let end = this.index + 1;
        while (end < text.length && text[end] !== '"') {
          const inner = text[end]!;
          if (inner === '$' || inner === '`') this.refuse(`${UNQUOTED_REFUSALS[inner]} inside double quotes`, end);
          if (inner === '\\') this.refuse('a backslash inside double quotes', end);
          end++;
        }
        if (end >= text.length) this.refuse('an unterminated double quote');
        const part = text.slice(this.index + 1, end);
        value += part;
        shape += '\0'.repeat(part.length);
        quoted = true;
        this.index = end + 1;
      } else if (char === '\\') {
        const next = text[this.index + 1];
        if (next === undefined) this.refuse('a trailing backslash');
        if (!/^[\x20-\x7e]$/.test(next)) this.refuse('a backslash before a character that is not printable ASCII');
        value += next;
        shape += '\0';
        quoted = true;
        this.index += 2;
      } else {
        const refusal = UNQUOTED_REFUSALS[char];
        if (refusal !== undefined) this.refuse(refusal);
        // In multibyte locales (GBK, GB18030, Big5, Shift JIS) an ASCII byte such as `|` or `\`
        // can be the second byte of the character before it, so bash would not see the operator
        // or the escape we see. Inside quotes that cannot happen (no quote byte is ever a second
        // byte, and double quotes here hold no `\` or `` ` ``); unquoted, nothing non-ASCII is
        // taken as literal.
        if (char.charCodeAt(0) > 0x7f) this.refuse('a non-ASCII character outside quotes');
        // bash expands `~` at the start of a word and after `=` or `:` (in words that look like
        // assignments, arguments included: `echo a=~/x`); elsewhere (`HEAD~1`) it is a character.
        // Only after a plain character (`HEAD~1`, `a/~x`) is it certainly not a tilde prefix.
        if (char === '~' && (this.index === start || !/[A-Za-z0-9_.@%+,/^-]/.test(text[this.index - 1]!))) {
          this.refuse('tilde expansion');
        }
        value += char;
        shape += char;
        this.index++;
      }
    }
    const raw = text.slice(start, this.index);
    if (raw === '') this.refuse(`\`${text[this.index]}\``);
    const first = this.current.words.length === 0;
    if (first) {
      // In command position, an unquoted `NAME=` makes the word an assignment, and reserved words
      // are syntax, not programs.
      if (/^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/.test(raw)) this.refuse('a variable assignment', start);
      if (!quoted && RESERVED_WORDS.has(value)) this.refuse(`the shell keyword \`${value}\``, start);
    }
    this.current.words.push({ value, raw, glob: hasGlobPattern(shape) });
    this.pendingOperator = null;
  }
}
