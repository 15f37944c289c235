// How a hunk's lines (and its `@@` lines) are found in a file. Comparisons run strictest first, and a
// looser one is tried only when the stricter one matched nowhere in the searched range, so a loose
// match never wins over an exact one further down. The passes — exact, trailing whitespace ignored,
// surrounding whitespace ignored, typographic punctuation read as ASCII — and the punctuation set are
// those of Codex's matcher: models trained on its format write '-' and straight quotes for a file's
// dashes and curly quotes, and expect the patch to apply.

type LineKey = (line: string) => string;

// En/em dashes, hyphens and the minus sign; single then double curly quotes; no-break and other
// fixed-width spaces. Nothing else is folded: a looser rule would start matching different code.
const TYPOGRAPHIC = /[\u00A0\u2002-\u200A\u2010-\u2015\u2018-\u201F\u202F\u205F\u2212\u3000]/g;

function asAscii(char: string): string {
  const code = char.charCodeAt(0);
  if ((code >= 0x2010 && code <= 0x2015) || code === 0x2212) return '-';
  if (code >= 0x2018 && code <= 0x201b) return "'";
  if (code >= 0x201c && code <= 0x201f) return '"';
  return ' ';
}

const exact: LineKey = (line) => line;
const trimmedEnd: LineKey = (line) => line.trimEnd();
const trimmed: LineKey = (line) => line.trim();
/** The loosest reading of a line: trimmed, with typographic punctuation replaced by its ASCII look-alike. */
const asciiPunctuation: LineKey = (line) => line.trim().replace(TYPOGRAPHIC, asAscii);

const HUNK_PASSES: readonly LineKey[] = [exact, trimmedEnd, trimmed, asciiPunctuation];
// The parser stores `@@` text trimmed, so the stricter passes could only say what `trimmed` says.
const ANCHOR_PASSES: readonly LineKey[] = [trimmed, asciiPunctuation];

export interface FindOptions {
  /** The match must end at the file's last line (`*** End of File`). */
  atEnd?: boolean;
  /** Last start index to consider; defaults to the last one where the lines fit. */
  maxStart?: number;
}

export interface LineMatcher {
  /** Start index of `expected` at or after `from`, or null when no pass finds it. */
  findLines(expected: readonly string[], from: number, options?: FindOptions): number | null;
  /** Index of the first line at or after `from` that reads as `anchor`, or -1. */
  findAnchor(anchor: string, from: number): number;
}

export function createLineMatcher(lines: readonly string[]): LineMatcher {
  // Each pass reads the whole file once, on first use: most hunks match exactly and never need it.
  const keyed = new Map<LineKey, string[]>();
  const keysOf = (key: LineKey): string[] => {
    let keys = keyed.get(key);
    if (keys === undefined) {
      keys = lines.map(key);
      keyed.set(key, keys);
    }
    return keys;
  };

  return {
    findLines(expected, from, options = {}) {
      const last = lines.length - expected.length;
      const first = options.atEnd ? last : from;
      const end = Math.min(last, options.maxStart ?? last);
      if (first < from || first > end) return null;
      for (const key of HUNK_PASSES) {
        const file = keysOf(key);
        const wanted = expected.map(key);
        for (let start = first; start <= end; start += 1) {
          if (wanted.every((line, offset) => file[start + offset] === line)) return start;
        }
      }
      return null;
    },
    findAnchor(anchor, from) {
      for (const key of ANCHOR_PASSES) {
        const index = keysOf(key).indexOf(key(anchor), from);
        if (index !== -1) return index;
      }
      return -1;
    },
  };
}
