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
