// Paths whose writes always need approval, whatever the sandbox mode: a repository's `.git`
// (hooks and config there run programs later), Glassbox's own home, the project's `.glassbox/`
// (its config names MCP servers, i.e. programs Glassbox starts), and `.env*` files.

import { basename, relative, sep } from 'node:path';
import { isGitMetadataName, isInside } from '../workspace/index.js';

export type ProtectedWriteReason = 'git-directory' | 'glassbox-home' | 'project-config' | 'env-file';

/** Why writing `path` (absolute) needs approval, or null when it does not. */
export function protectedWriteReason(path: string, root: string, glassboxHome: string): ProtectedWriteReason | null {
  // Any `.git` inside the root counts, not only the top one: a nested repository's config can
  // name programs (core.fsmonitor, diff.external) that a later `git status` would run.
  // The name is compared as case-folding file systems would (`.GIT`, `.git.`, `GIT~1`).
  if (isInside(root, path) && relative(root, path).split(sep).some(isGitMetadataName)) return 'git-directory';
  if (isInside(glassboxHome, path)) return 'glassbox-home';
  if (isInside(root, path) && relative(root, path).split(sep)[0]?.toLowerCase() === '.glassbox') return 'project-config';
  if (basename(path).startsWith('.env')) return 'env-file';
  return null;
}

export function describeProtectedWrite(reason: ProtectedWriteReason): string {
  switch (reason) {
    case 'git-directory':
      return 'is inside a .git directory (hooks and config there can run programs)';
    case 'glassbox-home':
      return "is inside Glassbox's own home (configuration and sessions)";
    case 'project-config':
      return "is in the project's Glassbox configuration (.glassbox/), which can name programs Glassbox starts";
    case 'env-file':
      return 'is an environment file (.env*), which usually holds secrets';
  }
}
