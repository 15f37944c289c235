// `@path` completion: the project's files are listed once, in the background, when the session
// opens, and matched against what follows the `@` as the user types. Dependency and VCS folders
// are left out; a huge tree is cut at a cap rather than slowing the editor down.

import { glob } from 'tinyglobby';

export const MAX_LISTED_FILES = 20_000;
const IGNORED = ['**/node_modules/**', '**/.git/**', '**/dist/**', '**/.venv/**', '**/__pycache__/**', '**/target/**'];

export async function listProjectFiles(root: string): Promise<string[]> {
  const files = await glob('**/*', { cwd: root, ignore: IGNORED, dot: true, onlyFiles: true, followSymbolicLinks: false });
  return files.sort().slice(0, MAX_LISTED_FILES);
}

/** Best matches for `query` (the text after `@`): path prefix, then file-name prefix, then substring. */
export function matchFiles(files: readonly string[], query: string, limit = 6): string[] {
  const q = query.toLowerCase();
  const scored: Array<{ path: string; score: number }> = [];
  for (const path of files) {
    const lower = path.toLowerCase();
    const base = lower.slice(lower.lastIndexOf('/') + 1);
    let score = -1;
    if (lower.startsWith(q)) score = 0;
    else if (base.startsWith(q)) score = 1;
    else if (lower.includes(q)) score = 2;
    if (score >= 0) scored.push({ path, score });
  }
  scored.sort((a, b) => a.score - b.score || a.path.length - b.path.length || a.path.localeCompare(b.path));
  return scored.slice(0, limit).map((s) => s.path);
}
