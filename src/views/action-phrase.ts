// One readable line per tool call ("Read src/x.ts", "Ran `npm test`"), so a transcript reads like
// a log of what the agent did rather than a list of JSON blobs. Unknown tools still get a line.

import { argumentsObject } from './tool-arguments.js';
import type { ActionPhrase } from './tool-presentation.js';
import { presentationOf, TOOL_PRESENTATIONS } from './tool-presentations.js';

export type { ActionPhrase } from './tool-presentation.js';

/** The phrase in the past tense ("Wrote a.txt"), or for a call that did not run ("Write a.txt"). */
export function actionPhrase(name: string, rawArguments: string, done = true): ActionPhrase {
  const args = argumentsObject(rawArguments);
  if (args === null)
    return { verb: done ? `Called ${name}` : `Call ${name}`, subject: '', style: 'plain', detail: ' (arguments are not valid JSON)' };
  return presentationOf(name).phrase(args, done);
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
  if (!Object.hasOwn(TOOL_PRESENTATIONS, name)) {
    const first = Object.values(args).find((value) => typeof value === 'string');
    return typeof first === 'string' ? first : rawArguments;
  }
  // The verb says it all ("Listed the project root"): the tool's name is enough beside it.
  return '';
}
