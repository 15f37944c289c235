// `/help`: the keys and the commands, from the same table that parses them.

import { SLASH_COMMANDS } from './slash-commands.js';
import type { Theme } from './theme.js';

export const KEYS: ReadonlyArray<[string, string]> = [
  ['Enter', 'send the prompt'],
  ['Ctrl-J, Alt-Enter, \\ Enter', 'new line'],
  ['Up / Down', 'move between lines; on the first/last line, earlier prompts'],
  ['Tab', 'complete a /command or an @path'],
  ['Esc', 'cancel the running turn (also at an approval)'],
  ['Ctrl-C', 'cancel the turn; else clear the prompt; else twice to quit'],
  ['Ctrl-D', 'quit when the prompt is empty'],
  ['Ctrl-O', 'show the output of the last tool call'],
  ['Ctrl-A/E, Ctrl-U/K/W', 'line start/end, delete to start/end, delete a word'],
  ['y / a / n', 'at an approval: approve once, for the session, deny (n asks why)'],
];

export function helpText(theme: Theme): string {
  const keyWidth = Math.max(...KEYS.map(([k]) => k.length)) + 2;
  const usageWidth = Math.max(...SLASH_COMMANDS.map((c) => c.usage.length)) + 2;
  return [
    theme.bold('keys'),
    ...KEYS.map(([key, what]) => `  ${key.padEnd(keyWidth)}${what}`),
    theme.bold('commands'),
    ...SLASH_COMMANDS.map((c) => `  ${c.usage.padEnd(usageWidth)}${c.description}`),
    theme.dim('  @path mentions a file (Tab completes); //text sends a prompt that starts with /'),
  ].join('\n');
}
