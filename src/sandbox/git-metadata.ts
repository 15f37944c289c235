// Git metadata a sandboxed command must not plant. In workspace-write the project is writable, and
// bubblewrap cannot forbid creating a name: a command could `git init vendor/lib` and set
// `core.fsmonitor` there, and the next `git status` in that directory (by the user, an IDE, or
// Glassbox) would run it on the host. A `write_file` to the same path needs approval, so the
// sandbox must not be the easier way. Before a workspace-write command runs, every existing git
// directory in the project is found (and frozen read-only by the caller); afterwards the project
// is walked again, and whatever git metadata the command created is quarantined: a `.git` entry is
// renamed, and a directory git would take for a repository of its own (a bare one) has its `HEAD`
// renamed. Nothing is deleted.
//
// "Created" is decided by identity (device and inode), not by path: a frozen repository that a
// command moved (by renaming a directory above it) is still the frozen one, and a new `.git` put
// where the old one was is new. What a new git directory holds is walked too, since a repository
// can hold another one. A walk that cannot see everything (its entry budget ran out, a directory
// it may not read could hold what the command made) says so in `incomplete`: the caller then
// treats the tree as planted (run-command.ts).

import { constants } from 'node:fs';
import { access, lstat, rename } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { foldFileName, isGitMetadataName } from '../workspace/index.js';
import { type DirectoryLister, directoryListings, type ListedEntry, perListing } from './directory-listings.js';

export const QUARANTINE_SUFFIX = '.glassbox-quarantine';
/** Entries the walk before a command reads at most, and how many more the walk after it may read. */
export const DEFAULT_MAX_ENTRIES = 200_000;
/** Directories read at once: enough to keep the disk busy, few enough to bound open descriptors. */
const CONCURRENCY = 64;

export interface GitMetadataScan {
  /** `.git` entries (directory, file or symlink, any spelling a file system folds to it): path → identity. */
  dotGit: Map<string, string>;
  /**
   * The project's `.glassbox` (any case), which can name MCP servers, i.e. programs Glassbox
   * starts on the host: guarded like git metadata (frozen if present, quarantined if created).
   */
  projectConfig: { path: string; identity: string } | null;
  /** Directories git would take for a repository of their own (bare): path → identity and their `HEAD` entries. */
  bareLookalikes: Map<string, BareLookalike>;
  /** Why the walk did not see the whole project, or null when it did. */
  incomplete: string | null;
  /** Directories not read because the budget ran out: nothing below them was seen. */
  unlisted: Set<string>;
  /** Directory entries read. */
  entries: number;
}

export interface BareLookalike {
  identity: string;
  /** The entries git would read as `HEAD` (the name in any case): renaming them is what disarms it. */
  heads: string[];
}

export interface ScanOptions {
  /** Entries read at most (after a command: more than the walk before it read). Default 200,000. */
  maxEntries?: number;
  /**
   * The walk before the command. Its git directories were frozen, so only the others are entered;
   * its unlisted directories are not entered either (nothing to compare them with).
   */
  before?: GitMetadataScan;
  /** How directories are listed (default: the process's cached listings, directory-listings.ts). */
  lister?: DirectoryLister;
}

export interface QuarantinedGitMetadata {
  /** What the command created. */
  path: string;
  /** Where it is now (the renamed `.git`, or the renamed `HEAD` of a bare look-alike). */
  movedTo: string;
}

export interface QuarantineResult {
  quarantined: QuarantinedGitMetadata[];
  /** Metadata the command created that could not be renamed (it is still usable), with why. */
  failed: string[];
}

/** First letters (lower case) of the folded names the walk looks for: `.git`, `git~1`, `.glassbox`, `head`, `refs`, `commondir`. */
const INTERESTING_FIRST = new Set(['.', 'g', 'h', 'r', 'c']);

/**
 * The name as the walk compares it, or null when it cannot be one it looks for. Most names are
 * ASCII and start with another letter, so the full fold (with its expressions) is skipped for them:
 * the code points HFS+ ignores are not ASCII, so an ASCII first letter stays first when folded.
 */
function interestingName(name: string): string | null {
  const first = name.charCodeAt(0);
  if (first < 128 && !INTERESTING_FIRST.has(String.fromCharCode(first).toLowerCase())) return null;
  return foldFileName(name);
}

interface Classified {
  /** Entries git would read as `HEAD`. */
  heads: string[];
  /** A `refs` or `commondir` entry is there. */
  refs: boolean;
  /** Entries that are git metadata, a `.glassbox`, or directories (the rest are of no interest). */
  candidates: { entry: ListedEntry; gitName: boolean; glassboxName: boolean }[];
}

/** What the walk needs from a listing, found once per listing. */
const classify = perListing((entries): Classified => {
  const result: Classified = { heads: [], refs: false, candidates: [] };
  for (const entry of entries) {
    const folded = interestingName(entry.name);
    if (folded === 'head' && !entry.isDirectory()) result.heads.push(entry.name);
    else if (folded === 'refs' || folded === 'commondir') result.refs = true;
    const gitName = folded !== null && isGitMetadataName(entry.name);
    const glassboxName = folded === '.glassbox';
    if (gitName || glassboxName || entry.isDirectory()) result.candidates.push({ entry, gitName, glassboxName });
  }
  return result;
});

function identityOf(info: { dev: number; ino: number }): string {
  return `${info.dev}:${info.ino}`;
}

async function identify(path: string): Promise<string> {
  // Gone since it was listed: an identity nothing shares, so it counts as new if it reappears.
  return lstat(path).then(identityOf, () => `missing:${path}`);
}

/**
 * Whether a directory that could not be read may still hold what a command created. Only its owner
 * can change its mode, so the command cannot have made someone else's directory unreadable; and if
 * we cannot even enter it (no search permission), neither could the command, nor reach anything
 * below it. Anything else we cannot list may hide a new `.git`.
 */
async function couldHoldNewEntries(directory: string): Promise<boolean> {
  const info = await lstat(directory).catch((error: NodeJS.ErrnoException) => (error.code === 'EACCES' ? 'unsearchable' : null));
  // Not even lstat-able: the directory above it (which the walk listed) may not be searched, and
  // if it is ours the command could have taken that permission away (`chmod 644`) after planting.
  if (info === 'unsearchable') return (await lstat(dirname(directory)).catch(() => null))?.uid === process.getuid?.();
  if (info === null || !info.isDirectory()) return false;
  if (info.uid === process.getuid?.()) return true;
  return access(directory, constants.X_OK).then(
    () => true,
    () => false,
  );
}

/**
 * Every git directory in the project, `node_modules` included (a dependency checked out from git
 * is a repository too). Before a command nothing inside a git directory is entered (it is frozen
 * for the command); after it, new ones are. Symlinked directories are not followed: a symlink
 * inside the project points at something the walk reaches anyway, and the sandbox cannot write
 * outside the project.
 */
export async function scanGitMetadata(root: string, options: ScanOptions = {}): Promise<GitMetadataScan> {
  const { before } = options;
  const lister = options.lister ?? directoryListings;
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
  const budget = before === undefined ? maxEntries : before.entries + maxEntries;
  const scan: GitMetadataScan = {
    dotGit: new Map(),
    bareLookalikes: new Map(),
    projectConfig: null,
    incomplete: before?.incomplete ?? null,
    unlisted: new Set(),
    entries: 0,
  };
  const known = before === undefined ? null : knownIdentities(before);
  const queue: string[] = [root];
  let next = 0;

  const visit = async (directory: string): Promise<void> => {
    let entries: readonly ListedEntry[];
    try {
      entries = await lister.list(directory);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      // Gone, or no longer a directory: nothing below it to find.
      if (code === 'ENOENT' || code === 'ENOTDIR') return;
      if ((code === 'EACCES' || code === 'EPERM') && !(await couldHoldNewEntries(directory))) return;
      scan.incomplete ??= `${directory} could not be read (${code})`;
      return;
    }
    scan.entries += entries.length;
    // Git's own test for a repository directory (`is_git_directory`), widened, and checked against
    // real git in test/security/planted-git-metadata.test.ts: a `HEAD` that is a file or a symlink
    // (a symlink into `refs/` counts even when it dangles), then `objects` and `refs` of any kind
    // git can enter (a symlink to a directory elsewhere, an executable file), or neither here when
    // a `commondir` file sends git elsewhere for them. `objects` is not required at all, since
    // `GIT_OBJECT_DIRECTORY` can stand in for it. Names are compared folded (a case-insensitive volume).
    const { heads, refs, candidates } = classify(entries);
    const special: { entry: ListedEntry; isConfig: boolean }[] = [];
    const subdirectories: ListedEntry[] = [];
    for (const { entry, gitName, glassboxName } of candidates) {
      const isConfig = directory === root && glassboxName;
      if (isConfig || gitName) special.push({ entry, isConfig });
      else if (entry.isDirectory()) subdirectories.push(entry);
    }
    if (heads.length > 0 && refs) {
      const identity = await identify(directory);
      scan.bareLookalikes.set(directory, { identity, heads: [...heads] });
      // Before a command it is frozen from now on; a known one after it is still frozen. Only a
      // new one is entered, since what it holds is new as well.
      if (known === null || known.has(identity)) return;
    }
    for (const { entry, isConfig } of special) {
      const path = join(directory, entry.name);
      const identity = await identify(path);
      if (isConfig) scan.projectConfig = { path, identity };
      else scan.dotGit.set(path, identity);
      if (entry.isDirectory() && known !== null && !known.has(identity)) queue.push(path);
    }
    for (const entry of subdirectories) {
      const path = join(directory, entry.name);
      if (before?.unlisted.has(path)) scan.unlisted.add(path);
      else queue.push(path);
    }
  };

  await new Promise<void>((resolve, reject) => {
    let active = 0;
    const pump = (): void => {
      while (active < CONCURRENCY && next < queue.length) {
        const directory = queue[next++]!;
        if (scan.entries >= budget) {
          scan.unlisted.add(directory);
          scan.incomplete ??=
            before === undefined
              ? `the project holds more than ${maxEntries.toLocaleString('en-US')} entries`
              : `the command added more than ${maxEntries.toLocaleString('en-US')} entries`;
          continue;
        }
        active += 1;
        visit(directory).then(() => {
          active -= 1;
          pump();
        }, reject);
      }
      if (active === 0 && next >= queue.length) resolve();
    };
    pump();
  });
  return scan;
}

/** The identities of every git directory, look-alike and project config a scan found. */
function knownIdentities(scan: GitMetadataScan): Set<string> {
  const identities = new Set<string>(scan.dotGit.values());
  for (const lookalike of scan.bareLookalikes.values()) identities.add(lookalike.identity);
  if (scan.projectConfig !== null) identities.add(scan.projectConfig.identity);
  return identities;
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

interface Planted {
  path: string;
  /** Renamed in this order; the first one is what the report names as where it went. */
  targets: string[];
}

/**
 * Renames what `after` has and `before` had not (by identity). A new `.git` directory that is a
 * repository of its own loses its `HEAD` as well, so the renamed directory is not one either.
 * Deeper entries go first, so a rename never moves what is still to be renamed. Returns what was
 * moved, in path order, and what could not be.
 */
export async function quarantineNewGitMetadata(before: GitMetadataScan, after: GitMetadataScan): Promise<QuarantineResult> {
  const known = knownIdentities(before);
  const planted: Planted[] = [];
  const headsOf = (path: string): string[] => (after.bareLookalikes.get(path)?.heads ?? []).map((head) => join(path, head));
  for (const [path, identity] of after.dotGit) {
    if (!known.has(identity)) planted.push({ path, targets: [path, ...headsOf(path)] });
  }
  for (const [path, lookalike] of after.bareLookalikes) {
    if (!known.has(lookalike.identity) && !after.dotGit.has(path)) planted.push({ path, targets: headsOf(path) });
  }
  if (after.projectConfig !== null && !known.has(after.projectConfig.identity)) {
    planted.push({ path: after.projectConfig.path, targets: [after.projectConfig.path] });
  }
  const renames = planted
    .flatMap((item) => item.targets.map((target, index) => ({ item, target, index })))
    .sort((a, b) => (a.target < b.target ? 1 : a.target > b.target ? -1 : 0));
  const movedTo = new Map<Planted, string>();
  const failed = new Map<Planted, string>();
  for (const { item, target, index } of renames) {
    try {
      const destination = await freeName(target);
      await rename(target, destination);
      if (index === 0) movedTo.set(item, destination);
    } catch (error) {
      failed.set(item, `${target} could not be renamed: ${(error as Error).message}`);
    }
  }
  const quarantined = [...movedTo]
    .map(([item, destination]) => ({ path: item.path, movedTo: destination }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { quarantined, failed: [...failed.values()].sort() };
}
