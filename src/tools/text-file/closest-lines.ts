// When a search text is not in a file, the most useful error shows where it almost is: the same
// text with different whitespace, or failing that the most similar run of lines.

export interface LineWindow {
  /** 0-based index of the first line. */
  start: number;
  count: number;
}

export interface ScoredWindow extends LineWindow {
  /** 0..1, mean bigram similarity of the window's lines to the wanted lines. */
  score: number;
}

const MAX_COMPARED_LINES = 8;
const SHORTLIST_SIZE = 24;

/**
 * The window of `fileLines` most similar to `wanted`. Every start is scored on the first wanted
 * line alone (cheap), then a shortlist is scored on up to eight lines, which keeps large files fast.
 */
export function findClosestWindow(fileLines: readonly string[], wanted: readonly string[]): ScoredWindow | null {
  const wantedLines = trimEmptyEdges(wanted);
  if (wantedLines.length === 0 || fileLines.length === 0) return null;
  const count = Math.min(wantedLines.length, fileLines.length);
  const compared = Math.min(count, MAX_COMPARED_LINES);
  const wantedGrams = wantedLines.slice(0, compared).map((line) => bigrams(line.trim()));
  const fileGrams = new Map<number, Map<string, number>>();
  const gramsAt = (index: number): Map<string, number> => {
    let grams = fileGrams.get(index);
    if (grams === undefined) {
      grams = bigrams(fileLines[index]!.trim());
      fileGrams.set(index, grams);
    }
    return grams;
  };

  const lastStart = fileLines.length - count;
  const firstLineScores: { start: number; score: number }[] = [];
  for (let start = 0; start <= lastStart; start += 1) {
    firstLineScores.push({ start, score: dice(wantedGrams[0]!, gramsAt(start)) });
  }
  firstLineScores.sort((a, b) => b.score - a.score || a.start - b.start);

  let best: ScoredWindow | null = null;
  for (const { start } of firstLineScores.slice(0, SHORTLIST_SIZE)) {
    let total = 0;
    for (let offset = 0; offset < compared; offset += 1) total += dice(wantedGrams[offset]!, gramsAt(start + offset));
    const score = total / compared;
    if (best === null || score > best.score || (score === best.score && start < best.start)) {
      best = { start, count, score };
    }
  }
  return best;
}

/**
 * Windows of whole lines where `needle` occurs once all whitespace is ignored on both sides.
 * Offsets are mapped back through a table so the caller can quote the file's exact text.
 */
export function findIgnoringWhitespace(text: string, needle: string, limit = 3): LineWindow[] {
  const strippedNeedle = needle.replace(/\s+/g, '');
  if (strippedNeedle === '') return [];
  const originalOffsets: number[] = [];
  let stripped = '';
  for (let index = 0; index < text.length; index += 1) {
    const character = text[index]!;
    if (/\s/.test(character)) continue;
    stripped += character;
    originalOffsets.push(index);
  }
  const lineStarts = [0];
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) lineStarts.push(index + 1);
  const lineOf = (offset: number): number => {
    let low = 0;
    let high = lineStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if (lineStarts[middle]! <= offset) low = middle;
      else high = middle - 1;
    }
    return low;
  };

  const windows: LineWindow[] = [];
  for (
    let found = stripped.indexOf(strippedNeedle);
    found !== -1 && windows.length < limit;
    found = stripped.indexOf(strippedNeedle, found + strippedNeedle.length)
  ) {
    const first = lineOf(originalOffsets[found]!);
    const last = lineOf(originalOffsets[found + strippedNeedle.length - 1]!);
    windows.push({ start: first, count: last - first + 1 });
  }
  return windows;
}

function trimEmptyEdges(lines: readonly string[]): string[] {
  let start = 0;
  let end = lines.length;
  while (start < end && lines[start]!.trim() === '') start += 1;
  while (end > start && lines[end - 1]!.trim() === '') end -= 1;
  return lines.slice(start, end);
}

function bigrams(text: string): Map<string, number> {
  const grams = new Map<string, number>();
  if (text.length === 1) grams.set(text, 1);
  for (let index = 0; index + 1 < text.length; index += 1) {
    const gram = text.slice(index, index + 2);
    grams.set(gram, (grams.get(gram) ?? 0) + 1);
  }
  return grams;
}

/** Sørensen–Dice coefficient over bigram multisets. */
function dice(a: Map<string, number>, b: Map<string, number>): number {
  let sizeA = 0;
  let sizeB = 0;
  let shared = 0;
  for (const count of a.values()) sizeA += count;
  for (const count of b.values()) sizeB += count;
  if (sizeA === 0 && sizeB === 0) return 1;
  if (sizeA === 0 || sizeB === 0) return 0;
  for (const [gram, count] of a) shared += Math.min(count, b.get(gram) ?? 0);
  return (2 * shared) / (sizeA + sizeB);
}
