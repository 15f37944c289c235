// Runs ripgrep (`rg --json`) for the grep tool and collects its matches. ripgrep is told to honour
// exactly the rules the glob tool honours (src/tools/ignore-rules.ts): .gitignore files from the
// project root down (the ones above the search path come in as --ignore-file, since
// --no-ignore-parent stops it looking above the target and nothing above the root may count), no
// .ignore/.rgignore, no global or .git/info/exclude rules, hidden files searched, `.git` and
// `node_modules` skipped.

import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { posix, relative, sep } from 'node:path';
import { ToolError } from '../../agent/index.js';
import { clipAroundMatch, type FileMatches, type SearchRequest } from './grep-report.js';

/** ripgrep encodes text that is not valid UTF-8 as base64 bytes. */
interface RipgrepData {
  text?: string;
  bytes?: string;
}

interface RipgrepMessage {
  type: string;
  data: {
    path?: RipgrepData;
    lines?: RipgrepData;
    line_number?: number | null;
    submatches?: Array<{ start: number }>;
    binary_offset?: number | null;
  };
}

function isRipgrepMessage(value: unknown): value is RipgrepMessage {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as { type?: unknown; data?: unknown };
  return typeof candidate.type === 'string' && typeof candidate.data === 'object' && candidate.data !== null;
}

function decodeBytes(data: RipgrepData | undefined): Buffer {
  if (data?.text !== undefined) return Buffer.from(data.text, 'utf8');
  if (data?.bytes !== undefined) return Buffer.from(data.bytes, 'base64');
  return Buffer.alloc(0);
}

function toPosix(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/');
}

export function ripgrepArguments(request: SearchRequest): string[] {
  const args = [
    '--json',
    '--no-config',
    '--no-require-git',
    '--no-ignore-parent',
    '--no-ignore-dot',
    '--no-ignore-global',
    '--no-ignore-exclude',
    '--hidden',
    '--crlf',
    '--glob',
    '!.git',
    '--glob',
    '!node_modules',
  ];
  // Relative to the root (the working directory): ripgrep matches an --ignore-file's patterns
  // against paths as it prints them, which are relative too.
  for (const file of request.ancestorIgnoreFiles) args.push('--ignore-file', toPosix(relative(request.root, file)));
  if (request.ignoreCase) args.push('--ignore-case');
  if (request.literal) args.push('--fixed-strings');
  const target = toPosix(relative(request.root, request.target)) || '.';
  // `--` so that a pattern starting with `-` is a pattern, not a flag.
  args.push('--', request.pattern, target);
  return args;
}

function isPatternError(stderr: string): boolean {
  return /regex parse error|error parsing|not allowed in a regex|literal .* is not allowed/i.test(stderr);
}

/** Search with ripgrep at `executable`; one that cannot be started is a `SEARCH_FAILED` ToolError. */
export function searchWithRipgrep(request: SearchRequest, executable: string): Promise<FileMatches[]> {
  request.signal.throwIfAborted();
  return new Promise<FileMatches[]>((resolvePromise, rejectPromise) => {
    const child = spawn(executable, ripgrepArguments(request), {
      cwd: request.root,
      stdio: ['ignore', 'pipe', 'pipe'],
      // Aborting kills ripgrep; the 'error' event then carries the abort.
      signal: request.signal,
    });
    const files = new Map<string, FileMatches>();
    const binary = new Set<string>();
    let sawSummary = false;
    let stderr = '';
    let settled = false;
    const fail = (error: unknown): void => {
      if (settled) return;
      settled = true;
      rejectPromise(error);
    };

    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => {
      if (stderr.length < 64 * 1024) stderr += text;
    });
    child.on('error', (error) => {
      if (request.signal.aborted) fail(request.signal.reason);
      else fail(new ToolError('SEARCH_FAILED', `ripgrep could not be started (${executable}): ${error.message}`));
    });

    const handleMessage = (message: RipgrepMessage): void => {
      if (message.type === 'summary') {
        sawSummary = true;
        return;
      }
      if (message.data.path === undefined) return;
      const path = posix.normalize(decodeBytes(message.data.path).toString('utf8'));
      if (message.type === 'end') {
        if (message.data.binary_offset !== null && message.data.binary_offset !== undefined) binary.add(path);
        return;
      }
      if (message.type !== 'match' || !request.includes(posix.join(toPosix(request.root), path))) return;
      let file = files.get(path);
      if (!file) {
        file = { path, lines: [], total: 0 };
        files.set(path, file);
      }
      file.total += 1;
      if (file.lines.length >= request.keepPerFile) return;
      let bytes = decodeBytes(message.data.lines);
      if (bytes.length > 0 && bytes[bytes.length - 1] === 0x0a) bytes = bytes.subarray(0, -1);
      if (bytes.length > 0 && bytes[bytes.length - 1] === 0x0d) bytes = bytes.subarray(0, -1);
      const start = Math.min(message.data.submatches?.[0]?.start ?? 0, bytes.length);
      const text = bytes.toString('utf8');
      // ripgrep gives byte offsets; the clip works on UTF-16 indexes (JavaScript string positions).
      const column = bytes.subarray(0, start).toString('utf8').length;
      file.lines.push({ line: message.data.line_number ?? 0, text: clipAroundMatch(text, column, request.lineWidth) });
    };

    const lines = createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY });
    lines.on('line', (line) => {
      if (line === '') return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        fail(new Error(`ripgrep printed a line that is not JSON: ${line.slice(0, 200)}`));
        child.kill();
        return;
      }
      if (isRipgrepMessage(parsed)) handleMessage(parsed);
    });

    child.on('close', (code) => {
      if (settled) return;
      if (request.signal.aborted) {
        fail(request.signal.reason);
        return;
      }
      const message = stderr.trim();
      if (code === 2 && !sawSummary) {
        if (isPatternError(message)) fail(new ToolError('INVALID_PATTERN', message));
        else fail(new ToolError('SEARCH_FAILED', `ripgrep failed: ${message || `exit code ${code}`}`));
        return;
      }
      // Exit 2 after a summary means some files could not be read; the rest is a valid result.
      if (code !== 0 && code !== 1 && code !== 2) {
        fail(new ToolError('SEARCH_FAILED', `ripgrep exited with code ${code}: ${message}`));
        return;
      }
      settled = true;
      resolvePromise([...files.values()].filter((file) => !binary.has(file.path)));
    });
  });
}
