// A shell word as the classifier sees it after quote removal. Rules decide on these values, so
// `'-exec'`, `"-"exec` and `-\exec` all reach a rule as `-exec`. What the shell will only know at
// run time (expansions, globs) is marked as such instead of being guessed.

/**
 * - `static`: `text` is exactly the argument the program will receive.
 * - `glob`: an unquoted pattern; `text` is the pattern after quote removal. It may expand to
 *   several file names (or stay as is when nothing matches).
 * - `dynamic`: contains a parameter, arithmetic or command expansion, brace expansion or ANSI-C
 *   quoting; `text` is the source text and the real value is unknown.
 */
export type ShellWordKind = 'static' | 'glob' | 'dynamic';

export interface ShellWord {
  kind: ShellWordKind;
  text: string;
  /** Starts with an unquoted `~`: the shell replaces it with a home directory. */
  homeRelative: boolean;
  /** Contains a parameter expansion (`$HOME`, `${x}`): a path built from it cannot be checked. */
  usesVariables?: boolean;
  /**
   * Brace expansion (`{a,b}`, `{1..3}`) is purely textual, so the words it produces are known:
   * each is here, to be checked like any literal word. The word itself stays `dynamic`, because
   * one source word becomes several arguments and any of them may be an option.
   */
  alternatives?: readonly ShellWord[];
  /** Brace expansion whose results could not be listed (too many, or mixed with run-time parts). */
  unlistedBraces?: boolean;
}

export function staticWord(text: string): ShellWord {
  return { kind: 'static', text, homeRelative: false };
}

const GLOB_START = new Set(['*', '?', '[']);

/**
 * Could the program see this word (or part of it) as an option? A dynamic word can expand to
 * anything, and a glob that starts with a pattern character can match a file named `-o…`.
 */
export function mayBeOption(word: ShellWord): boolean {
  if (word.kind === 'dynamic') return true;
  if (word.text.startsWith('-')) return true;
  return word.kind === 'glob' && GLOB_START.has(word.text[0] ?? '');
}

/** The directory a glob can only match inside: its text up to the last `/` before a pattern char. */
export function globBaseDirectory(pattern: string): string {
  const firstSpecial = pattern.search(/[*?[]/);
  const head = firstSpecial === -1 ? pattern : pattern.slice(0, firstSpecial);
  const slash = head.lastIndexOf('/');
  if (slash === -1) return '.';
  return slash === 0 ? '/' : head.slice(0, slash);
}

/**
 * Could this one-component glob pattern match the name `..`? bash before 5.2 lets `.*` match it.
 * A leading dot must be matched explicitly (`*` and `?` never match it), so only a pattern that
 * starts with `.` or a bracket expression can.
 */
function mayMatchDotDot(component: string): boolean {
  if (!/[*?[]/.test(component) || !/^[.[]/.test(component)) return false;
  let source = '';
  for (let index = 0; index < component.length; index++) {
    const char = component[index]!;
    if (char === '*') source += '.*';
    else if (char === '?') source += '.';
    else if (char === '[') {
      const close = component.indexOf(']', index + 2);
      if (close === -1) {
        source += '\\[';
        continue;
      }
      const body = component
        .slice(index + 1, close)
        .replace(/^[!^]/, '^')
        .replace(/\\/g, '\\\\');
      source += `[${body}]`;
      index = close;
    } else source += char.replace(/[.+(){}|$\\^]/g, '\\$&');
  }
  try {
    return new RegExp(`^${source}$`, 's').test('..');
  } catch {
    return true;
  }
}

/**
 * A glob read as the path it can reach: every component stands for one name, and one that could
 * match `..` is taken as `..`, so `resolve()` on the result climbs as high as any match could.
 */
export function globAsPath(pattern: string): string {
  return pattern
    .split('/')
    .map((component) => (mayMatchDotDot(component) ? '..' : component))
    .join('/');
}

/** Remove backslash escapes from an unquoted word (a backslash-newline disappears entirely). */
export function unescapeUnquoted(text: string): string {
  let out = '';
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (char === '\\' && index + 1 < text.length) {
      index++;
      if (text[index] !== '\n') out += text[index];
    } else {
      out += char;
    }
  }
  return out;
}

/** Inside double quotes a backslash only escapes `$`, `` ` ``, `"`, `\` and newline. */
export function unescapeDoubleQuoted(text: string): string {
  let out = '';
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    const next = text[index + 1];
    if (char === '\\' && next !== undefined && '$`"\\\n'.includes(next)) {
      index++;
      if (next !== '\n') out += next;
    } else {
      out += char;
    }
  }
  return out;
}

/** Unquoted glob characters (`*`, `?`, or a bracket expression) that pathname expansion acts on. */
export function hasGlobPattern(unquoted: string): boolean {
  return /[*?]/.test(unquoted) || /\[[^\]]*\]/.test(unquoted);
}

/** Brace expansion (`{a,b}`, `{1..3}`) turns one word into several. */
export function hasBraceExpansion(unquoted: string): boolean {
  return /\{[^{}]*(,|\.\.)[^{}]*\}/.test(unquoted);
}

/**
 * Where bash would evaluate something inside `text`, read as leaf text in the given quoting:
 * a backtick command substitution, `$( )`, `$(( ))`, `$[ ]` or `${ }`. Returns what was found, or
 * null. Escapes are honoured as bash honours them: unquoted, a backslash escapes any character;
 * inside double quotes and unquoted here-documents only `$`, `` ` ``, `\\` (and `"` in double
 * quotes) and newline. Single quotes are not treated as quoting here: in a leaf the grammar
 * produced they may not be quotes to bash either, so erring towards "found" is the safe side.
 */
export function hiddenEvaluation(text: string, quoting: 'unquoted' | 'double' | 'heredoc'): string | null {
  const escapable = quoting === 'double' ? '$`"\\\n' : '$`\\\n';
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (char === '\\') {
      const next = text[index + 1];
      if (next !== undefined && (quoting === 'unquoted' || escapable.includes(next))) index++;
      continue;
    }
    if (char === '`') return 'a backtick command substitution';
    if (char === '$') {
      const next = text[index + 1];
      if (next === '(') return text[index + 2] === '(' ? 'an arithmetic expansion `$(( ))`' : 'a command substitution `$( )`';
      if (next === '[') return 'an arithmetic expansion `$[ ]`';
      if (next === '{') return 'a parameter expansion `${ }`';
    }
  }
  return null;
}

/** More words than this from one brace expression are not listed, and the word is refused as a path. */
export const MAX_BRACE_ALTERNATIVES = 256;

interface Shaped {
  text: string;
  /** Same length as `text`; `q` where the character was quoted or escaped. */
  shape: string;
}

function slice(word: Shaped, start: number, end?: number): Shaped {
  return { text: word.text.slice(start, end), shape: word.shape.slice(start, end) };
}

function join(...parts: Shaped[]): Shaped {
  return { text: parts.map((part) => part.text).join(''), shape: parts.map((part) => part.shape).join('') };
}

function literal(text: string): Shaped {
  return { text, shape: text };
}

/** The index of the `}` closing the `{` at `open`, or -1; quoted braces do not count. */
function closingBrace(word: Shaped, open: number): number {
  let depth = 0;
  for (let index = open; index < word.shape.length; index++) {
    const char = word.shape[index];
    if (char === '{' && word.shape[index - 1] !== '$') depth++;
    else if (char === '}' && --depth === 0) return index;
  }
  return -1;
}

/** Top-level unquoted commas split a brace body into alternatives; null when there is none. */
function commaAlternatives(body: Shaped): Shaped[] | null {
  const parts: Shaped[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < body.shape.length; index++) {
    const char = body.shape[index];
    if (char === '{') depth++;
    else if (char === '}') depth--;
    else if (char === ',' && depth === 0) {
      parts.push(slice(body, start, index));
      start = index + 1;
    }
  }
  if (parts.length === 0) return null;
  parts.push(slice(body, start));
  return parts;
}

/** `{1..5}`, `{05..1..2}`, `{a..e}`: bash's sequence expressions; null when the body is not one. */
function sequenceAlternatives(body: Shaped): Shaped[] | null | 'too-many' {
  if (body.shape !== body.text) return null;
  const numeric = /^([+-]?\d+)\.\.([+-]?\d+)(?:\.\.([+-]?\d+))?$/.exec(body.text);
  const letters = /^([A-Za-z])\.\.([A-Za-z])(?:\.\.([+-]?\d+))?$/.exec(body.text);
  const match = numeric ?? letters;
  if (match === null) return null;
  const from = numeric ? Number(match[1]) : match[1]!.charCodeAt(0);
  const to = numeric ? Number(match[2]) : match[2]!.charCodeAt(0);
  const step = Math.abs(Number(match[3] ?? 1)) || 1;
  const count = Math.floor(Math.abs(to - from) / step) + 1;
  if (!Number.isSafeInteger(count) || count > MAX_BRACE_ALTERNATIVES) return 'too-many';
  const width = numeric && /^[+-]?0\d/.test(match[1]! + match[2]!) ? Math.max(match[1]!.length, match[2]!.length) : 0;
  const values: Shaped[] = [];
  for (let index = 0; index < count; index++) {
    const value = from + (to >= from ? 1 : -1) * index * step;
    values.push(literal(numeric ? String(value).padStart(width, '0') : String.fromCharCode(value)));
  }
  return values;
}

function expand(word: Shaped, budget: { left: number }): Shaped[] | null {
  for (let open = word.shape.indexOf('{'); open !== -1; open = word.shape.indexOf('{', open + 1)) {
    if (word.shape[open - 1] === '$') continue;
    const close = closingBrace(word, open);
    if (close === -1) return [word];
    const body = slice(word, open + 1, close);
    const sequence = sequenceAlternatives(body);
    if (sequence === 'too-many') return null;
    const alternatives = commaAlternatives(body) ?? sequence;
    if (alternatives === null) continue;
    const prefix = slice(word, 0, open);
    const suffix = slice(word, close + 1);
    const results: Shaped[] = [];
    for (const alternative of alternatives) {
      const expanded = expand(join(prefix, alternative, suffix), budget);
      if (expanded === null) return null;
      results.push(...expanded);
      budget.left -= expanded.length;
      if (budget.left < 0) return null;
    }
    return results;
  }
  return [word];
}

/**
 * The words bash's brace expansion makes of an unquoted word (`text` after quote removal,
 * `shape` with quoted characters replaced by `q`), or null when there would be more than
 * MAX_BRACE_ALTERNATIVES. Each result comes with its own shape, so globs and a leading `~`
 * (tilde expansion runs after brace expansion) can be recognised in it.
 */
export function expandBraces(text: string, shape: string): { text: string; shape: string }[] | null {
  if (text.length !== shape.length) throw new Error('expandBraces: text and shape must have the same length');
  return expand({ text, shape }, { left: MAX_BRACE_ALTERNATIVES });
}
