// `glassbox exec --command <name> [args…]`: the prompt of a prompt command (a `<name>.md` in the
// project's `.glassbox/commands/` or `.claude/commands/`, or in the home's `commands/`), with the
// arguments put in. The words come split by the shell already, so `$1`… are the argv words as
// given and `$ARGUMENTS` is them joined by spaces.

import { expandPromptCommand, findPromptCommands } from '../workspace/index.js';
import { oneLine } from '../terminal-text/index.js';
import { UsageError } from './usage-error.js';

export interface CommandPromptInput {
  name: string;
  words: readonly string[];
  root: string;
  home: string;
  stderr: { write(text: string): unknown };
}

export async function commandPrompt({ name, words, root, home, stderr }: CommandPromptInput): Promise<string> {
  const found = await findPromptCommands({ root, glassboxHome: home });
  for (const warning of found.warnings) stderr.write(`glassbox: warning: ${oneLine(warning.message, 400)}\n`);
  const wanted = name.replace(/^\//, '').toLowerCase();
  const command = found.commands.find((candidate) => candidate.name === wanted);
  if (command === undefined) {
    const names = found.commands.map((candidate) => candidate.name).join(', ');
    throw new UsageError(
      `no prompt command "${oneLine(name, 60)}": ${names === '' ? "none in .glassbox/commands, .claude/commands or the home's commands/" : `there are ${names}`}`,
    );
  }
  return expandPromptCommand(command, words.join(' '), words);
}
