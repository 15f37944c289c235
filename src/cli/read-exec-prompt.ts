// The prompt of `glassbox exec`, from its arguments and stdin, as scripts use it with other agents:
// `echo task | glassbox exec` and `glassbox exec -` take the prompt from stdin, and
// `git diff | glassbox exec "review this"` adds what was piped to the prompt as context. A
// terminal on stdin is never read (it is the person, who answers approvals there instead).

import { UsageError } from './usage-error.js';

/**
 * The most stdin may carry. Past it the text would not fit most models' windows anyway, and
 * a runaway producer (`yes | glassbox exec`) must end in a clear error, not a full memory.
 */
export const STDIN_LIMIT_BYTES = 1024 * 1024;

/** How long stdin may stay silent before we say we are waiting for it (an open pipe nobody writes). */
const SILENT_STDIN_NOTICE_MS = 2000;

export interface ExecPromptInput {
  /** The prompt words as given on the command line. */
  words: readonly string[];
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Where the "still waiting" notice goes. */
  stderr: { write(text: string): unknown };
}

/** The prompt to send: the words, stdin, or both; throws UsageError for what cannot be one. */
export async function readExecPrompt({ words, stdin, stderr }: ExecPromptInput): Promise<string> {
  const fromStdin = words.length === 0 || (words.length === 1 && words[0] === '-');
  if (stdin.isTTY) {
    if (words.length === 0) throw new UsageError('no prompt: give it as arguments (glassbox exec "…") or pipe it on stdin');
    if (fromStdin)
      throw new UsageError('"-" reads the prompt from stdin, but stdin is a terminal; pipe the prompt in or give it as arguments');
    return words.join(' ');
  }
  const piped = await readStdinText(stdin, stderr, fromStdin ? 'the prompt' : 'context for the prompt');
  if (fromStdin) {
    if (piped.trim() === '') throw new UsageError('no prompt: stdin was empty and no prompt was given as arguments');
    // The line ending `echo` and here-strings add is not part of the prompt (nor of the session's title).
    return piped.replace(/\r?\n$/, '');
  }
  const prompt = words.join(' ');
  // Nothing piped (`</dev/null`, a closed pipe): the prompt alone, as without stdin.
  if (piped.trim() === '') return prompt;
  // Delimited, so the model can tell the request from the material it is about.
  return `${prompt}\n\n<stdin>\n${piped.endsWith('\n') ? piped : `${piped}\n`}</stdin>`;
}

async function readStdinText(stdin: NodeJS.ReadableStream, stderr: { write(text: string): unknown }, what: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  let received = false;
  // An open pipe that never ends (a parent that gave us one and writes nothing) would otherwise
  // hang without a word; the notice says what we wait for and how to skip it.
  const notice = setTimeout(() => {
    if (!received)
      stderr.write(`glassbox: waiting for stdin to end (reading it as ${what}; it is not a terminal). Use </dev/null to skip it.\n`);
  }, SILENT_STDIN_NOTICE_MS);
  try {
    for await (const chunk of stdin) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      received = true;
      size += bytes.length;
      if (size > STDIN_LIMIT_BYTES) {
        // Leaving the loop destroys stdin: the producer gets EPIPE rather than us buffering the rest.
        throw new UsageError(
          `stdin is over the ${STDIN_LIMIT_BYTES / (1024 * 1024)} MiB limit for ${what}; name the file in the prompt instead and the agent reads what it needs`,
        );
      }
      chunks.push(bytes);
    }
  } finally {
    clearTimeout(notice);
  }
  return decodeText(Buffer.concat(chunks), what);
}

/** Text only: a NUL byte or invalid UTF-8 means a binary file was piped, which no model reads as a prompt. */
function decodeText(bytes: Buffer, what: string): string {
  const nul = bytes.indexOf(0);
  if (nul !== -1) throw new UsageError(`stdin is not text (a NUL byte at offset ${nul}); pipe text as ${what}`);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new UsageError(`stdin is not valid UTF-8 text; pipe text as ${what}`);
  }
}
