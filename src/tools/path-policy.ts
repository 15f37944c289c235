// Every path a tool touches is resolved against the project root and checked *after* realpath,
// so `..`, absolute paths and symlinks that point out of the root are all caught the same way.
// The containment rule itself lives in workspace/, shared with the permission layer and sandbox;
// this adds the tools' errors.

import { relative, resolve, sep } from 'node:path';
import { ToolError } from '../agent/index.js';
import { isInside, realLocation } from '../workspace/index.js';

export interface ResolvedPath {
  /** Absolute real path (for a path that does not exist yet: real parent + remaining names). */
  absolute: string;
  /** Path relative to the root, with `/` separators; `.` for the root itself. */
  relative: string;
  exists: boolean;
}

function toPosixRelative(root: string, absolute: string): string {
  const rel = relative(root, absolute);
  return rel === '' ? '.' : rel.split(sep).join('/');
}

/**
 * Resolve `input` (relative to `root`, or absolute) and require it to stay inside `root` after
 * following symlinks. A path that does not exist is resolved through its nearest existing
 * ancestor, so creating `a/b/c.txt` under a symlinked `a` that points outside is refused too.
 */
export async function resolveInsideRoot(root: string, input: string): Promise<ResolvedPath> {
  if (input.includes('\0')) throw new ToolError('INVALID_PATH', 'Path contains a NUL byte.');
  const lexical = resolve(root, input === '' ? '.' : input);
  const { absolute, exists } = await realLocation(lexical);
  if (!isInside(root, absolute)) {
    throw new ToolError(
      'PATH_OUTSIDE_ROOT',
      `${input} resolves to ${absolute}, which is outside the project root ${root}. Use a path inside the root.`,
    );
  }
  return { absolute, relative: toPosixRelative(root, absolute), exists };
}

/** Same as `resolveInsideRoot` but the path must exist. */
export async function resolveExisting(root: string, input: string): Promise<ResolvedPath> {
  const resolved = await resolveInsideRoot(root, input);
  if (!resolved.exists) throw new ToolError('PATH_NOT_FOUND', `${input} does not exist.`);
  return resolved;
}
