// Git metadata a sandboxed command must not plant. In workspace-write the project is writable, and
// bubblewrap cannot forbid creating a name: a command could `git init vendor/lib` and set
// `core.fsmonitor` there, and the next `git status` in that directory (by the user, an IDE, or
// Glassbox) would run it on the host. A `write_file` to the same path needs approval, so the
// sandbox must not be the easier way. Before a workspace-write command runs, every existing git
// directory in the project is found (and frozen read-only by the caller); afterwards the project
// is walked again, and whatever git metadata the command created is quarantined: a `.git` entry is
// renamed, and a directory made to look like a bare repository (`HEAD`, `objects/`, `refs/`, which
// git discovers when run inside it) has its `HEAD` renamed. Nothing is deleted.

import { lstat, readdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { isGitMetadataName } from '../workspace/index.js';

export const QUARANTINE_SUFFIX = '.glassbox-quarantine';
const DEFAULT_MAX_ENTRIES = 200_000;

export interface GitMetadataScan {
  /** `.git` entries (directory, file or symlink) by absolute path. */
  dotGit: Set<string>;
  /**
   * The project's `.glassbox` (any case), which can name MCP servers, i.e. programs Glassbox
   * starts on the host: guarded like git metadata (frozen if present, quarantined if created).
   */
  projectConfig: string | null;
  /** Directories that git would take for a bare repository. */
  bareLookalikes: Set<string>;
  /** The walk stopped at its entry cap, so something may have been missed. */
  truncated: boolean;
}

export interface QuarantinedGitMetadata {
  /** What the command created. */
  path: string;
  /** Where it is now (the renamed `.git`, or the renamed `HEAD` of a bare look-alike). */
  movedTo: string;
}

/**
 * Every git directory in the project, `node_modules` included (a dependency checked out from git
 * is a repository too), without descending into one. Directories are read level by level, in
 * parallel; symlinked directories are not followed.
 */
export async function scanGitMetadata(root: string, maxEntries = DEFAULT_MAX_ENTRIES): Promise<GitMetadataScan> {
  const scan: GitMetadataScan = { dotGit: new Set(), bareLookalikes: new Set(), projectConfig: null, truncated: false };
  let visited = 0;
  let level = [root];
  while (level.length > 0 && !scan.truncated) {
    const next: string[] = [];
    await Promise.all(
      level.map(async (directory) => {
        const entries = await readdir(directory, { withFileTypes: true }).catch(() => null);
        if (entries === null) return;
        visited += entries.length;
        if (visited > maxEntries) scan.truncated = true;
        const names = new Map(entries.map((entry) => [entry.name, entry]));
        if (names.get('HEAD')?.isFile() && names.get('objects')?.isDirectory() && names.get('refs')?.isDirectory()) {
          scan.bareLookalikes.add(directory);
          return;
        }
        for (const entry of entries) {
          const path = join(directory, entry.name);
          if (directory === root && entry.name.toLowerCase() === '.glassbox') {
            scan.projectConfig = path;
            continue;
          }
          if (isGitMetadataName(entry.name)) scan.dotGit.add(path);
          else if (entry.isDirectory()) next.push(path);
        }
      }),
    );
    level = next;
  }
  return scan;
}

async function freeName(path: string): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    const candidate = attempt === 1 ? `${path}${QUARANTINE_SUFFIX}` : `${path}${QUARANTINE_SUFFIX}-${attempt}`;
    const taken = await lstat(candidate).then(
      () => true,
      () => false,
    );
    if (!taken) return candidate;
  }
}

/** Renames what `after` has and `before` had not. Returns what was moved, in path order. */
export async function quarantineNewGitMetadata(before: GitMetadataScan, after: GitMetadataScan): Promise<QuarantinedGitMetadata[]> {
  const moved: QuarantinedGitMetadata[] = [];
  const created = [
    ...[...after.dotGit].filter((path) => !before.dotGit.has(path)).map((path) => ({ path, target: path })),
    ...[...after.bareLookalikes].filter((path) => !before.bareLookalikes.has(path)).map((path) => ({ path, target: join(path, 'HEAD') })),
    ...(after.projectConfig !== null && before.projectConfig === null ? [{ path: after.projectConfig, target: after.projectConfig }] : []),
  ].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const { path, target } of created) {
    const movedTo = await freeName(target);
    await rename(target, movedTo);
    moved.push({ path, movedTo });
  }
  return moved;
}
