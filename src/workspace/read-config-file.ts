// A config file a repository can plant (`.glassbox/config.json`) is read without trusting what it
// is: opened non-blocking, so a FIFO cannot hang start-up; refused unless it is a regular file;
// capped, so a huge file cannot exhaust memory. Also used for files in Glassbox's home that a
// hostile environment could have replaced (the prompt history).

import { constants } from 'node:fs';
import { open } from 'node:fs/promises';

export const MAX_CONFIG_FILE_BYTES = 1024 * 1024;

export interface ReadConfigFileOptions {
  maxBytes?: number;
  /** Refuse a symlink in the last component (a file Glassbox writes itself, in its home). */
  noFollow?: boolean;
}

/** The file's text, or null when it does not exist. Throws with a one-line reason otherwise. */
export async function readConfigFile(path: string, options: ReadConfigFileOptions = {}): Promise<string | null> {
  const maxBytes = options.maxBytes ?? MAX_CONFIG_FILE_BYTES;
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | (options.noFollow ? constants.O_NOFOLLOW : 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw new Error(`cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new Error(`${path} is not a regular file`);
    if (stats.size > maxBytes) throw new Error(`${path} is larger than ${maxBytes} bytes`);
    const text = await handle.readFile('utf8');
    if (Buffer.byteLength(text) > maxBytes) throw new Error(`${path} is larger than ${maxBytes} bytes`);
    return text;
  } finally {
    await handle.close();
  }
}
