import { mkdtemp, rm } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A real temporary directory (real path, so root checks compare like with like), removed after. */
export async function withTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = realpathSync(await mkdtemp(join(tmpdir(), 'glassbox-test-')));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function makeTempDir(): Promise<string> {
  return realpathSync(await mkdtemp(join(tmpdir(), 'glassbox-test-')));
}
