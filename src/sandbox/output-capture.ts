// A command can print gigabytes. We keep the beginning (where errors about usage and setup show up)
// and the end (where the final error or summary is), and only count what falls in between, so
// memory stays bounded no matter how much the command writes.

export const DEFAULT_OUTPUT_LIMIT = 30_000;

export interface CapturedOutput {
  /** Head, omission marker (when anything was dropped), tail. */
  text: string;
  totalChars: number;
  omittedChars: number;
  omittedLines: number;
}

function countNewlines(text: string): number {
  let count = 0;
  let at = text.indexOf('\n');
  while (at !== -1) {
    count += 1;
    at = text.indexOf('\n', at + 1);
  }
  return count;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

export function formatOmission(chars: number, lines: number): string {
  return `[... ${chars} characters / ${lines} lines omitted ...]`;
}

export class OutputCapture {
  private head = '';
  private readonly headLimit: number;
  private readonly tailLimit: number;
  private tailChunks: string[] = [];
  private tailLength = 0;
  private headClosed = false;
  private totalChars = 0;
  private droppedNewlines = 0;

  constructor(limit: number = DEFAULT_OUTPUT_LIMIT) {
    if (!Number.isInteger(limit) || limit < 2) throw new Error(`Output limit must be an integer >= 2, got ${limit}.`);
    this.headLimit = Math.floor(limit / 2);
    this.tailLimit = limit - this.headLimit;
  }

  append(text: string): void {
    if (text.length === 0) return;
    this.totalChars += text.length;
    let rest = text;
    if (!this.headClosed) {
      let take = Math.min(this.headLimit - this.head.length, rest.length);
      // Never split a surrogate pair across head and tail.
      if (take < rest.length && take > 0 && isHighSurrogate(rest.charCodeAt(take - 1))) take -= 1;
      this.head += rest.slice(0, take);
      rest = rest.slice(take);
      if (rest.length === 0) return;
      // Once anything goes to the tail the head must not grow again, or output would reorder.
      this.headClosed = true;
    }
    this.tailChunks.push(rest);
    this.tailLength += rest.length;
    this.trimTail();
  }

  private trimTail(): void {
    while (this.tailLength > this.tailLimit) {
      // The chunks hold tailLength characters, so there is one while it is over the limit.
      const first = this.tailChunks[0]!;
      const excess = this.tailLength - this.tailLimit;
      if (first.length <= excess) {
        this.tailChunks.shift();
        this.tailLength -= first.length;
        this.droppedNewlines += countNewlines(first);
        continue;
      }
      let cut = excess;
      if (isLowSurrogate(first.charCodeAt(cut))) cut += 1;
      this.droppedNewlines += countNewlines(first.slice(0, cut));
      this.tailChunks[0] = first.slice(cut);
      this.tailLength -= cut;
    }
  }

  result(): CapturedOutput {
    const tail = this.tailChunks.join('');
    const omittedChars = this.totalChars - this.head.length - tail.length;
    if (omittedChars === 0) {
      return { text: this.head + tail, totalChars: this.totalChars, omittedChars: 0, omittedLines: 0 };
    }
    const omittedLines = this.droppedNewlines;
    const before = this.head.endsWith('\n') ? '' : '\n';
    const after = tail.startsWith('\n') ? '' : '\n';
    return {
      text: `${this.head}${before}${formatOmission(omittedChars, omittedLines)}${after}${tail}`,
      totalChars: this.totalChars,
      omittedChars,
      omittedLines,
    };
  }
}
