// What a grep search produces and how it is shown: the caps, the sort and the clipping of long
// lines are the tool's, not ripgrep's, so they hold whichever ripgrep version runs.

export interface LineMatch {
  /** 1-based line number. */
  line: number;
  /** The line without its terminator, clipped around the first match. */
  text: string;
}

export interface FileMatches {
  /** Root-relative path with `/` separators. */
  path: string;
  /** The first matching lines, at most `keepPerFile` of them, in line order. */
  lines: LineMatch[];
  /** Every matching line in the file, kept or not. */
  total: number;
}

export interface SearchRequest {
  /** Real path of the project root; results are reported relative to it. */
  root: string;
  /** Absolute real path of the file or directory to search. */
  target: string;
  targetIsDirectory: boolean;
  /**
   * `.gitignore` files that apply above `target` (shallowest first). Empty when the target was
   * asked for explicitly although ignored: then only the rules inside it count.
   */
  ancestorIgnoreFiles: string[];
  pattern: string;
  literal: boolean;
  ignoreCase: boolean;
  /** The `glob` filter, given an absolute file path. */
  includes: (absolutePath: string) => boolean;
  keepPerFile: number;
  /** Characters kept of a long line, around its first match. */
  lineWidth: number;
  signal: AbortSignal;
}

export interface GrepLimits {
  /** Matching lines shown in total. */
  maxLines: number;
  /** Matching lines shown per file, so one noisy file cannot crowd out the rest. */
  maxLinesPerFile: number;
  /** Characters kept of a long line, around its first match. */
  lineWidth: number;
}

export const DEFAULT_GREP_LIMITS: GrepLimits = { maxLines: 200, maxLinesPerFile: 20, lineWidth: 300 };

/** How far before the match a clipped window starts, so the match keeps some context. */
const LEAD_CHARACTERS = 100;

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** Keep `width` characters of `text` around `column` (UTF-16 index of the first match). */
export function clipAroundMatch(text: string, column: number, width: number): string {
  if (text.length <= width) return text;
  let start = Math.max(0, Math.min(column - LEAD_CHARACTERS, text.length - width));
  let end = start + width;
  if (start > 0 && isHighSurrogate(text.charCodeAt(start - 1))) start += 1;
  if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
  return `${start > 0 ? '...' : ''}${text.slice(start, end)}${end < text.length ? '...' : ''}`;
}

export function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `path:line:text` lines sorted by path then line, with the caps and a summary when anything was left out. */
export function formatGrepReport(files: FileMatches[], limits: GrepLimits): string {
  const sorted = [...files].filter((file) => file.total > 0).sort((a, b) => comparePaths(a.path, b.path));
  if (sorted.length === 0) return 'No matches found.';
  const totalLines = sorted.reduce((sum, file) => sum + file.total, 0);
  const output: string[] = [];
  let shownLines = 0;
  let shownFiles = 0;
  for (const file of sorted) {
    const room = Math.min(limits.maxLinesPerFile, limits.maxLines - shownLines);
    if (room <= 0) break;
    const lines = file.lines.slice(0, room);
    for (const match of lines) output.push(`${file.path}:${match.line}:${match.text}`);
    shownLines += lines.length;
    shownFiles += 1;
    if (file.total > lines.length) {
      const more = file.total - lines.length;
      output.push(`${file.path}: ... ${more} more matching line${more === 1 ? '' : 's'} in this file`);
    }
  }
  if (shownLines < totalLines) {
    const hiddenFiles = sorted.length - shownFiles;
    const filesNote = hiddenFiles > 0 ? `; ${hiddenFiles} more file${hiddenFiles === 1 ? '' : 's'} with matches not shown` : '';
    output.push(
      '',
      `[Showing ${shownLines} of ${totalLines} matching lines from ${shownFiles} of ${sorted.length} files${filesNote}. ` +
        'Narrow the search with path, glob or a more specific pattern.]',
    );
  }
  return output.join('\n');
}
