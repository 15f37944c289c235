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
  await writePrivately(output, chunks.join(''));
  io.err(line(`wrote ${output} (raw, ${count} lines of session ${sessionId}, not redacted)`));
}

/**
 * The raw session, readable by its owner only, however `output` was before: a file that already
 * exists keeps its mode when written to, and a link there would be followed to whatever it names.
 * A new file (exclusive, 0600) is written beside it and renamed over it, which replaces the name,
 * never what a link points to.
 */
async function writePrivately(output: string, text: string): Promise<void> {
  const { open, rename, unlink } = await import('node:fs/promises');
  const { basename, dirname, join } = await import('node:path');
  const { randomBytes } = await import('node:crypto');
  const temporary = join(dirname(output), `.${basename(output)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temporary, 'wx', 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await unlink(temporary).catch(() => {});
    throw error;
  }
  await handle.close();
  try {
    await rename(temporary, output);
  } catch (error) {
    await unlink(temporary).catch(() => {});
    throw error;
  }
}

/**
 * The largest file an import reads: it is checked and stored whole, so it is held in memory a few
 * times over; a larger one is refused with its size instead of exhausting memory.
 */
export const MAX_IMPORT_BYTES = 1024 * 1024 * 1024;

function tooLarge(source: string, bytes: number | null): Error {
  const size = bytes === null ? 'more than' : `${bytes.toLocaleString('en-US')} bytes, over`;
  return new Error(`${source}: ${size} the import limit of ${MAX_IMPORT_BYTES.toLocaleString('en-US')} bytes; nothing was stored`);
}

/** Check `file` (or stdin for `-`) line by line and store it as a new session; prints its id. */
export async function importSessionFile(store: SessionStore, io: TransferOutput, file: string): Promise<void> {
  const bytes = file === '-' ? await readStdin() : await readImportFile(file);
  const { splitSessionBytes } = await import('../sessions/index.js');
  const source = file === '-' ? 'stdin' : file;
  const checked = await store.importSession(splitSessionBytes(bytes, source), source);
  io.out(`${checked.meta.sessionId}\n`);
  io.err(line(`imported session ${checked.meta.sessionId} (${checked.lines.length} lines) into ${store.location}`));
}

async function readImportFile(file: string): Promise<Buffer> {
  const { open } = await import('node:fs/promises');
  const handle = await open(file, 'r');
  try {
    const stat = await handle.stat();
    if (stat.isFile() && stat.size > MAX_IMPORT_BYTES) throw tooLarge(file, stat.size);
    // A pipe or a file still growing is read up to the limit, as stdin is.
    return await readCapped(handle.createReadStream({ autoClose: false }), file);
  } finally {
    await handle.close();
  }
}

function readStdin(): Promise<Buffer> {
  return readCapped(process.stdin, 'stdin');
}

async function readCapped(stream: AsyncIterable<unknown>, source: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const bytes = chunk as Buffer;
    total += bytes.length;
    if (total > MAX_IMPORT_BYTES) throw tooLarge(source, null);
    chunks.push(bytes);
  }
  return Buffer.concat(chunks);
}
