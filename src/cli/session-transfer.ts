// Moving a session between stores: `glassbox sessions export <id> --format raw` writes the lines a
// store holds exactly (byte-for-byte what the file store writes), and `glassbox sessions import
// <file>` stores such a file in the file store or PostgreSQL after checking every line. Unlike the
// html/md/jsonl exports, which are for sharing and go through the secret redactor, raw is the
// session itself, so it says so every time it is written.

import type { SessionStore } from '../sessions/index.js';
import { escapeControls } from '../terminal-text/index.js';

/** Lines handed to the output per write: a long session is streamed, not joined whole. */
const LINES_PER_WRITE = 500;

export const RAW_EXPORT_NOTICE =
  'raw export: the session exactly as stored, nothing redacted. Secrets are kept away from the model, ' +
  'but prompts and tool outputs can hold user data and anything a command printed; keep the file private.';

export interface TransferOutput {
  out: (text: string) => void;
  err: (text: string) => void;
}

function line(text: string): string {
  return `${escapeControls(text)}\n`;
}

/** Every stored line of `reference`, each with its newline, to stdout or to `output` (owner-only). */
export async function exportRawSession(
  store: SessionStore,
  io: TransferOutput,
  reference: string,
  output: string | undefined,
): Promise<void> {
  const sessionId = await store.resolveId(reference);
  io.err(line(RAW_EXPORT_NOTICE));
  let count = 0;
  if (output === undefined) {
    let pending: string[] = [];
    await store.exportLines(sessionId, (text) => {
      pending.push(`${text}\n`);
      count += 1;
      if (pending.length >= LINES_PER_WRITE) {
        io.out(pending.join(''));
        pending = [];
      }
    });
    if (pending.length > 0) io.out(pending.join(''));
    return;
  }
  const chunks: string[] = [];
  await store.exportLines(sessionId, (text) => {
    chunks.push(`${text}\n`);
    count += 1;
  });
  const { writeFile } = await import('node:fs/promises');
  await writeFile(output, chunks.join(''), { mode: 0o600 });
  io.err(line(`wrote ${output} (raw, ${count} lines of session ${sessionId}, not redacted)`));
}

/** Check `file` (or stdin for `-`) line by line and store it as a new session; prints its id. */
export async function importSessionFile(store: SessionStore, io: TransferOutput, file: string): Promise<void> {
  const bytes = file === '-' ? await readStdin() : await (await import('node:fs/promises')).readFile(file);
  const { splitSessionBytes } = await import('../sessions/index.js');
  const source = file === '-' ? 'stdin' : file;
  const checked = await store.importSession(splitSessionBytes(bytes, source), source);
  io.out(`${checked.meta.sessionId}\n`);
  io.err(line(`imported session ${checked.meta.sessionId} (${checked.lines.length} lines) into ${store.location}`));
}

async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
