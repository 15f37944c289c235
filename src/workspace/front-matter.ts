// The YAML front matter of a skill (`SKILL.md`) or a prompt command: the small subset those files
// use, read strictly. Top-level `key: value` pairs whose values are plain, single- or
// double-quoted strings, or `>` / `|` block scalars; a key whose value is a list or a map (a
// skill's `metadata:`, `allowed-tools:` as a list) is accepted and left unread. Anything else is
// an error naming the line, so a skill whose description we would misread is skipped, not guessed
// at. A full YAML library would read more, and much we never use (anchors, tags, documents).

export interface FrontMatter {
  /** The string values by key; keys with structured values are absent. */
  fields: Record<string, string>;
  /** The text after the closing `---`. */
  body: string;
}

export class FrontMatterError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FrontMatterError';
  }
}

const KEY = /^([A-Za-z_][A-Za-z0-9_-]*):(?:[ \t]+(.*))?$/;
const BLOCK = /^([|>])([+-]?)$/;

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

function fail(lineNumber: number, what: string): never {
  throw new FrontMatterError(`front matter line ${lineNumber}: ${what}`);
}

/** A plain scalar: a comment after ` #` is dropped; an indicator YAML reserves is refused. */
function plainValue(raw: string, lineNumber: number): string {
  const value = raw.replace(/[ \t]+#.*$/, '').trim();
  if (/^[&*!%@`]/.test(value)) fail(lineNumber, `a value may not start with ${value[0]} (quote it)`);
  return value;
}

function singleQuoted(raw: string, lineNumber: number): string {
  const match = /^'((?:[^']|'')*)'[ \t]*(?:#.*)?$/.exec(raw.trim());
  if (!match) fail(lineNumber, 'an unterminated single-quoted value (quotes on one line only)');
  return match[1]!.replace(/''/g, "'");
}

const ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', n: '\n', t: '\t', r: '\r', '0': '\0' };

function doubleQuoted(raw: string, lineNumber: number): string {
  const match = /^"((?:[^"\\]|\\.)*)"[ \t]*(?:#.*)?$/.exec(raw.trim());
  if (!match) fail(lineNumber, 'an unterminated double-quoted value (quotes on one line only)');
  return match[1]!.replace(/\\(.)/g, (_, escaped: string) => {
    const replacement = ESCAPES[escaped];
    if (replacement === undefined) fail(lineNumber, `an unknown escape \\${escaped}`);
    return replacement;
  });
}

/** A `|` or `>` block: the more-indented lines below the key, kept or folded, chomped. */
function blockValue(lines: readonly string[], indicator: string, chomp: string): string {
  const content = lines.filter((line) => line.trim() !== '');
  const indent = content.length === 0 ? 0 : Math.min(...content.map(indentOf));
  const stripped = lines.map((line) => line.slice(Math.min(indent, indentOf(line))));
  let text: string;
  if (indicator === '|') text = stripped.join('\n');
  else {
    // Folded: lines of one paragraph join with a space; a blank line is a line break.
    text = '';
    for (const line of stripped) {
      if (line === '') text += '\n';
      else text += text === '' || text.endsWith('\n') ? line : ` ${line}`;
    }
  }
  const trimmed = text.replace(/\n+$/, '');
  if (chomp === '-') return trimmed;
  if (chomp === '+') return `${text}\n`;
  return trimmed === '' ? '' : `${trimmed}\n`;
}

/**
 * The front matter of `text` when it starts with a `---` line, else null (a file without one).
 * Throws {@link FrontMatterError} when it is there but not in the subset read here.
 */
export function parseFrontMatter(text: string): FrontMatter | null {
  const source = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  if (!/^---[ \t]*\n/.test(source)) return null;
  const lines = source.split('\n');
  const end = lines.findIndex((line, index) => index > 0 && /^(---|\.\.\.)[ \t]*$/.test(line));
  if (end === -1) throw new FrontMatterError('front matter: no closing --- line');
  const fields: Record<string, string> = {};
  const seen = new Set<string>();
  let index = 1;
  while (index < end) {
    const line = lines[index]!;
    const lineNumber = index + 1;
    if (line.trim() === '' || /^[ \t]*#/.test(line)) {
      index += 1;
      continue;
    }
    if (indentOf(line) > 0) fail(lineNumber, 'an indented line where a key was expected');
    if (line.includes('\t')) fail(lineNumber, 'a tab (YAML indents with spaces)');
    const match = KEY.exec(line);
    if (!match) fail(lineNumber, 'not a `key: value` line');
    const key = match[1]!;
    if (seen.has(key)) fail(lineNumber, `the key ${key} appears twice`);
    seen.add(key);
    const raw = (match[2] ?? '').trim();
    // The lines that belong to this key: indented ones (and blank ones between them).
    let next = index + 1;
    while (next < end && (lines[next]!.trim() === '' || indentOf(lines[next]!) > 0 || lines[next]!.startsWith('- '))) next += 1;
    while (next > index + 1 && lines[next - 1]!.trim() === '') next -= 1;
    const continuation = lines.slice(index + 1, next);
    const block = BLOCK.exec(raw);
    if (block) fields[key] = blockValue(continuation, block[1]!, block[2]!);
    else if (raw === '' || raw.startsWith('[') || raw.startsWith('{')) {
      // A list or map (nested lines, or a flow collection): accepted, not read.
    } else if (raw.startsWith("'") || raw.startsWith('"')) {
      if (continuation.length > 0) fail(lineNumber + 1, 'a quoted value continues on the next line (keep it on one line)');
      fields[key] = raw.startsWith("'") ? singleQuoted(raw, lineNumber) : doubleQuoted(raw, lineNumber);
    } else {
      // A plain value may go on over more-indented lines; they fold into one line.
      const parts = [plainValue(raw, lineNumber), ...continuation.map((part, i) => plainValue(part, lineNumber + 1 + i))];
      fields[key] = parts.filter((part) => part !== '').join(' ');
    }
    index = next;
  }
  return { fields, body: lines.slice(end + 1).join('\n') };
}
