// `glassbox rewind <session> --to-turn N`: put the project's files back to their state before turn
// N and branch the conversation there (a fork up to turn N-1). The diff of what will change is
// printed first; a file changed outside Glassbox since refuses the whole rewind (and is listed);
// then a person confirms on a terminal, a script passes --yes, and without either nothing happens.
// File contents are text others chose: every line printed goes through terminal-text/.

import { createInterface } from 'node:readline/promises';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { escapeControls } from '../terminal-text/index.js';
import { databaseUrlOption } from './session-store-option.js';
import { type SessionCommandDeps, withStore } from './sessions-command.js';

interface RewindCliOptions {
  toTurn: number;
  filesOnly?: boolean;
  conversationOnly?: boolean;
  yes?: boolean;
  home?: string;
  databaseUrl?: string;
}

export interface RewindIo {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Ask on the terminal; null when stdin is not one. */
  confirm: ((question: string) => Promise<boolean>) | null;
}

function parseTurn(value: string): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(number) || number < 1)
    throw new InvalidArgumentError('expected a turn number (1 or more)');
  return number;
}

function line(text: string): string {
  return `${escapeControls(text)}\n`;
}

function terminalConfirm(): RewindIo['confirm'] {
  if (!process.stdin.isTTY) return null;
  return async (question) => {
    const readline = createInterface({ input: process.stdin, output: process.stderr });
    try {
      return /^y(es)?$/i.test((await readline.question(question)).trim());
    } finally {
      readline.close();
    }
  };
}

/** Exit code: 0 rewound, 1 refused (conflicts, declined), 2 no confirmation possible. */
export async function rewindCommand(deps: SessionCommandDeps, io: RewindIo, reference: string, options: RewindCliOptions): Promise<number> {
  if (options.filesOnly && options.conversationOnly) {
    io.err('glassbox: --files-only and --conversation-only exclude each other\n');
    return 2;
  }
  const home = deps.resolveHome(options.home);
  const { performRewind, prepareRewind } = await import('../checkpoints/index.js');
  return withStore(deps, options, async ({ store }) => {
    const sessionId = await store.resolveId(reference);
    const scope = { files: options.conversationOnly !== true, conversation: options.filesOnly !== true };
    const prepared = await prepareRewind(store, sessionId, options.toTurn, { home, scope });
    const { plan } = prepared;
    if (plan !== null) {
      for (const text of prepared.diff) io.out(line(text));
      for (const skipped of plan.skipped) io.err(line(`not restored: ${skipped.path}: ${skipped.why}`));
      if (plan.conflicts.length > 0) {
        for (const conflict of plan.conflicts) io.err(line(`conflict: ${conflict.path}: ${conflict.why}`));
        io.err(line(`refused: nothing was changed (${plan.conflicts.length} conflict${plan.conflicts.length === 1 ? '' : 's'})`));
        return 1;
      }
      if (!prepared.checkpointed)
        io.err(line('note: this session has no file checkpoints (written before Glassbox kept them, or no tool changed a file)'));
      if (plan.restores.length === 0) io.err(line(`no file to restore: the project already is as it was before turn ${options.toTurn}`));
    }
    const files = plan === null ? 0 : plan.restores.length;
    const what = [
      ...(files > 0 ? [`restore ${files} file${files === 1 ? '' : 's'}`] : []),
      ...(scope.conversation ? [`branch the conversation before turn ${options.toTurn}`] : []),
    ];
    if (what.length === 0) return 0;
    if (!options.yes) {
      if (io.confirm === null) {
        io.err(line('refused: stdin is not a terminal to confirm on; pass --yes to rewind without asking'));
        return 2;
      }
      if (!(await io.confirm(`${what.join(' and ')}? [y/N] `))) {
        io.err(line('cancelled: nothing was changed'));
        return 1;
      }
    }
    const outcome = await performRewind(
      store,
      prepared,
      deps.glassboxVersion === undefined ? {} : { glassboxVersion: deps.glassboxVersion },
    );
    io.err(line(`rewound ${sessionId} to before turn ${options.toTurn}: ${outcome.restored.length} file(s) restored`));
    if (outcome.forkId !== null) {
      io.err(line(`the conversation continues in ${outcome.forkId} (glassbox exec --resume ${outcome.forkId} …)`));
      io.out(`${outcome.forkId}\n`);
    }
    return 0;
  });
}

export function registerRewindCommand(program: Command, deps: SessionCommandDeps): void {
  program
    .command('rewind')
    .description("restore the project's files to before a turn and branch the conversation there (prints the fork's id)")
    .argument('<id>', 'session id, unique prefix, or "last"')
    .requiredOption('--to-turn <n>', 'the turn to undo, with every turn after it', parseTurn)
    .option('--files-only', 'restore the files; keep the conversation as it is')
    .option('--conversation-only', 'branch the conversation; leave the files as they are')
    .option('-y, --yes', 'do not ask for confirmation (scripts)')
    .addOption(new Option('--home <dir>', 'Glassbox home (default ~/.glassbox)').env('GLASSBOX_HOME'))
    .addOption(databaseUrlOption())
    .action(async (reference: string, options: RewindCliOptions) => {
      process.exitCode = await rewindCommand(
        deps,
        { out: (text) => process.stdout.write(text), err: (text) => process.stderr.write(text), confirm: terminalConfirm() },
        reference,
        options,
      );
    });
}
