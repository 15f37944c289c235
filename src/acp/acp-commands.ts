// The commands an ACP client offers (`available_commands_update`) and how a prompt that starts
// with one is read: `/compact [what to keep]`, `/plan <task>` (a plan-mode turn: read-only, the
// model proposes a plan and sends it as a `plan` update), and the project's and the home's prompt
// commands (.glassbox/commands, .claude/commands, `<home>/commands`), expanded as the terminal
// and `exec --command` expand them.

import type { AvailableCommand } from '@agentclientprotocol/sdk';
import { expandPromptCommand, findPromptCommands, type PromptCommand } from '../workspace/index.js';

const BUILT_IN: AvailableCommand[] = [
  {
    name: 'compact',
    description: 'Summarize the conversation now to free context, as `glassbox compact` does',
    input: { hint: 'what the summary should keep (optional)' },
  },
  {
    name: 'plan',
    description: 'Plan mode: a read-only turn in which the model proposes a plan (nothing is changed)',
    input: { hint: 'the task to plan' },
  },
];

const RESERVED = BUILT_IN.map((command) => command.name);

export type ReadCommand =
  | { kind: 'compact'; instructions: string | null }
  | { kind: 'turn'; prompt: string; mode?: 'plan' }
  | { kind: 'empty-plan' };

/** The commands of a project, with warnings about the prompt-command files that were skipped. */
export async function availableCommands(
  root: string,
  home: string,
): Promise<{ commands: AvailableCommand[]; prompts: PromptCommand[]; warnings: string[] }> {
  const found = await findPromptCommands({ root, glassboxHome: home }, RESERVED).catch(() => ({ commands: [], warnings: [] }));
  const prompts = found.commands.map(
    (command): AvailableCommand => ({
      name: command.name,
      description: command.description ?? `Prompt from ${command.label}`,
      ...(command.argumentHint === null ? {} : { input: { hint: command.argumentHint } }),
    }),
  );
  return { commands: [...BUILT_IN, ...prompts], prompts: found.commands, warnings: found.warnings.map((w) => w.message) };
}

/** What a prompt asks for: a command, or a turn of its text. */
export function readCommand(text: string, prompts: readonly PromptCommand[]): ReadCommand {
  const match = /^\/([a-z0-9_-]+)(?:\s+([\s\S]*))?$/i.exec(text.trim());
  if (match === null) return { kind: 'turn', prompt: text };
  const name = match[1]!.toLowerCase();
  const args = match[2]?.trim() ?? '';
  if (name === 'compact') return { kind: 'compact', instructions: args === '' ? null : args };
  if (name === 'plan') return args === '' ? { kind: 'empty-plan' } : { kind: 'turn', prompt: args, mode: 'plan' };
  const command = prompts.find((candidate) => candidate.name === name);
  return command === undefined ? { kind: 'turn', prompt: text } : { kind: 'turn', prompt: expandPromptCommand(command, args) };
}
