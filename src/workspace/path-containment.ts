// Whether a path stays inside the project root, judged on real paths. The leaf every layer that
// draws that line shares (the tools, the permission rules, the command classifier, the sandbox),
// so they all draw it the same way.

import { realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** `candidate` is `root` or below it (lexically: resolve symlinks first, see `realLocation`). */
export function isInside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel) && rel.split(sep)[0] !== '..');
}

/** Resolve the root itself once, so all later checks compare real paths with real paths. */
export function resolveRoot(root: string): string {
  return realpathSync(resolve(root));
}

/**
 * Where an absolute path really leads: symlinks followed through its nearest existing ancestor,
 * the missing rest appended. Used by the tools and by the permission gate, so both judge the same
 * location.
 */
export async function realLocation(path: string): Promise<{ absolute: string; exists: boolean }> {
  let existing = path;
  const missing: string[] = [];
  for (;;) {
    try {
      // The same realpath(3) as `fs/promises`, called directly: resolving a path is a few cached
      // lookups, cheaper than the thread-pool round trip an asynchronous call adds, and every tool
      // call resolves its paths twice (permission gate, then the tool) before it runs.
      return { absolute: join(realpathSync.native(existing), ...missing), exists: missing.length === 0 };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
      const parent = dirname(existing);
      if (parent === existing) return { absolute: path, exists: false };
      missing.unshift(existing.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
      existing = parent;
    }
  }
}
