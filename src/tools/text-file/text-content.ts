// How the editing tools see a file's bytes: UTF-8 text with its byte-order mark and line endings
// remembered, so an edit can change the text without silently changing those conventions.

export type LineEnding = '\n' | '\r\n';

export type DecodedFile = { kind: 'text'; text: string; bom: boolean } | { kind: 'binary'; reason: string };

const BOM = '\uFEFF';

/**
 * A NUL byte or invalid UTF-8 marks a file as binary: rewriting it through a string would corrupt
 * it, so the tools refuse to edit it instead.
 */
export function decodeFile(bytes: Uint8Array): DecodedFile {
  if (bytes.includes(0)) return { kind: 'binary', reason: 'it contains NUL bytes' };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return { kind: 'binary', reason: 'it is not valid UTF-8' };
  }
  if (text.startsWith(BOM)) return { kind: 'text', text: text.slice(BOM.length), bom: true };
  return { kind: 'text', text, bom: false };
}

export function encodeText(text: string, bom: boolean): Buffer {
  return Buffer.from(bom ? BOM + text : text, 'utf8');
}

export function countLineEndings(text: string): { crlf: number; lf: number } {
  let crlf = 0;
  let lf = 0;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) {
    if (index > 0 && text.charCodeAt(index - 1) === 13) crlf += 1;
    else lf += 1;
  }
  return { crlf, lf };
}

/** The ending new lines should get: CRLF only when the file mostly uses it. */
export function dominantLineEnding(text: string): LineEnding {
  const { crlf, lf } = countLineEndings(text);
  return crlf > lf ? '\r\n' : '\n';
}

/** True when the file has line endings and every one of them is CRLF. */
export function isPureCrlf(text: string): boolean {
  const { crlf, lf } = countLineEndings(text);
  return crlf > 0 && lf === 0;
}

/**
 * The text with every CRLF turned into LF, plus where those CRLFs were, so offsets found in the
 * normalized text can be mapped back to the original and untouched lines keep their own endings.
 */
export interface NormalizedText {
  text: string;
  /** Offsets, in `text`, of each `\n` that was `\r\n` in the original (ascending). */
  crlfOffsets: number[];
}

export function normalizeLineEndings(original: string): NormalizedText {
  const crlfOffsets: number[] = [];
  let text = '';
  let from = 0;
  for (let index = original.indexOf('\r\n'); index !== -1; index = original.indexOf('\r\n', index + 2)) {
    text += original.slice(from, index);
    crlfOffsets.push(text.length);
    text += '\n';
    from = index + 2;
  }
  text += original.slice(from);
  return { text, crlfOffsets };
}

/** Map an offset in the normalized text to the original; an offset on a `\n` lands on its `\r`. */
export function toOriginalOffset(normalized: NormalizedText, offset: number): number {
  let low = 0;
  let high = normalized.crlfOffsets.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (normalized.crlfOffsets[middle]! < offset) low = middle + 1;
    else high = middle;
  }
  return offset + low;
}

/** 1-based line number of an offset in LF text. */
export function lineNumberAt(text: string, offset: number): number {
  return lineNumbersAt(text, [offset])[0]!;
}

/** 1-based line numbers of ascending offsets, in one pass over the text. */
export function lineNumbersAt(text: string, ascendingOffsets: readonly number[]): number[] {
  const numbers: number[] = [];
  let line = 1;
  let nextBreak = text.indexOf('\n');
  for (const offset of ascendingOffsets) {
    while (nextBreak !== -1 && nextBreak < offset) {
      line += 1;
      nextBreak = text.indexOf('\n', nextBreak + 1);
    }
    numbers.push(line);
  }
  return numbers;
}

/** Number of lines as an editor would show them: a final newline does not start another line. */
export function countLines(text: string): number {
  if (text === '') return 0;
  const breaks = text.split('\n').length - 1;
  return text.endsWith('\n') ? breaks : breaks + 1;
}

/** Lines in `cat -n` style, so numbers line up with what read_file shows. */
export function formatNumberedLines(lines: readonly string[], firstLineNumber: number): string {
  const width = String(firstLineNumber + lines.length - 1).length;
  return lines.map((line, index) => `${String(firstLineNumber + index).padStart(Math.max(width, 6))}\t${line}`).join('\n');
}
