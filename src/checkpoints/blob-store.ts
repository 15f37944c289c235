// The content-addressed store of file copies that checkpoints point at: `<home>/snapshots/blobs/
// <first two hex digits>/<sha256>`. A blob is written once (same bytes, same name), through a temp
// file and a rename so a crash never leaves a half blob under its final name, and checked against
// its name when read back, so a damaged copy is refused rather than restored.

import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';

export class BlobStoreError extends Error {
  override readonly name = 'BlobStoreError';
}

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export class BlobStore {
  readonly directory: string;

  constructor(home: string) {
    this.directory = join(home, 'snapshots', 'blobs');
  }

  private pathOf(hash: string): string {
    if (!/^[0-9a-f]{64}$/.test(hash)) throw new BlobStoreError(`not a blob name: ${hash}`);
    return join(this.directory, hash.slice(0, 2), hash);
  }

  /** Store `bytes` (if not stored yet) and return their name. */
  async put(bytes: Uint8Array): Promise<string> {
    const hash = sha256(bytes);
    const path = this.pathOf(hash);
    if (
      await stat(path).then(
        () => true,
        () => false,
      )
    )
      return hash;
    // Copies may hold anything the project held: only the owner reads them.
    await mkdir(join(this.directory, hash.slice(0, 2)), { recursive: true, mode: 0o700 });
    const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path).catch(async (error: unknown) => {
      await unlink(temp).catch(() => undefined);
      throw error;
    });
    return hash;
  }

  async get(hash: string): Promise<Buffer> {
    let bytes: Buffer;
    try {
      bytes = await readFile(this.pathOf(hash));
    } catch (error) {
      throw new BlobStoreError(`the copy ${hash} is missing from ${this.directory}: ${(error as Error).message}`);
    }
    if (sha256(bytes) !== hash) throw new BlobStoreError(`the copy ${hash} in ${this.directory} is damaged`);
    return bytes;
  }
}
