// Every way a source file can reach another module, found by reading its tokens (comments,
// strings, template literals and regular expressions skipped as the language reads them), not by
// matching lines: `import`/`export … from`, side-effect imports, `import(…)` (also with a template
// literal), `require(…)` and `require.resolve(…)` however `require` was made (`createRequire`),
// wherever they stand on a line. A reference whose module cannot be read off the text (a computed
// `import(name)`) is reported as such, so the layer check can refuse it instead of missing it.

import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Every TypeScript source below `dir` (declaration files left out), for the checks that read them all. */
export function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) files.push(...sourceFiles(full));
    else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) files.push(full);
  }
  return files;
}

export interface ModuleReference {
  /** The module named, as written (a template literal without substitutions counts as written). */
  specifier: string | null;
  /** `import type`, `export type`, or every named binding marked `type`. */
  typeOnly: boolean;
  kind: 'static' | 'dynamic' | 'require';
  /** 1-based line of the keyword, for messages. */
  line: number;
}

export interface Token {
  kind: 'word' | 'string' | 'template' | 'punct' | 'other';
  text: string;
  /** For strings and substitution-free templates: the value. */
  value?: string;
  line: number;
}

const WORD = /[A-Za-z0-9_$\u0080-\uffff]/;
/** After these a `/` starts a regular expression, not a division. */
const BEFORE_REGEX_WORDS = new Set([
  'return',
  'typeof',
  'instanceof',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'case',
  'do',
  'else',
  'yield',
  'await',
]);

/** The file's tokens; comments are dropped, strings and templates carry their value. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  // Template literals nest through `${ … }`: each open substitution remembers its brace depth.
  const templateDepths: number[] = [];
  let braceDepth = 0;
  const advanceLines = (from: number, to: number): void => {
    for (let k = from; k < to; k += 1) if (text[k] === '\n') line += 1;
  };
  const readTemplate = (start: number): void => {
    // From just after a backtick or a closing `}` of a substitution to the end of that part.
    let j = start;
    let raw = '';
    while (j < text.length) {
      const c = text[j]!;
      if (c === '\\') {
        raw += text.slice(j, j + 2);
        j += 2;
        continue;
      }
      if (c === '`') {
        tokens.push({ kind: 'template', text: raw, value: raw, line });
        advanceLines(start, j + 1);
        i = j + 1;
        return;
      }
      if (c === '$' && text[j + 1] === '{') {
        tokens.push({ kind: 'template', text: raw, line });
        advanceLines(start, j + 2);
        templateDepths.push(braceDepth);
        braceDepth += 1;
        i = j + 2;
        return;
      }
      raw += c;
      j += 1;
    }
    i = text.length;
  };
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\n') {
      line += 1;
      i += 1;
    } else if (/\s/.test(c)) {
      i += 1;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i += 1;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end === -1 ? text.length : end + 2;
      advanceLines(i, stop);
      i = stop;
    } else if (c === "'" || c === '"') {
      let j = i + 1;
      let value = '';
      while (j < text.length && text[j] !== c && text[j] !== '\n') {
        if (text[j] === '\\') {
          value += text[j + 1] ?? '';
          j += 2;
        } else {
          value += text[j];
          j += 1;
        }
      }
      tokens.push({ kind: 'string', text: text.slice(i, j + 1), value, line });
      i = j + 1;
    } else if (c === '`') {
      readTemplate(i + 1);
    } else if (c === '}' && templateDepths.length > 0 && templateDepths[templateDepths.length - 1] === braceDepth - 1) {
      templateDepths.pop();
      braceDepth -= 1;
      readTemplate(i + 1);
    } else if (c === '/' && regexAllowed(tokens[tokens.length - 1])) {
      let j = i + 1;
      let inClass = false;
      while (j < text.length && text[j] !== '\n') {
        if (text[j] === '\\') j += 1;
        else if (text[j] === '[') inClass = true;
        else if (text[j] === ']') inClass = false;
        else if (text[j] === '/' && !inClass) break;
        j += 1;
      }
      j += 1;
      while (j < text.length && WORD.test(text[j]!)) j += 1;
      tokens.push({ kind: 'other', text: text.slice(i, j), line });
      i = j;
    } else if (WORD.test(c)) {
      let j = i;
      while (j < text.length && WORD.test(text[j]!)) j += 1;
      tokens.push({ kind: 'word', text: text.slice(i, j), line });
      i = j;
    } else {
      if (c === '{') braceDepth += 1;
      if (c === '}') braceDepth -= 1;
      tokens.push({ kind: 'punct', text: c, line });
      i += 1;
    }
  }
  return tokens;
}

const DECLARATIONS = new Set([
  'const',
  'let',
  'var',
  'function',
  'class',
  'default',
  'async',
  'interface',
  'enum',
  'abstract',
  'declare',
  'namespace',
  'using',
]);

function regexAllowed(previous: Token | undefined): boolean {
  if (previous === undefined) return true;
  if (previous.kind === 'word') return BEFORE_REGEX_WORDS.has(previous.text);
  if (previous.kind === 'string' || previous.kind === 'template' || previous.kind === 'other') return false;
  return previous.text !== ')' && previous.text !== ']' && previous.text !== '}';
}

/** The literal a call's first argument is, when it is one; null when it is computed. */
function literalArgument(tokens: Token[], open: number): string | null {
  const argument = tokens[open + 1];
  const after = tokens[open + 2];
  if (argument === undefined || argument.value === undefined) return null;
  if (argument.kind !== 'string' && argument.kind !== 'template') return null;
  return after !== undefined && (after.text === ')' || after.text === ',') ? argument.value : null;
}

export function moduleReferences(text: string): ModuleReference[] {
  const tokens = tokenize(text);
  const found: ModuleReference[] = [];
  // `const load = createRequire(import.meta.url)` makes `load` a require too.
  const requireNames = new Set(['require']);
  for (let k = 3; k < tokens.length; k += 1) {
    if (tokens[k]!.text === 'createRequire' && tokens[k - 1]!.text === '=' && tokens[k - 2]!.kind === 'word')
      requireNames.add(tokens[k - 2]!.text);
  }
  for (let k = 0; k < tokens.length; k += 1) {
    const token = tokens[k]!;
    if (token.kind !== 'word') continue;
    const previous = tokens[k - 1];
    // A property (`x.import`, `obj.require`) is not the keyword or the function.
    if (previous?.text === '.' && !(token.text === 'resolve' && requireNames.has(tokens[k - 2]?.text ?? ''))) continue;
    const next = tokens[k + 1];
    if (token.text === 'import' && next?.text === '(') {
      found.push({ specifier: literalArgument(tokens, k + 1), typeOnly: false, kind: 'dynamic', line: token.line });
    } else if ((token.text === 'import' || token.text === 'export') && next !== undefined && next.text !== '.') {
      // Up to the statement's end: a `from 'x'`, or (import only) a bare `import 'x'`.
      if (token.text === 'import' && next.kind === 'string') {
        found.push({ specifier: next.value ?? '', typeOnly: false, kind: 'static', line: token.line });
        continue;
      }
      // `export const x = …`, `export type X = …` and the like name no module.
      if (token.text === 'export' && (DECLARATIONS.has(next.text) || (next.text === 'type' && tokens[k + 2]?.kind === 'word'))) continue;
      let j = k + 1;
      let depth = 0;
      while (j < tokens.length) {
        const t = tokens[j]!;
        if (t.text === '{') depth += 1;
        if (t.text === '}') depth -= 1;
        if (depth < 0) break;
        if (depth === 0 && (t.text === ';' || (t.kind === 'word' && (t.text === 'from' || t.text === 'import' || t.text === 'export'))))
          break;
        j += 1;
      }
      const from = tokens[j];
      const source = tokens[j + 1];
      if (from?.text !== 'from' || source?.kind !== 'string') continue;
      const clause = tokens.slice(k + 1, j);
      const typeKeyword = clause[0]?.text === 'type';
      const open = clause.findIndex((t) => t.text === '{');
      let allTypes = false;
      if (open !== -1 && clause.every((t, index) => index >= open || t.text === 'type' || t.text === '{')) {
        // Every named binding starts with `type`.
        const names: Token[][] = [[]];
        for (const t of clause.slice(open + 1)) {
          if (t.text === ',') names.push([]);
          else if (t.text !== '}') names[names.length - 1]!.push(t);
        }
        const nonEmpty = names.filter((name) => name.length > 0);
        allTypes = nonEmpty.length > 0 && nonEmpty.every((name) => name[0]!.text === 'type');
      }
      found.push({ specifier: source.value ?? '', typeOnly: typeKeyword || allTypes, kind: 'static', line: token.line });
    } else if (requireNames.has(token.text) && next?.text === '(') {
      found.push({ specifier: literalArgument(tokens, k + 1), typeOnly: false, kind: 'require', line: token.line });
    } else if (token.text === 'resolve' && previous?.text === '.' && next?.text === '(') {
      found.push({ specifier: literalArgument(tokens, k + 1), typeOnly: false, kind: 'require', line: token.line });
    }
  }
  return found;
}
