// The command-line entry. Commands are declared here and their implementations imported only when
// they run, so `--help` and a usage error never pay for the gateway, tools or server.

import { setFlagsFromString } from 'node:v8';
import { Command, CommanderError, Option } from 'commander';
import { visibleText } from '../terminal-text/index.js';
import { glassboxVersion } from '../version/index.js';
import { UsageError, EXIT } from './usage-error.js';
import { registerSessionCommands } from './sessions-command.js';
import { registerRewindCommand } from './rewind-command.js';
import { registerServeCommand, registerWorkerCommand } from './serve-command.js';
import { registerDbCommand } from './db-command.js';
import { registerAcpCommand } from './acp-command.js';
import { registerCompactCommand } from './compact-command.js';
import { registerMcpCommand } from './mcp-command.js';
import { registerTraceCommand } from './trace-command.js';
import { registerChatCommands } from './chat-registration.js';
import { addModelOptions } from './model-options.js';
import { resolveHome } from './glassbox-home.js';
import { processOutputGuard } from './output-guard.js';
import { databaseUrlOption } from './session-store-option.js';
import { cliEnvVars, envValue, unsetBlankEnv } from './cli-env.js';
import type { ExecCliOptions } from './exec-command.js';
import { startExecHeadStart } from './exec-head-start.js';
import type { FirstFrame } from '../tui/index.js';

/** What bin/glassbox.js did before loading the CLI: the interactive session's first frame, if painted. */
export interface EntryState {
  firstFrame?: FirstFrame | null;
}

/** `exec --command`: the prompt command's text; its files are found where the turn will run. */
async function execCommandPrompt(name: string, words: string[], options: ExecCliOptions): Promise<string> {
  const [{ commandPrompt }, { resolveCommonConfig }] = await Promise.all([import('./command-prompt.js'), import('./run-config.js')]);
  const { root, home } = resolveCommonConfig(options);
  return commandPrompt({ name, words, root, home, stderr: process.stderr });
}

export function buildProgram(entry: EntryState = {}): Command {
  const program = new Command('glassbox')
    .description('A coding-agent harness you can see through.')
    .version(glassboxVersion(), '-V, --version')
    .showSuggestionAfterError(true)
    .exitOverride();

  addModelOptions(
    program
      .command('exec')
      .description('run the agent on a prompt and print its final answer (progress on stderr)')
      .argument('[prompt...]', 'what the agent should do; "-" or none reads it from stdin, which is otherwise added as context'),
  )
    .option('--json', 'print run events as JSON lines on stdout instead of the answer')
    .option('--resume <sessionId|last>', 'continue an existing session')
    .option('--plan', 'plan mode: a read-only turn in which the model proposes a plan, printed; nothing is changed')
    .option('--command <name>', 'send the prompt command <name> (.glassbox/commands/<name>.md…); the words after it are its arguments')
    .option('--max-rounds <n>', 'stop after N model rounds')
    .option('--token-budget <n>', 'stop once the run has used N tokens')
    .option(
      '--output-schema <file>',
      'the final answer must be JSON valid against the JSON Schema in <file> (exit 3 if not, after one retry)',
    )
    .option('--max-budget-usd <n>', 'stop before a model call that could take the run past N US dollars at catalog prices (exit 4)')
    .option('--fallback-model <model>', 'continue on <model> when the model stays overloaded or failing after its retries')
    .option('--sandbox <mode>', 'read-only | workspace-write | danger-full-access (default read-only)')
    .option('--approval-policy <policy>', 'untrusted | on-request | never (default on-request)')
    .option('--network', 'allow network access inside the sandbox')
    .option('--otlp-endpoint <url>', 'export an OpenTelemetry trace of the run over OTLP/HTTP (default: OTEL_EXPORTER_OTLP_ENDPOINT)')
    .option('--trace-content', 'attach prompts, answers, tool arguments and results to the trace')
    .addOption(databaseUrlOption())
    .addOption(new Option('--demo-intro').hideHelp())
    .action(async (promptWords: string[], options: ExecCliOptions) => {
      // The sandbox probe (one bwrap run) and the environment block's `git status` (a scan of the
      // project, then a bwrap run), both needed before the first request, start first: the sandbox's
      // code loads before the command's, whose loading then overlaps their child processes.
      const sandbox = import('../sandbox/index.js');
      sandbox.then(({ detectSandbox }) => detectSandbox()).catch(() => {});
      const headStart = startExecHeadStart(options);
      await sandbox.catch(() => {});
      const [{ execCommand }, { readExecPrompt }] = await Promise.all([import('./exec-command.js'), import('./read-exec-prompt.js')]);
      const prompt =
        options.command === undefined
          ? await readExecPrompt({ words: promptWords, stdin: process.stdin, stderr: process.stderr })
          : await execCommandPrompt(options.command, promptWords, options);
      process.exitCode = await execCommand(prompt, options, headStart);
    });

  const sessionDeps = { resolveHome: (option?: string) => resolveHome(option), glassboxVersion: glassboxVersion() };
  registerSessionCommands(program, sessionDeps);
  registerRewindCommand(program, sessionDeps);
  registerCompactCommand(program);
  registerServeCommand(program);
  registerWorkerCommand(program);
  registerDbCommand(program);
  registerAcpCommand(program);
  registerMcpCommand(program, glassboxVersion());
  registerTraceCommand(program, glassboxVersion());
  // Last: it sets root options and settings that must not be copied into the commands above.
  registerChatCommands(program, entry.firstFrame ?? null);

  return program;
}

export async function main(argv: string[], entry: EntryState = {}): Promise<void> {
  // WebAssembly on V8's baseline compiler only, compiled on the calling thread, before any module
  // is compiled. Node's fetch parses HTTP with a wasm build of llhttp, and left alone V8 re-compiles
  // its hot parser with the optimising compiler in the background at the first model request:
  // ~150 ms of CPU in every `exec` (20 % of a short one) for parsing that takes microseconds either
  // way. The command classifier sets the same flags for its grammar (command-classifier.ts), which
  // is all an embedding library gets.
  setFlagsFromString('--liftoff-only');
  setFlagsFromString('--no-wasm-async-compilation');
  // Node 24 ignores a late --liftoff-only (see permissions/command-classifier.ts).
  setFlagsFromString('--wasm-tiering-budget=1000000000');
  // Before any output: a reader that goes away (`| head`) must not crash us with EPIPE.
  const outputs = processOutputGuard();
  const program = buildProgram(entry);
  // Before commander reads the `.env()` options: `GLASSBOX_WIRE_API=` means unset, not "".
  unsetBlankEnv(cliEnvVars(program));
  try {
    await program.parseAsync(argv);
  } catch (error) {
    process.exitCode = reportError(error);
  }
  // A command line that did not open the session after all (an error, help) leaves no frame behind.
  entry.firstFrame?.abandon();
  // Output was lost, whatever the command: say so the way other tools in a pipeline do.
  await outputs.flushStdout();
  if (outputs.stdoutClosed) process.exitCode = EXIT.brokenPipe;
}

/**
 * Prints a command's failure and returns its exit code. The message can carry text others chose
 * (a provider's error for `compact`, a session file's contents), so it is shown, never obeyed.
 */
export function reportError(error: unknown, write: (text: string) => void = (text) => void process.stderr.write(text)): number {
  if (error instanceof CommanderError) {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return EXIT.ok;
    return EXIT.usage; // commander already printed the message
  }
  const debug = envValue('GLASSBOX_DEBUG') === '1';
  const exitCode = (error as { exitCode?: unknown })?.exitCode;
  const message = (error as Error)?.message ?? String(error);
  write(`glassbox: ${visibleText(message)}\n`);
  if (debug && error instanceof Error && error.stack) write(`${visibleText(error.stack)}\n`);
  if (error instanceof UsageError || exitCode === 2) return EXIT.usage;
  return typeof exitCode === 'number' ? exitCode : EXIT.failed;
}
