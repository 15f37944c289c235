// The grep engine for machines without ripgrep. It mirrors ripgrep's behaviour as the tool runs
// it: same .gitignore rules, `.git`/`node_modules` skipped, hidden files searched, symlinks not
// followed, files containing a NUL byte skipped as binary, lines split on `\n` with a trailing
// `\r` dropped.

import { open, readdir, type FileHandle } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { TextDecoder } from 'node:util';
import { ToolError } from '../../agent/index.js';
import { IgnoreRules } from '../ignore-rules.js';
import { clipAroundMatch, type FileMatches, type SearchRequest } from './grep-report.js';

const CHUNK_BYTES = 64 * 1024;
const FILE_CONCURRENCY = 8;

type LineMatcher = (line: string) => number;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Unicode mode first, for the same code-point semantics as ripgrep; legacy mode as a fallback
 * because it accepts the loose escapes models write out of habit (`[\w-]`, `\-`) that Unicode
 * mode rejects and ripgrep accepts. A leading inline flag group such as `(?i)`, which ripgrep
 * understands and JavaScript does not, becomes a RegExp flag.
 */
export function compileLineMatcher(pattern: string, literal: boolean, ignoreCase: boolean): LineMatcher {
  let source = literal ? escapeRegExp(pattern) : pattern;
  const flags = new Set(ignoreCase ? ['i'] : []);
  const inline = literal ? null : /^\(\?([ims]+)\)/.exec(source);
  if (inline) {
    for (const flag of inline[1]) flags.add(flag);
    source = source.slice(inline[0].length);
  }
  const flagText = [...flags].join('');
  let regex: RegExp;
  try {
    regex = new RegExp(source, `${flagText}u`);
  } catch (unicodeError) {
    try {
      regex = new RegExp(source, flagText);
    } catch {
      throw new ToolError('INVALID_PATTERN', (unicodeError as Error).message);
    }
  }
  return (line) => {
    const match = regex.exec(line);
    return match === null ? -1 : match.index;
  };
}

async function collectFiles(request: SearchRequest): Promise<string[]> {
  const files: string[] = [];
  const { rules } = await IgnoreRules.load(request.root, request.target);
  const visit = async (directory: string, directoryRules: IgnoreRules): Promise<void> => {
    request.signal.throwIfAborted();
    let entries;
    try {
      entries = await readdir(directory, { withFileTypes: true });
    } catch {
      return; // Unreadable or vanished: ripgrep skips it too.
    }
    for (const entry of entries) {
      const path = join(directory, entry.name);
      if (entry.isSymbolicLink()) continue;
      if (entry.isDirectory()) {
        if (!directoryRules.ignores(path, true)) await visit(path, await directoryRules.enter(path));
      } else if (entry.isFile()) {
        if (!directoryRules.ignores(path, false) && request.includes(path)) files.push(path);
      }
    }
  };
  await visit(request.target, rules);
  return files;
}

/**
 * Splits a file into lines the way ripgrep reads it: a UTF-8 BOM is dropped, a UTF-16 BOM means
 * the file is transcoded first, and a NUL byte (after transcoding) marks the file binary.
 */
class LineSplitter {
  private decoder: TextDecoder | null = null;
  private started = false;
  private partialBytes: Buffer[] = [];
  private pendingText = '';
  binary = false;

  constructor(private readonly onLine: (text: string) => void) {}

  /** `data` is only valid during the call (the read buffer is reused). */
  push(data: Buffer): void {
    let bytes = data;
    if (!this.started) {
      this.started = true;
      if (bytes[0] === 0xff && bytes[1] === 0xfe) this.decoder = new TextDecoder('utf-16le');
      else if (bytes[0] === 0xfe && bytes[1] === 0xff) this.decoder = new TextDecoder('utf-16be');
      else if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
    }
    if (this.decoder !== null) {
      this.pushText(this.decoder.decode(bytes, { stream: true }));
      return;
    }
    if (bytes.indexOf(0) !== -1) {
      this.binary = true;
      return;
    }
    let position = 0;
    for (;;) {
      const newline = bytes.indexOf(0x0a, position);
      if (newline === -1) {
        if (position < bytes.length) this.partialBytes.push(Buffer.from(bytes.subarray(position)));
        return;
      }
      const piece = bytes.subarray(position, newline);
      const line = this.partialBytes.length === 0 ? piece : Buffer.concat([...this.partialBytes, piece]);
      this.partialBytes = [];
      this.onLine(line.toString('utf8'));
      position = newline + 1;
    }
  }

  end(): void {
    if (this.binary) return;
    if (this.decoder !== null) {
      this.pushText(this.decoder.decode());
      if (!this.binary && this.pendingText !== '') this.onLine(this.pendingText);
    } else if (this.partialBytes.length > 0) {
      this.onLine(Buffer.concat(this.partialBytes).toString('utf8'));
    }
  }

  private pushText(text: string): void {
    if (text.includes('\0')) this.binary = true;
    if (this.binary) return;
    const buffered = this.pendingText + text;
    let start = 0;
    for (let newline = buffered.indexOf('\n'); newline !== -1; newline = buffered.indexOf('\n', start)) {
      this.onLine(buffered.slice(start, newline));
      start = newline + 1;
    }
    this.pendingText = buffered.slice(start);
  }
}

async function searchFile(
  root: string,
  path: string,
  matcher: LineMatcher,
  request: SearchRequest,
): Promise<FileMatches | null> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch {
    return null;
  }
  const result: FileMatches = { path: relative(root, path).split(sep).join('/'), lines: [], total: 0 };
  let lineNumber = 1;
  const splitter = new LineSplitter((line) => {
    const text = line.endsWith('\r') ? line.slice(0, -1) : line;
    const column = matcher(text);
    if (column !== -1) {
      result.total += 1;
      if (result.lines.length < request.keepPerFile) {
        result.lines.push({ line: lineNumber, text: clipAroundMatch(text, column, request.lineWidth) });
      }
    }
    lineNumber += 1;
  });
  try {
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    // ripgrep reports a file with a NUL byte anywhere as binary; the tool drops those.
    while (!splitter.binary) {
      request.signal.throwIfAborted();
      const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, null);
      if (bytesRead === 0) break;
      splitter.push(chunk.subarray(0, bytesRead));
    }
    splitter.end();
  } catch (error) {
    request.signal.throwIfAborted();
    if ((error as NodeJS.ErrnoException).code !== undefined) return null;
    throw error;
  } finally {
    await handle.close();
  }
  return splitter.binary ? null : result;
}

/** Search with JavaScript regular expressions. */
export async function searchWithJavaScript(request: SearchRequest): Promise<FileMatches[]> {
  const matcher = compileLineMatcher(request.pattern, request.literal, request.ignoreCase);
  let files: string[];
  if (request.targetIsDirectory) files = await collectFiles(request);
  else files = request.includes(request.target) ? [request.target] : [];
  const results: FileMatches[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < files.length) {
      const path = files[next];
      next += 1;
      const found = await searchFile(request.root, path, matcher, request);
      if (found !== null && found.total > 0) results.push(found);
    }
  };
  await Promise.all(Array.from({ length: Math.min(FILE_CONCURRENCY, files.length) }, worker));
  return results;
}
