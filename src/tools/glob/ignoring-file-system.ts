// tinyglobby crawls through an injectable `fs`. Filtering `readdir` there is what makes .gitignore
// prune the crawl: an ignored `dist/` or `.venv/` is never read at all, instead of being walked
// and filtered afterwards. Symlinks are dropped too, so a link to a directory outside the root
// cannot be crawled, and nothing outside the starting directory is ever listed.

import { readdir, type Dirent } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { FileSystemAdapter } from 'tinyglobby';
import { isInside } from '../../workspace/index.js';
import type { IgnoreRules } from '../ignore-rules.js';

type ReaddirCallback = (error: NodeJS.ErrnoException | null, entries: Dirent[]) => void;

/**
 * An `fs` for tinyglobby rooted at `base` (absolute, real), whose own entries are filtered by
 * `baseRules`. Directories below get their rules as the crawl reaches them.
 */
export function createIgnoringFileSystem(base: string, baseRules: IgnoreRules): FileSystemAdapter {
  const rulesByDirectory = new Map<string, Promise<IgnoreRules | null>>([[base, Promise.resolve(baseRules)]]);

  // null: the directory is ignored (or outside `base`) and must look empty.
  const rulesFor = (directory: string): Promise<IgnoreRules | null> => {
    const cached = rulesByDirectory.get(directory);
    if (cached) return cached;
    let pending: Promise<IgnoreRules | null>;
    if (!isInside(base, directory) || directory === dirname(directory)) {
      pending = Promise.resolve(null);
    } else {
      // tinyglobby may start below `base` (for `src/**` it reads `src/` first), so the chain
      // up to `base` is checked here rather than assumed from an earlier readdir.
      pending = rulesFor(dirname(directory)).then((parent) =>
        parent === null || parent.ignores(directory, true) ? null : parent.enter(directory),
      );
    }
    rulesByDirectory.set(directory, pending);
    return pending;
  };

  const filteredReaddir = (path: string, _options: unknown, callback: ReaddirCallback): void => {
    const directory = resolve(path);
    rulesFor(directory).then(
      (rules) => {
        if (rules === null) {
          callback(null, []);
          return;
        }
        readdir(directory, { withFileTypes: true }, (error, entries) => {
          if (error) {
            callback(error, []);
            return;
          }
          callback(
            null,
            entries.filter((entry) => !entry.isSymbolicLink() && !rules.ignores(resolve(directory, entry.name), entry.isDirectory())),
          );
        });
      },
      (error: NodeJS.ErrnoException) => callback(error, []),
    );
  };

  // fdir only ever calls readdir(path, { withFileTypes: true }, callback); the cast bridges
  // that one call shape to the overloaded Node signature the adapter type declares.
  return { readdir: filteredReaddir as unknown as NonNullable<FileSystemAdapter['readdir']> };
}
