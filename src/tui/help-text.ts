// `/help`: the keys and the commands, from the same table that parses them.

import type { PromptCommand } from '../workspace/index.js';
import { SLASH_COMMANDS, promptCommandListing } from './slash-commands.js';
import type { Theme } from './theme.js';
import { oneLine } from '../terminal-text/index.js';

export const KEYS: ReadonlyArray<[string, string]> = [
  ['Enter', 'send the prompt'],
  ['Ctrl-J, Alt-Enter, \\ Enter', 'new line'],
  ['Up / Down', 'move between lines; on the first/last line, earlier prompts'],
  ['Tab', 'complete a /command or an @path'],
  ['Esc', 'cancel the running turn (also at an approval)'],
  ['Ctrl-C', 'cancel the turn; else clear the prompt; else twice to quit'],
  ['Ctrl-D', 'quit when the prompt is empty'],
  ['Ctrl-O', 'expand every tool output in the transcript; again to fold them'],
  ['Ctrl-T', 'expand all reasoning in the transcript; again to fold it'],
  ['Ctrl-R', 'search earlier prompts (Ctrl-R older, Enter takes it, Esc cancels)'],
  ['Ctrl-A/E, Ctrl-U/K/W', 'line start/end, delete to start/end, delete a word'],
  ['y / a / s / n', 'at an approval: approve once, for this session, always (saves the exact rule shown, asks first), deny (n asks why)'],
  ['Up/Down, Enter, Esc', 'in a /model or /resume picker: choose, pick, cancel'],
];

/** Words of `text` in lines of at most `width` columns (a longer word gets a line of its own). */
function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  return [...lines, line];
}

/** Two columns; a description too long for the terminal continues under itself, not under the key. */
function table(rows: ReadonlyArray<readonly [string, string]>, columns: number): string[] {
  const indent = Math.max(...rows.map(([k]) => k.length)) + 4;
  const width = Math.max(20, columns - indent - 1);
  return rows.flatMap(([key, what]) =>
    wrapWords(what, width).map((line, i) => (i === 0 ? `  ${key.padEnd(indent - 2)}${line}` : `${' '.repeat(indent)}${line}`)),
  );
}

export function helpText(theme: Theme, columns = 80, promptCommands: readonly PromptCommand[] = []): string {
  const prompts =
    promptCommands.length === 0
      ? []
      : [
          theme.bold('prompt commands'),
          ...table(
            promptCommands.map((command) => {
              const listing = promptCommandListing(command);
              // The file's text: shown with its control characters visible, never obeyed.
              return [oneLine(listing.usage, 60), oneLine(listing.description, 200)] as const;
            }),
            columns,
          ),
        ];
  return [
    theme.bold('keys'),
    ...table(KEYS, columns),
    theme.bold('commands'),
    ...table(
      SLASH_COMMANDS.map((c) => [c.usage, c.description] as const),
      columns,
    ),
    ...prompts,
    ...wrapWords('@path mentions a file (Tab completes) · //text sends a prompt starting with /', columns - 3).map((line) =>
      theme.dim(`  ${line}`),
    ),
  ].join('\n');
}
