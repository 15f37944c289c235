// The slash commands: one table drives `/help`, completion and parsing, so a command cannot be
// listed without being understood or the other way round. The project's and the home's prompt
// commands (workspace/'s `findPromptCommands`) join them after the built-ins, which they cannot
// replace.

import type { PromptCommand } from '../workspace/index.js';

export type SlashCommandName =
  | 'help'
  | 'status'
  | 'compact'
  | 'resume'
  | 'fork'
  | 'rewind'
  | 'model'
  | 'sandbox'
  | 'approvals'
  | 'clear'
  | 'sessions'
  | 'diff'
  | 'debug'
  | 'plan'
  | 'accept'
  | 'reject'
  | 'quit';

export interface SlashCommandInfo {
  name: SlashCommandName;
  usage: string;
  description: string;
  aliases?: readonly string[];
}

export const SLASH_COMMANDS: readonly SlashCommandInfo[] = [
  { name: 'help', usage: '/help', description: 'keys and commands' },
  { name: 'status', usage: '/status', description: 'model, policy, session, context and cost' },
  { name: 'compact', usage: '/compact [instructions]', description: 'summarize the history now' },
  { name: 'resume', usage: '/resume [n|id|last]', description: 'pick a recent session to continue (or name one)' },
  { name: 'fork', usage: '/fork [turn]', description: 'branch this session (up to a turn) and continue in the branch' },
  { name: 'rewind', usage: '/rewind [turn]', description: 'restore the files to before a turn (diff first) and branch there' },
  { name: 'model', usage: '/model [name]', description: 'pick or name a model the endpoint serves' },
  { name: 'sandbox', usage: '/sandbox [mode]', description: 'read-only | workspace-write | danger-full-access' },
  { name: 'approvals', usage: '/approvals [policy]', description: 'untrusted | on-request | never' },
  { name: 'clear', usage: '/clear', description: 'start a new session' },
  { name: 'sessions', usage: '/sessions', description: 'recent sessions' },
  { name: 'diff', usage: '/diff', description: 'what changed in the project since the session opened' },
  { name: 'debug', usage: '/debug', description: 'the last model request as sent' },
  { name: 'plan', usage: '/plan [task]', description: 'plan mode: a read-only turn in which the model proposes a plan' },
  { name: 'accept', usage: '/accept [sandbox]', description: 'carry out the proposed plan (in the current sandbox, or the one named)' },
  { name: 'reject', usage: '/reject', description: 'drop the proposed plan; nothing was changed' },
  { name: 'quit', usage: '/quit', description: 'leave (the session stays resumable)', aliases: ['exit'] },
];

/** Every name a prompt command may not take. */
export const RESERVED_COMMAND_NAMES: readonly string[] = SLASH_COMMANDS.flatMap((c) => [c.name, ...(c.aliases ?? [])]);

export type ParsedInput =
  | { kind: 'prompt'; text: string }
  | { kind: 'command'; name: SlashCommandName; args: string }
  | { kind: 'prompt-command'; command: PromptCommand; args: string }
  | { kind: 'unknown'; name: string };

/** How /help and completion show a command, built-in or prompt command. */
export interface CommandListing {
  name: string;
  usage: string;
  description: string;
  aliases?: readonly string[];
}

/** A prompt command as listed: its description, or where it comes from when it has none. */
export function promptCommandListing(command: PromptCommand): CommandListing {
  return {
    name: command.name,
    usage: `/${command.name}${command.argumentHint === null ? ' [args]' : ` ${command.argumentHint}`}`,
    description: command.description ?? `prompt from ${command.label}`,
  };
}

/** A line starting with `/word` is a command; `//text` sends `/text` as a prompt. */
export function parseInput(text: string, promptCommands: readonly PromptCommand[] = []): ParsedInput {
  const trimmed = text.trim();
  if (trimmed.startsWith('//')) return { kind: 'prompt', text: text.replace(/^\s*\//, '') };
  const match = /^\/([a-z0-9_-]+)(?:\s+([\s\S]*))?$/i.exec(trimmed);
  if (!match) return { kind: 'prompt', text };
  const word = match[1]!.toLowerCase();
  const args = (match[2] ?? '').trim();
  const command = SLASH_COMMANDS.find((c) => c.name === word || c.aliases?.includes(word));
  if (command) return { kind: 'command', name: command.name, args };
  const prompt = promptCommands.find((c) => c.name === word);
  if (prompt) return { kind: 'prompt-command', command: prompt, args };
  return { kind: 'unknown', name: word };
}

/** Commands whose name starts with what follows the slash, while only the command word is typed. */
export function commandCompletions(text: string, promptCommands: readonly PromptCommand[] = []): CommandListing[] {
  const match = /^\/([a-z0-9_-]*)$/i.exec(text);
  if (!match) return [];
  const prefix = match[1]!.toLowerCase();
  const builtIn = SLASH_COMMANDS.filter((c) => c.name.startsWith(prefix) || c.aliases?.some((a) => a.startsWith(prefix)));
  return [...builtIn, ...promptCommands.filter((c) => c.name.startsWith(prefix)).map(promptCommandListing)];
}
