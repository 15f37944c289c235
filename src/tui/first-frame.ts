// The interactive session's first frame, drawn by bin/glassbox.js before the CLI itself is loaded
// (its own small bundle entry, dist/bundle/first-frame.js). Loading the CLI, the model gateway,
// the session store and ink takes several times as long as starting Node; a user who typed
// `glassbox` should see the editor at once and be able to type into it. So the editor box and the
// status lines are painted with plain escape codes, keys typed meanwhile are echoed and kept, and
// the session takes the frame over when ink is ready: it erases these lines, draws its own frame
// in their place, and receives the kept keys as if they were typed then (`handOff`).
// Anything else written to the terminal first (a usage error, a failed start) erases the frame
// and restores the terminal before it is written (`abandon`), so no command prints over it.

import { DISABLE_BRACKETED_PASTE, ENABLE_BRACKETED_PASTE } from './bracketed-paste.js';
import { IDLE_HINT } from './status-hints.js';
import { createTheme } from './theme.js';

/** What the CLI's command line means, read off the program at build time (scripts/build.js). */
export interface EntryArgv {
  /** The command that opens the session (`chat`) and its aliases. */
  sessionCommands: readonly string[];
  /** Options of the root (`glassbox …`) and of `chat` that take a value, every spelling. */
  rootValueOptions: readonly string[];
  chatValueOptions: readonly string[];
  /** Options that print something and exit (`--help`, `--version`). */
  exitOptions: readonly string[];
}

/** The painted frame, handed to the session (or abandoned) exactly once. */
export interface FirstFrame {
  /** Erases the frame and gives back the keys typed meanwhile, queued on stdin for ink. */
  handOff(): void;
  /** Erases the frame and puts the terminal back as it was; the kept keys stay queued on stdin. */
  abandon(): void;
}

/** True when `args` (argv after the script) opens the interactive session: no command, or `chat`. */
export function opensSession(args: readonly string[], spec: EntryArgv): boolean {
  let valueOptions = new Set(spec.rootValueOptions);
  let sawChat = false;
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!;
    if (arg === '--') return true;
    if (spec.exitOptions.includes(arg)) return false;
    if (arg.startsWith('-') && arg.length > 1) {
      // `--model=x` and `-mx` carry their value; `--model x` and `-m x` take the next word.
      if (!arg.includes('=') && valueOptions.has(arg)) i += 1;
      continue;
    }
    if (sawChat) continue; // the words of chat's first prompt
    if (!spec.sessionCommands.includes(arg)) return false; // a command, or a word commander will call unknown
    sawChat = true;
    valueOptions = new Set(spec.chatValueOptions);
  }
  return true;
}

/**
 * Paints the first frame on a terminal and starts keeping keys; null when either side is not a
 * terminal (the CLI then explains why there is no session).
 */
export function paintFirstFrame(
  options: { stdin?: NodeJS.ReadStream; stdout?: NodeJS.WriteStream; stderr?: NodeJS.WriteStream; color?: boolean } = {},
): FirstFrame | null {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  if (!stdin.isTTY || !stdout.isTTY || typeof stdin.setRawMode !== 'function') return null;
  const theme = createTheme(options.color ?? (process.env.NO_COLOR ?? '') === '');
  const columns = Math.max(20, stdout.columns || 80);
  const inner = columns - 4; // the border and one space of padding on each side
  const write = stdout.write.bind(stdout);
  const writeErr = stderr.write.bind(stderr);

  const kept: Buffer[] = [];
  let typed = '';
  let echoing = true;
  let live = true;

  const editorLine = (): string => {
    const shown = typed.length > inner - 3 ? typed.slice(typed.length - (inner - 3)) : typed;
    const text = `${theme.tone('accent', '›')} ${shown}${theme.inverse(' ')}`;
    return `│ ${text}${' '.repeat(Math.max(0, inner - 3 - shown.length))} │`;
  };
  const frame = [
    '',
    `╭${'─'.repeat(columns - 2)}╮`,
    editorLine(),
    `╰${'─'.repeat(columns - 2)}╯`,
    theme.dim('starting glassbox…'),
    '',
    theme.dim(IDLE_HINT.length > columns ? IDLE_HINT.slice(0, columns) : IDLE_HINT),
  ];

  // The cursor stays at the end of the last row (the hint); the editor line is the third row.
  const rowsAbove = frame.length - 1;
  const editorRowsUp = frame.length - 1 - 2;
  const erase = (): void => {
    // Row by row up to the frame's first, left at column 1. Not "erase to the end of the screen"
    // from there: at the top-left corner tmux treats that as clearing the screen and keeps the
    // frame in the scrollback.
    write(`${'\x1b[2K\x1b[1A'.repeat(rowsAbove)}\x1b[2K\r`);
  };
  const finish = (): void => {
    live = false;
    // Paused mode throughout ('readable', never 'data'): pausing a flowing TTY stream stops its
    // reads for good, and ink, which reads the same way, would then get no key at all. Unref'd, so
    // a CLI that ends here (a usage error) is not kept alive by it; ink refs it again.
    stdin.off('readable', onReadable);
    stdin.unref?.();
    stdout.write = write;
    stderr.write = writeErr;
    process.off('exit', onExit);
    erase();
    // The next reader of stdin (the session's editor) gets them first, as if typed now.
    if (kept.length > 0) stdin.unshift(Buffer.concat(kept));
  };
  const handOff = (): void => {
    // Still in raw mode and bracketed paste: the session keeps both.
    if (live) finish();
  };
  const abandon = (): void => {
    if (!live) return;
    finish();
    write(DISABLE_BRACKETED_PASTE);
    stdin.setRawMode(false);
  };
  function onReadable(): void {
    while (live) {
      const chunk = stdin.read() as Buffer | string | null;
      if (chunk === null) return;
      onData(chunk);
    }
  }
  function onData(chunk: Buffer | string): void {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    // Ctrl-C before the session exists: there is nothing to keep, so it quits as the signal would.
    if (bytes.includes(0x03)) {
      abandon();
      process.exit(130);
    }
    kept.push(bytes);
    if (!echoing) return;
    for (const char of bytes.toString('utf8')) {
      const code = char.codePointAt(0)!;
      if (code === 0x7f || code === 0x08) typed = typed.slice(0, -1);
      else if (code >= 0x20 && code < 0x7f) typed += char;
      else {
        // Enter, a paste, an arrow key, a wide character: the session replays them; echo stops here.
        echoing = false;
        break;
      }
    }
    write(`\r\x1b[${editorRowsUp}A${editorLine()}\r\x1b[${editorRowsUp}B`);
  }
  const onExit = (): void => abandon();

  write(`${frame.join('\n')}${ENABLE_BRACKETED_PASTE}`);
  stdin.setRawMode(true);
  stdin.on('readable', onReadable);
  process.on('exit', onExit);
  // Any other output first means the session is not starting (a usage error, a failed start).
  const intercept =
    (original: typeof write) =>
    (...args: Parameters<typeof write>): boolean => {
      abandon();
      return original(...args);
    };
  stdout.write = intercept(write) as typeof stdout.write;
  stderr.write = intercept(writeErr) as typeof stderr.write;
  return { handOff, abandon };
}
