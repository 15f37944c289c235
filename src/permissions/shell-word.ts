// A shell word as the classifier's rules see it: the literal value after quote removal, so
// `'-exec'`, `"-"exec` and `-\exec` all reach a rule as `-exec`, and whether bash may still
// replace it with file names (a glob). Words with anything else left to expand never get here
// (literal-command.ts refuses them).

/**
 * - `static`: `text` is exactly the argument the program will receive.
 * - `glob`: an unquoted pattern; `text` is the pattern after quote removal. It may expand to
 *   several file names (or stay as is when nothing matches).
 */
export type ShellWordKind = 'static' | 'glob';

export interface ShellWord {
  kind: ShellWordKind;
  text: string;
}

export function staticWord(text: string): ShellWord {
  return { kind: 'static', text };
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
 * Where the bracket expression opened at `open` ends, as bash reads it: a `]` right after the `[`
 * (or after `[!`, `[^`) is a member, not the end. -1 when it never ends (then the `[` is literal).
 * 'unsure' for what a check should not try to read: a class, equivalence class or collating
 * symbol inside (`[[:alpha:]]`, `[[=a=]]`, `[[.a.]]`, whose own `]` is not the end) or an escape.
 */
export function bracketEnd(text: string, open: number): number | 'unsure' {
  let index = open + 1;
  if (text[index] === '!' || text[index] === '^') index += 1;
  if (text[index] === ']') index += 1;
  for (; index < text.length; index++) {
    const char = text[index]!;
    if (char === '[' || char === '\\') return 'unsure';
    if (char === ']') return index;
  }
  return -1;
}

/**
 * One component of a glob as a regular expression that matches at least what bash's matches: a
 * bracket expression is read as any one character, a superset, the safe side for a check. Null
 * for a component the expression cannot be built from.
 */
export function globComponentPattern(component: string): RegExp | null {
  let source = '';
  for (let index = 0; index < component.length; index++) {
    const char = component[index]!;
    if (char === '*') source += '.*';
    else if (char === '?') source += '.';
    else if (char === '[') {
      const close = bracketEnd(component, index);
      if (close === 'unsure') return null;
      if (close === -1) source += '\\[';
      else {
        source += '.';
        index = close;
      }
    } else source += char.replace(/[.+^${}()|\\/]/g, '\\$&');
  }
  try {
    return new RegExp(`^${source}$`, 's');
  } catch {
    return null;
  }
}

/**
 * Could this one-component glob pattern match the name `..`? bash before 5.2 lets `.*` match it.
 * A leading dot must be matched explicitly (`*` and `?` never match it), so only a pattern that
 * starts with `.` or a bracket expression can.
 */
function mayMatchDotDot(component: string): boolean {
  if (!/[*?[]/.test(component) || !/^[.[]/.test(component)) return false;
  return globComponentPattern(component)?.test('..') ?? true;
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

/** Unquoted glob characters (`*`, `?`, or a bracket expression) that pathname expansion acts on. */
export function hasGlobPattern(unquoted: string): boolean {
  return /[*?]/.test(unquoted) || /\[[^\]]*\]/.test(unquoted);
}
