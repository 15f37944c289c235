// read_file: numbered lines of one text file, streamed so that a huge file costs one pass and a
// few kilobytes of memory however little of it is shown. The whole file is still scanned, to
// count its lines: the model needs the total to know where it is.

import { closeSync, constants, fstatSync, openSync, read, readSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { builtInSchema, loadToolDescription, ToolError, type Tool, type ToolContext, type ToolResult } from '../../agent/index.js';
import { resolveExisting } from '../path-policy.js';
import { BINARY_SNIFF_BYTES, containsNulByte, hasBinaryExtension } from './binary-file.js';
import { toolSessionState } from '../tool-session-state.js';

const readFileSchema = builtInSchema(
  'read_file',
  z.object({
    path: z.string().min(1).describe('Relative to the project root.'),
    offset: z.number().int().min(1).optional().describe('1-based first line (default 1).'),
    limit: z.number().int().min(1).optional().describe('Lines to show (default 2000).'),
  }),
);

export type ReadFileArgs = z.infer<typeof readFileSchema>;

export interface ReadFileLimits {
  /** Lines shown when the call gives no `limit`. */
  defaultLineLimit: number;
  /** Cap on the whole output in UTF-8 bytes, closing hint included. */
  maxOutputBytes: number;
  /** Longer lines are clipped to this many characters. */
  maxLineLength: number;
}

export const DEFAULT_READ_FILE_LIMITS: ReadFileLimits = {
  defaultLineLimit: 2000,
  maxOutputBytes: 50 * 1024,
  maxLineLength: 2000,
};

const CHUNK_BYTES = 64 * 1024;
const NUMBER_WIDTH = 6;
/** Room kept free for the closing hint, so the lines plus the hint stay under the cap. */
const HINT_RESERVE_BYTES = 256;

interface ShownLines {
  text: string[];
  first: number;
  last: number;
  totalLines: number;
  /** The byte cap stopped the output before `limit` lines. */
  byteCapped: boolean;
  crlf: boolean;
}

/**
 * Keeps just enough of one line to show it: a line clipped at `maxLineLength` characters never
 * needs more than 4 bytes per character, so a 100 MB minified line costs 8 KB.
 */
class LineBuffer {
  private readonly parts: Buffer[] = [];
  private kept = 0;
  length = 0;

  constructor(private readonly keepBytes: number) {}

  append(bytes: Buffer): void {
    this.length += bytes.length;
    const room = this.keepBytes - this.kept;
    if (room <= 0) return;
    const piece = bytes.length > room ? bytes.subarray(0, room) : bytes;
    // Copy: the read buffer is reused for the next chunk.
    this.parts.push(Buffer.from(piece));
    this.kept += piece.length;
  }

  /** The line as text without its `\r`, and whether it ended with one. */
  take(): { text: string; complete: boolean; crlf: boolean } {
    let bytes = Buffer.concat(this.parts, this.kept);
    const complete = this.kept === this.length;
    let crlf = false;
    if (complete && bytes.length > 0 && bytes[bytes.length - 1] === 0x0d) {
      bytes = bytes.subarray(0, bytes.length - 1);
      crlf = true;
    }
    this.parts.length = 0;
    this.kept = 0;
    this.length = 0;
    return { text: bytes.toString('utf8'), complete, crlf };
  }
}

function clipLine(text: string, totalBytes: number, complete: boolean, maxLength: number): string {
  if (complete && text.length <= maxLength) return text;
  let end = Math.min(maxLength, text.length);
  // Never cut a surrogate pair in half.
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}... [line truncated: ${totalBytes} bytes in full]`;
}

async function readLines(
  absolute: string,
  displayPath: string,
  offset: number,
  lineLimit: number,
  limits: ReadFileLimits,
  signal: AbortSignal,
): Promise<{ shown: ShownLines; stamp: { mtimeMs: number; size: number } }> {
  // The first chunk is read synchronously (open, fstat, read, close are page-cache work, cheaper
  // than a thread-pool round trip each, and most files fit in one chunk); a longer file's further
  // chunks are read asynchronously, so scanning a huge file still yields to other work and to the
  // abort signal. O_NONBLOCK: a FIFO swapped in after the caller's stat must not block the open.
  const fd = openSync(absolute, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw new ToolError('NOT_A_FILE', `${displayPath} is not a regular file, so it cannot be read.`);
    const stamp = { mtimeMs: info.mtimeMs, size: info.size };
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    const line = new LineBuffer(limits.maxLineLength * 4 + 4);
    const shown: ShownLines = { text: [], first: offset, last: offset - 1, totalLines: 0, byteCapped: false, crlf: false };
    const bodyBytes = limits.maxOutputBytes - HINT_RESERVE_BYTES;
    let usedBytes = 0;
    let collecting = true;
    let lineNumber = 1;
    let pendingBytes = 0;
    let firstChunk = true;

    const finishLine = (): void => {
      if (collecting && lineNumber >= offset) {
        const fullBytes = line.length;
        const { text, complete, crlf } = line.take();
        const entry = `${String(lineNumber).padStart(NUMBER_WIDTH)}\t${clipLine(text, fullBytes, complete, limits.maxLineLength)}`;
        const entryBytes = Buffer.byteLength(entry) + 1;
        if (usedBytes + entryBytes > bodyBytes && shown.text.length > 0) {
          shown.byteCapped = true;
          collecting = false;
        } else {
          shown.text.push(entry);
          shown.last = lineNumber;
          shown.crlf ||= crlf;
          usedBytes += entryBytes;
          if (shown.text.length >= lineLimit) collecting = false;
        }
      }
      lineNumber += 1;
      pendingBytes = 0;
    };

    for (;;) {
      signal.throwIfAborted();
      // A short first read of a regular file is its end: no second call to learn that.
      const bytesRead = firstChunk ? readSync(fd, chunk, 0, CHUNK_BYTES, null) : await readAsync(fd, chunk);
      if (bytesRead === 0) break;
      const lastChunk = firstChunk && bytesRead < CHUNK_BYTES;
      const data = chunk.subarray(0, bytesRead);
      let position = 0;
      if (firstChunk) {
        firstChunk = false;
        if ((data[0] === 0xff && data[1] === 0xfe) || (data[0] === 0xfe && data[1] === 0xff)) {
          throw new ToolError('BINARY_FILE', `${displayPath} is UTF-16 text; read_file only shows UTF-8 text. grep can search it.`);
        }
        if (containsNulByte(data.subarray(0, BINARY_SNIFF_BYTES))) {
          throw new ToolError('BINARY_FILE', `${displayPath} looks like a binary file (it contains NUL bytes); read_file only shows text.`);
        }
        // The editing tools keep a UTF-8 BOM out of the text they match, so it is not shown here either.
        if (data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf) position = 3;
      }
      while (position < data.length) {
        const newline = data.indexOf(0x0a, position);
        const end = newline === -1 ? data.length : newline;
        if (collecting && lineNumber >= offset) line.append(data.subarray(position, end));
        pendingBytes += end - position;
        if (newline === -1) break;
        finishLine();
        position = newline + 1;
      }
      if (lastChunk) break;
    }
    // A last line without a trailing newline is still a line.
    if (pendingBytes > 0) finishLine();
    shown.totalLines = lineNumber - 1;
    return { shown, stamp };
  } finally {
    closeSync(fd);
  }
}

/** The lines an editor's text shows, with the same numbering and caps as a file read from disk. */
function linesOfText(text: string, offset: number, lineLimit: number, limits: ReadFileLimits): ShownLines {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const lines = body.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const shown: ShownLines = { text: [], first: offset, last: offset - 1, totalLines: lines.length, byteCapped: false, crlf: false };
  const bodyBytes = limits.maxOutputBytes - HINT_RESERVE_BYTES;
  let usedBytes = 0;
  for (let index = offset - 1; index < lines.length && shown.text.length < lineLimit; index++) {
    let line = lines[index]!;
    if (line.endsWith('\r')) {
      line = line.slice(0, -1);
      shown.crlf = true;
    }
    const entry = `${String(index + 1).padStart(NUMBER_WIDTH)}\t${clipLine(line, Buffer.byteLength(line), true, limits.maxLineLength)}`;
    const entryBytes = Buffer.byteLength(entry) + 1;
    if (usedBytes + entryBytes > bodyBytes && shown.text.length > 0) {
      shown.byteCapped = true;
      break;
    }
    shown.text.push(entry);
    shown.last = index + 1;
    usedBytes += entryBytes;
  }
  return shown;
}

function readAsync(fd: number, chunk: Buffer): Promise<number> {
  return new Promise((resolveRead, rejectRead) => {
    read(fd, chunk, 0, chunk.length, null, (error, bytesRead) => (error ? rejectRead(error) : resolveRead(bytesRead)));
  });
}

function formatShown(shown: ShownLines, limits: ReadFileLimits): string {
  const parts = [shown.text.join('\n')];
  const notes: string[] = [];
  if (shown.first > 1 || shown.last < shown.totalLines) {
    let hint = `Showing lines ${shown.first}-${shown.last} of ${shown.totalLines}`;
    if (shown.byteCapped) hint += ` (output limit of ${Math.round(limits.maxOutputBytes / 1024)} KB reached)`;
    hint += '.';
    if (shown.last < shown.totalLines) hint += ` Continue with offset=${shown.last + 1}.`;
    notes.push(hint);
  }
  if (shown.crlf) notes.push('The file uses CRLF line endings; lines are shown without the \\r.');
  if (notes.length > 0) parts.push(`\n[${notes.join(' ')}]`);
  return parts.join('\n');
}

export function createReadFileTool(limits: ReadFileLimits = DEFAULT_READ_FILE_LIMITS): Tool<ReadFileArgs> {
  return {
    name: 'read_file',
    description: loadToolDescription(new URL('./read-file.md', import.meta.url)),
    schema: readFileSchema,
    readOnly: true,
    strict: false,
    access: (args, context) => ({ kind: 'read', paths: [resolve(context.root, args.path)] }),
    async execute(args: ReadFileArgs, context: ToolContext): Promise<ToolResult> {
      context.signal.throwIfAborted();
      const resolved = await resolveExisting(context.root, args.path);
      const info = statSync(resolved.absolute);
      if (info.isDirectory()) {
        throw new ToolError('IS_A_DIRECTORY', `${args.path} is a directory. Use list_dir to see its entries.`);
      }
      if (!info.isFile()) {
        throw new ToolError('NOT_A_FILE', `${args.path} is not a regular file (a device, socket or pipe), so it cannot be read.`);
      }
      if (hasBinaryExtension(resolved.absolute)) {
        throw new ToolError('BINARY_FILE', `${args.path} is a binary file (by its extension); read_file only shows text.`);
      }
      const offset = args.offset ?? 1;
      const editor = toolSessionState(context).editorFiles?.read;
      const { shown, stamp } = editor
        ? {
            shown: linesOfText(await editor(resolved.absolute, context.signal), offset, args.limit ?? limits.defaultLineLimit, limits),
            // The disk's stamp: edit_file compares with it, and reads the buffer again itself.
            stamp: { mtimeMs: info.mtimeMs, size: info.size },
          }
        : await readLines(resolved.absolute, args.path, offset, args.limit ?? limits.defaultLineLimit, limits, context.signal);
      if (shown.totalLines > 0 && offset > shown.totalLines) {
        throw new ToolError(
          'OFFSET_OUT_OF_RANGE',
          `offset ${offset} is past the end of ${args.path}, which has ${shown.totalLines} line${shown.totalLines === 1 ? '' : 's'}.`,
        );
      }
      toolSessionState(context).fileStamps.set(resolved.absolute, stamp);
      if (shown.totalLines === 0) return { output: '(empty file)' };
      return { output: formatShown(shown, limits) };
    },
  };
}
