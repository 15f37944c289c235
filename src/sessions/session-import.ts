// The JSONL form a session moves in between stores (`glassbox sessions export --format raw` and
// `sessions import`): exactly the lines a store holds. An import is refused whole at its first bad
// line rather than stored with problems, because a store must only ever hold lines its own writer
// could have written; the checks are the readers' (`interpretLine`), plus what a writer never
// produces (a blank line, whitespace around a record, a record a reader would skip).

import { formatVersionProblem, interpretLine } from './record-lines.js';
import { SessionError } from './session-errors.js';
import { isSessionId } from './session-id.js';
import { parseRecordLine } from './session-records.js';
import type { CheckedSession } from './session-store.js';
import { SessionSummaryBuilder } from './session-summary.js';

const NEWLINE = 0x0a;

export type { CheckedSession } from './session-store.js';

function refuse(source: string, line: number, message: string): never {
  // Exit 2: the file given is not a session this glassbox can store, as for any bad argument.
  throw new SessionError('SESSION_INVALID_RECORD', `${source}:${line}: ${message}; nothing imported`, { exitCode: 2 });
}

/**
 * Split a session file's bytes into its lines. Every line must end with a newline (an unterminated
 * last line is a torn write) and be valid UTF-8, or the stored text could not equal the file.
 */
export function splitSessionBytes(bytes: Uint8Array, source: string): string[] {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const lines: string[] = [];
  let start = 0;
  while (start < bytes.length) {
    const end = bytes.indexOf(NEWLINE, start);
    if (end === -1) refuse(source, lines.length + 1, 'the last line has no newline (a write cut short?)');
    try {
      lines.push(decoder.decode(bytes.subarray(start, end)));
    } catch {
      refuse(source, lines.length + 1, 'not valid UTF-8');
    }
    start = end + 1;
  }
  if (lines.length === 0) refuse(source, 1, 'the file is empty (a session starts with its session_meta line)');
  return lines;
}

/** Check every line as the stores' readers do and build the summary; throws at the first bad line. */
export function checkSessionLines(lines: readonly string[], source: string): CheckedSession {
  if (lines.length === 0) refuse(source, 1, 'no lines (a session starts with its session_meta line)');
  const first = parseRecordLine(lines[0]!);
  if (first.kind !== 'record' || first.record.type !== 'session_meta') {
    const why = first.kind === 'invalid' ? first.message : `found a ${first.kind === 'record' ? first.record.type : first.type} record`;
    refuse(source, 1, `not a valid session_meta record (${why})`);
  }
  const meta = first.record;
  if (!isSessionId(meta.sessionId)) refuse(source, 1, `${JSON.stringify(meta.sessionId)} is not a session id`);
  const newer = formatVersionProblem(meta);
  if (newer !== null) refuse(source, 1, newer.message.replace(' and skips records it does not know', ''));
  const summary = new SessionSummaryBuilder(meta);
  for (const [index, text] of lines.entries()) {
    const line = index + 1;
    if (text.trim() === '') refuse(source, line, 'blank line (a session writer never writes one)');
    if (text.trim() !== text) refuse(source, line, 'whitespace around the record (a session writer never writes it)');
    if (line === 1) continue;
    const outcome = interpretLine(line, text, meta.sessionId, source);
    if (outcome.kind === 'problem') refuse(source, line, outcome.problem.message.replace(/;? skipped/, ''));
    if (outcome.kind === 'record') summary.add(outcome.record);
  }
  return { meta, lines, summary: summary.snapshot() };
}

/** The refusal every store gives for an id it already holds (the same words as `create`'s). */
export function sessionExistsError(sessionId: string, location: string): SessionError {
  return new SessionError('SESSION_INVALID_ARGUMENT', `session ${sessionId} already exists in ${location}; nothing imported`, {
    exitCode: 2,
  });
}
