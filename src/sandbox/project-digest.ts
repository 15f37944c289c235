// What names a project's own file under the Glassbox home (its unverified-tree mark, its kept
// directory listings): a digest of its real path, so a path never becomes a file name and two
// projects never share one.

import { createHash } from 'node:crypto';

/** The first 128 bits of the SHA-256 of `root`, in hex. */
export function projectDigest(root: string): string {
  return createHash('sha256').update(root).digest('hex').slice(0, 32);
}
