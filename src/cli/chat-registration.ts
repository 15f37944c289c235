// Declares the interactive session's entry points: `glassbox` itself (no command), `glassbox
// chat [prompt]` and `glassbox --resume <id|last>`. Only commander is loaded here; the session
// (runner, ink, React) is imported when one of them runs.

import type { Command } from 'commander';
import { addModelOptions } from './model-options.js';
import { databaseUrlOption } from './session-store-option.js';
import type { ChatCliOptions } from './chat-command.js';
import type { FirstFrame } from '../tui/index.js';

function addSessionOptions(command: Command): Command {
  return addModelOptions(command)
    .option('--resume <sessionId|last>', 'continue an existing session')
    .option('--max-rounds <n>', 'stop each turn after N model rounds')
    .option('--token-budget <n>', 'stop a turn once it has used N tokens')
    .option('--sandbox <mode>', 'read-only | workspace-write | danger-full-access (default read-only)')
    .option('--approval-policy <policy>', 'untrusted | on-request | never (default on-request)')
    .option('--network', 'allow network access inside the sandbox')
    .option('--plan', 'plan mode for the first prompt: a read-only turn in which the model proposes a plan (/accept, /reject)')
    .option('--otlp-endpoint <url>', 'export an OpenTelemetry trace of each turn over OTLP/HTTP (default: OTEL_EXPORTER_OTLP_ENDPOINT)')
    .option('--trace-content', 'attach prompts, answers, tool arguments and results to the traces')
    .addOption(databaseUrlOption());
}

async function startChat(prompt: string | null, options: ChatCliOptions, firstFrame: FirstFrame | null): Promise<void> {
  const { chatCommand } = await import('./chat-command.js');
  process.exitCode = await chatCommand(prompt, options, firstFrame);
}

/** `firstFrame`: the editor bin/glassbox.js painted before the CLI loaded, for the session to take over. */
export function registerChatCommands(program: Command, firstFrame: FirstFrame | null = null): void {
  addSessionOptions(
    program
      .command('chat')
      .description('open an interactive session in the terminal (the same as glassbox with no command)')
      .argument('[prompt...]', 'a first prompt to send'),
  ).action((words: string[], options: ChatCliOptions) => startChat(words.join(' '), options, firstFrame));

  program.description(`${program.description()} With no command it opens an interactive session (as \`glassbox chat\`).`);
  // The root's own options are read only before a command name (`enablePositionalOptions`), so
  // `glassbox exec --resume last …` still gives --resume to exec.
  addSessionOptions(program.enablePositionalOptions());
  program.action(async (options: ChatCliOptions, command: Command) => {
    // A stray word is a mistyped command, not a prompt: say so with commander's suggestion.
    if (command.args.length > 0) (command as unknown as { unknownCommand(): never }).unknownCommand();
    await startChat(null, options, firstFrame);
  });
  // Set after the subcommands exist (they copy the setting when created): excess words reach
  // the action above, which reports them as an unknown command.
  program.allowExcessArguments(true);
}
