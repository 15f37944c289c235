// Runs `glassbox serve` from source in a child process, on a fresh program (main.ts registers
// the command too once it is wired in; a fresh program keeps this independent of that).
import { Command, CommanderError } from 'commander';
import { registerServeCommand } from '../../src/cli/serve-command.js';

const program = new Command('glassbox').exitOverride();
registerServeCommand(program);
try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (!(error instanceof CommanderError)) process.stderr.write(`glassbox: ${(error as Error).message}\n`);
  const exitCode = (error as { exitCode?: unknown }).exitCode;
  process.exitCode = typeof exitCode === 'number' && exitCode !== 0 ? (error instanceof CommanderError ? 2 : exitCode) : 1;
}
