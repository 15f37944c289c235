// One readable line per tool call ("Read src/x.ts", "Ran `npm test`"), so a transcript reads like
// a log of what the agent did rather than a list of JSON blobs. Unknown tools still get a line.

import { patchTargets } from './patch-targets.js';
import { argumentsObject } from './tool-arguments.js';

export interface ActionPhrase {
  verb: string;
  /** How it turned out, when the call did not simply run: " — denied", " — awaiting approval". */
  outcome?: string;
  /** What the action was about; empty when the verb says it all. */
  subject: string;
  /** How to show the subject: a command in code style, a path, or a quoted search. */
  style: 'code' | 'path' | 'quote' | 'plain';
  /** Trailing detail, e.g. " in src" or " (lines 10–40)". */
  detail: string;
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

function firstLine(command: string, max = 120): string {
  const line = command.trim().split('\n')[0] ?? '';
  const multi = command.trim().includes('\n');
  if (line.length > max) return `${line.slice(0, max - 1)}…`;
  return multi ? `${line} …` : line;
}

function inPath(path: string | null): string {
  return path === null || path === '.' || path === './' ? '' : ` in ${path}`;
}

function listFiles(paths: string[]): string {
  if (paths.length <= 3) return paths.join(', ');
  return `${paths.slice(0, 2).join(', ')} and ${paths.length - 2} more`;
}

function patchPhrase(patch: string, done: boolean): ActionPhrase {
  const { added, updated, deleted } = patchTargets(patch);
  const groups = [
    { verb: done ? 'Edited' : 'Edit', paths: updated },
    { verb: done ? 'Created' : 'Create', paths: added },
    { verb: done ? 'Deleted' : 'Delete', paths: deleted },
  ].filter((group) => group.paths.length > 0);
  if (groups.length === 0) return { verb: done ? 'Applied a patch' : 'Apply a patch', subject: '', style: 'plain', detail: '' };
  if (groups.length === 1) return { verb: groups[0]!.verb, subject: listFiles(groups[0]!.paths), style: 'path', detail: '' };
  const all = [...updated, ...added, ...deleted];
  return { verb: done ? 'Patched' : 'Patch', subject: listFiles(all), style: 'path', detail: '' };
}

/** Verbs for a call that has not run (or never will): "Write notes.md — denied". */
const IMPERATIVE: Readonly<Record<string, string>> = {
  Read: 'Read',
  Listed: 'List',
  'Listed the project root': 'List the project root',
  'Found files matching': 'Find files matching',
  'Searched for': 'Search for',
  Wrote: 'Write',
  Edited: 'Edit',
  Ran: 'Run',
};

/** The phrase in the past tense ("Wrote a.txt"), or for a call that did not run ("Write a.txt"). */
export function actionPhrase(name: string, rawArguments: string, done = true): ActionPhrase {
  const args = argumentsObject(rawArguments);
  if (args === null)
    return { verb: done ? `Called ${name}` : `Call ${name}`, subject: '', style: 'plain', detail: ' (arguments are not valid JSON)' };
  if (name === 'apply_patch') return patchPhrase(text(args.patch) ?? '', done);
  const phrase = pastPhrase(name, args);
  if (done) return phrase;
  return { ...phrase, verb: IMPERATIVE[phrase.verb] ?? phrase.verb.replace(/^Called /, 'Call ') };
}

/** What a call's line says, by how it turned out: only calls that ran are worded as done. */
export function callPhrase(call: { name: string; arguments: string; status: string; started: boolean }): ActionPhrase {
  const outcomes: Record<string, string> = {
    requested: ' — queued',
    awaiting_approval: ' — awaiting approval',
    running: ' — running',
    denied: ' — denied',
    cancelled: call.started ? ' — cancelled' : ' — not run (cancelled)',
    failed: ' — failed',
  };
  const ran = call.status === 'succeeded' || call.status === 'failed' || (call.status === 'cancelled' && call.started);
  const phrase = actionPhrase(call.name, call.arguments, ran);
  const outcome = outcomes[call.status];
  return outcome === undefined ? phrase : { ...phrase, outcome };
}

function pastPhrase(name: string, args: Record<string, unknown>): ActionPhrase {
  switch (name) {
    case 'read_file': {
      const path = text(args.path) ?? '?';
      const offset = typeof args.offset === 'number' ? args.offset : null;
      const limit = typeof args.limit === 'number' ? args.limit : null;
      let detail = '';
      if (offset !== null && limit !== null) detail = ` (lines ${offset}–${offset + limit - 1})`;
      else if (offset !== null) detail = ` (from line ${offset})`;
      else if (limit !== null) detail = ` (first ${limit} lines)`;
      return { verb: 'Read', subject: path, style: 'path', detail };
    }
    case 'list_dir': {
      const path = text(args.path);
      if (path === null || path === '.') return { verb: 'Listed the project root', subject: '', style: 'plain', detail: '' };
      return { verb: 'Listed', subject: path, style: 'path', detail: '' };
    }
    case 'glob':
      return { verb: 'Found files matching', subject: text(args.pattern) ?? '?', style: 'quote', detail: inPath(text(args.path)) };
    case 'grep': {
      const glob = text(args.glob);
      return {
        verb: 'Searched for',
        subject: text(args.pattern) ?? '?',
        style: 'quote',
        detail: `${inPath(text(args.path))}${glob === null ? '' : ` (${glob})`}`,
      };
    }
    case 'write_file':
      return { verb: 'Wrote', subject: text(args.path) ?? '?', style: 'path', detail: '' };
    case 'edit_file':
      return { verb: 'Edited', subject: text(args.path) ?? '?', style: 'path', detail: args.replace_all === true ? ' (every match)' : '' };
    case 'shell': {
      // Some models send the command as an argv array; it still reads as one line.
      const command = Array.isArray(args.command) ? args.command.map(String).join(' ') : text(args.command);
      return { verb: 'Ran', subject: firstLine(command ?? '?'), style: 'code', detail: '' };
    }
    default:
      return { verb: `Called ${name}`, subject: '', style: 'plain', detail: '' };
  }
}

/** The phrase as plain text, for titles, aria labels and tests. */
export function phraseText(phrase: ActionPhrase): string {
  const subject =
    phrase.subject === ''
      ? ''
      : phrase.style === 'code'
        ? ` \`${phrase.subject}\``
        : phrase.style === 'quote'
          ? ` "${phrase.subject}"`
          : ` ${phrase.subject}`;
  return `${phrase.verb}${subject}${phrase.detail}${phrase.outcome ?? ''}`;
}

/**
 * What a call is about, without its verb ("src/a.ts (lines 1–5)", "npm test"), for a face that
 * shows the tool's name beside it (the terminal). A tool with no phrase of its own (an MCP tool)
 * is about its first string argument; arguments that are not JSON are shown as they came.
 */
export function callSubject(name: string, rawArguments: string): string {
  const args = argumentsObject(rawArguments);
  if (args === null) return rawArguments;
  const phrase = actionPhrase(name, rawArguments);
  if (phrase.subject !== '') return `${phrase.subject}${phrase.detail}`;
  if (phrase.verb.startsWith('Called ')) {
    const first = Object.values(args).find((value) => typeof value === 'string');
    return typeof first === 'string' ? first : rawArguments;
  }
  // The verb says it all ("Listed the project root"): the tool's name is enough beside it.
  return '';
}
