// Session files can grow large, so they are read in chunks and split on newline bytes, never
// loaded whole. Splitting on the byte 0x0A is safe for UTF-8: it never occurs inside a multi-byte
// character. Unlike readline, this reports where each line starts and ends and whether the file
// ends with an unterminated line, which is how a torn write is recognised.

import { open, type FileHandle } from 'node:fs/promises';

const NEWLINE = 0x0a;
const DEFAULT_CHUNK_SIZE = 256 * 1024;
const FIRST_CHUNK_SIZE = 16 * 1024;

export interface FileLine {
  /** 1-based line number. */
  line: number;
  /** The line without its newline. */
  text: string;
  /** Byte offset of the first byte of the line. */
  start: number;
  /** Byte offset just after the line's newline. */
  end: number;
}

export interface LineScanResult {
  /** Number of the last complete line handed to the callback (startLine - 1 if none). */
  lastLine: number;
  /** Byte offset just after the last complete line. */
  endOffset: number;
  /** Bytes after the last newline at the end of the file: an unfinished write. */
  tailBytes: number;
  /** False when the callback stopped the scan or `maxBytes` cut it short. */
  reachedEnd: boolean;
}

export interface ScanOptions {
  /** Byte offset to start at; must be the start of a line. */
  startOffset?: number;
  /** Line number of the line at `startOffset`. */
  startLine?: number;
  /** Read at most this many bytes (a head read); lines cut by the cap are not reported. */
  maxBytes?: number;
  chunkSize?: number;
}

/**
 * Call `onLine` for every complete (newline-terminated) line, in order. Returning `false` from
 * the callback stops the scan. The callback is synchronous so the per-line cost stays small.
 */
export async function scanLines(
  path: string,
  // biome-ignore lint/suspicious/noConfusingVoidType: callbacks that return nothing are fine here
  onLine: (line: FileLine) => boolean | void,
  options: ScanOptions = {},
): Promise<LineScanResult> {
  const handle = await open(path, 'r');
  try {
    return await scanHandle(handle, onLine, options);
  } finally {
    await handle.close();
  }
}

async function scanHandle(
  handle: FileHandle,
  // biome-ignore lint/suspicious/noConfusingVoidType: callbacks that return nothing are fine here
  onLine: (line: FileLine) => boolean | void,
  options: ScanOptions,
): Promise<LineScanResult> {
  const maxChunk = options.chunkSize ?? DEFAULT_CHUNK_SIZE;
  // Start small and grow: most session heads and small files fit in the first read, and
  // allocating a large buffer per file dominates when thousands of small files are scanned.
  let chunkSize = Math.min(FIRST_CHUNK_SIZE, maxChunk);
  let position = options.startOffset ?? 0;
  const limit = options.maxBytes === undefined ? Number.POSITIVE_INFINITY : position + options.maxBytes;
  let line = (options.startLine ?? 1) - 1;
  let lineStart = position;
  // Pieces of a line that spans chunks. Each chunk gets a fresh buffer, so the pieces stay valid.
  let pending: Buffer[] = [];
  let pendingLength = 0;

  for (;;) {
    const want = Math.min(chunkSize, limit - position);
    if (want <= 0) return { lastLine: line, endOffset: lineStart, tailBytes: 0, reachedEnd: false };
    const buffer = Buffer.allocUnsafe(want);
    const { bytesRead } = await handle.read(buffer, 0, want, position);
    if (bytesRead === 0) return { lastLine: line, endOffset: lineStart, tailBytes: pendingLength, reachedEnd: true };
    const chunk = bytesRead === want ? buffer : buffer.subarray(0, bytesRead);
    let from = 0;
    for (;;) {
      const newline = chunk.indexOf(NEWLINE, from);
      if (newline === -1) {
        if (from < chunk.length) {
          pending.push(chunk.subarray(from));
          pendingLength += chunk.length - from;
        }
        break;
      }
      let text: string;
      if (pendingLength > 0) {
        pending.push(chunk.subarray(from, newline));
        text = Buffer.concat(pending).toString('utf8');
        pending = [];
        pendingLength = 0;
      } else {
        text = chunk.toString('utf8', from, newline);
      }
      line += 1;
      const end = position + newline + 1;
      const keepGoing = onLine({ line, text, start: lineStart, end });
      lineStart = end;
      if (keepGoing === false) return { lastLine: line, endOffset: end, tailBytes: 0, reachedEnd: false };
      from = newline + 1;
    }
    position += bytesRead;
    chunkSize = Math.min(chunkSize * 2, maxChunk);
  }
}

/** Whether the byte just before `offset` is a newline, i.e. `offset` starts a line. */
export async function isLineStart(path: string, offset: number): Promise<boolean> {
  if (offset === 0) return true;
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(1);
    const { bytesRead } = await handle.read(buffer, 0, 1, offset - 1);
    return bytesRead === 1 && buffer[0] === NEWLINE;
  } finally {
    await handle.close();
  }
}
