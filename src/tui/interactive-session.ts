// Starts the interactive session on the terminal: the controller, the ink app, and the way out.
// On exit a running turn is cancelled and awaited, so the session file always gets its end
// record, and the command to continue is printed where the user will look for it.

import { createElement as h } from 'react';
import { render } from 'ink';
import { App } from './app-view.js';
import { DISABLE_BRACKETED_PASTE, ENABLE_BRACKETED_PASTE } from './bracketed-paste.js';
import { listProjectFiles } from './file-mentions.js';
import { loadHighlighter } from './highlight-code.js';
import { SessionController, type ControllerOptions } from './session-controller.js';
import { createTheme } from './theme.js';
import type { FirstFrame } from './first-frame.js';
import { RESERVED_COMMAND_NAMES } from './slash-commands.js';
import { findPromptCommands, type PromptCommand } from '../workspace/index.js';
import { oneLine } from '../terminal-text/index.js';

export interface InteractiveOptions extends ControllerOptions {
  /** Sent as the first prompt (`glassbox chat "…"`). */
  prompt: string | null;
  /** Opened before the first prompt (`--resume <id|last>`). */
  resume: string | null;
  /** NO_COLOR unset and the terminal shows colour. */
  color: boolean;
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
  /** The editor painted before the CLI loaded (first-frame.ts): replaced by the session's first frame. */
  firstFrame?: FirstFrame | null;
}

/** Resolves with the process exit code once the user quits. */
export async function runInteractive(options: InteractiveOptions): Promise<number> {
  const stdout = options.stdout ?? process.stdout;
  const stdin = options.stdin ?? process.stdin;
  const theme = createTheme(options.color);
  let clear: () => void = () => {};
  const controller = new SessionController({
    ...options,
    clearScreen: () => clear(),
  });
  await controller.loadPromptHistory();
  // Fail before drawing anything: an unknown --resume is a usage error, as it is for exec.
  if (options.resume !== null) {
    const runner = await controller.getRunner();
    const sessionId = await runner.store.resolveId(options.resume);
    await controller.openSession(sessionId);
  }
  let files: readonly string[] = [];
  // Read once at start (a few small files): `/name` completes and /help lists them from the first key on.
  const found = await findPromptCommands({ root: options.runner.root, glassboxHome: options.runner.home }, RESERVED_COMMAND_NAMES);
  const promptCommands: readonly PromptCommand[] = found.commands;
  for (const warning of found.warnings) controller.note({ kind: 'notice', tone: 'warning', text: oneLine(warning.message, 400) });
  const app = () => h(App, { controller, theme, files, initialPrompt: options.prompt, promptCommands });
  // The editor and the status line are drawn first; what the first turn needs (the runner: the
  // project's instructions, its tools, the command classifier) is opened while the user types,
  // and a prompt sent before it is ready waits for it.
  // Its lines are erased and the keys typed into it queued for ink, which draws in their place.
  options.firstFrame?.handOff();
  const instance = render(app(), { stdin, stdout, exitOnCtrlC: false, patchConsole: true });
  clear = () => {
    instance.clear();
    // Erase the screen and the scrollback, cursor home: the next frame starts on a clean page.
    stdout.write('\x1b[2J\x1b[3J\x1b[H');
  };
  // Pastes arrive marked (bracketed-paste.ts); the mode is turned off again however the process ends.
  stdout.write(ENABLE_BRACKETED_PASTE);
  const pasteModeOff = (): void => {
    stdout.write(DISABLE_BRACKETED_PASTE);
  };
  process.once('exit', pasteModeOff);
  try {
    await controller.getRunner();
  } catch (error) {
    instance.unmount();
    process.off('exit', pasteModeOff);
    pasteModeOff();
    throw error;
  }
  // The workspace snapshot /diff compares with, taken in the background (the first turn waits for it).
  void controller.changes.ready();
  void loadHighlighter().catch(() => {});
  // Listed in the background: the editor is usable at once, completion follows.
  void listProjectFiles(options.runner.root)
    .then((listed) => {
      files = listed;
      instance.rerender(app());
    })
    .catch(() => {});
  // A signal ends the session the way /quit does, so a running turn still gets its end record.
  let signalled: NodeJS.Signals | null = null;
  const onSignal = (signal: NodeJS.Signals): void => {
    signalled ??= signal;
    controller.requestExit();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
  try {
    await instance.waitUntilExit();
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
    process.off('exit', pasteModeOff);
    pasteModeOff();
    await shutdownCancellable(controller, stdout);
  }
  const sessionId = controller.getSnapshot().sessionId;
  if (sessionId !== null) stdout.write(`\nsession ${sessionId} is saved; continue it with:\n  glassbox --resume ${sessionId}\n`);
  // 128 + the signal's number, as a shell reports a process the signal ended.
  return signalled === 'SIGTERM' ? 143 : signalled === 'SIGHUP' ? 129 : 0;
}

/** How long quitting waits on SessionEnd hooks before saying so (and that Ctrl-C skips them). */
const SLOW_SESSION_END_MS = 1_000;

/**
 * Quit: the session's end waits for its SessionEnd hooks, but a hook that hangs must not hold the
 * terminal until its own timeout. Ctrl-C (the screen is gone: it arrives as SIGINT) or SIGTERM
 * cancels them; their runs are recorded as cancelled.
 */
async function shutdownCancellable(controller: SessionController, stdout: NodeJS.WriteStream): Promise<void> {
  const cancel = (signal: NodeJS.Signals): void => {
    if (controller.hookRuns.cancelEnding()) stdout.write('\nSessionEnd hooks cancelled\n');
    // Nothing left to cancel: the signal ends the process, as it would without this handler.
    else process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  const slow = setTimeout(() => {
    if (controller.hookRuns.endingRuns) stdout.write('\nwaiting for SessionEnd hooks (Ctrl-C skips them)\n');
  }, SLOW_SESSION_END_MS);
  slow.unref();
  process.on('SIGINT', cancel);
  process.on('SIGTERM', cancel);
  try {
    await controller.shutdown();
  } finally {
    clearTimeout(slow);
    process.off('SIGINT', cancel);
    process.off('SIGTERM', cancel);
  }
}
