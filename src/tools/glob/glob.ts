// glob: files matching a glob pattern, newest first, so the files the user is working on come
// before the ones nobody touched in years. Matching is tinyglobby's (picomatch semantics); what
// gets crawled is decided by the shared .gitignore rules.

import { lstatSync, realpathSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { glob } from 'tinyglobby';
import { z } from 'zod';
import { builtInSchema, loadToolDescription, ToolError, type Tool, type ToolContext, type ToolResult } from '../../agent/index.js';
import { IgnoreRules, describeRefusedIgnoreFiles } from '../ignore-rules.js';
import { resolveExisting } from '../path-policy.js';
import { isInside } from '../../workspace/index.js';
import { executionPolicy } from '../tool-session-state.js';
import { createIgnoringFileSystem } from './ignoring-file-system.js';

const globSchema = builtInSchema(
  'glob',
  z.object({
    pattern: z.string().min(1).describe('Glob pattern.'),
    path: z.string().optional().describe('Directory to search from (default: root).'),
  }),
);

export type GlobArgs = z.infer<typeof globSchema>;

export interface GlobOptions {
  /** Paths shown before a "N more" marker. */
  maxResults: number;
}

export const DEFAULT_GLOB_OPTIONS: GlobOptions = { maxResults: 1000 };

/** Files whose times are read between two turns of the event loop. */
const STATS_PER_SLICE = 2_000;

function toPosix(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/');
}

/**
 * Turn the model's pattern into one relative to the search base. An absolute pattern is accepted
 * when it lies inside the root (models often echo absolute paths back); `..` never is, since a
 * glob could otherwise climb out of the root before any path check sees a result.
 */
function normalizePattern(root: string, base: string, pattern: string): { base: string; pattern: string } {
  if (pattern.includes('\0')) throw new ToolError('INVALID_PATTERN', 'The pattern contains a NUL byte.');
  let effectiveBase = base;
  let effective = pattern;
  if (isAbsolute(pattern)) {
    if (!isInside(root, pattern)) {
      throw new ToolError('PATH_OUTSIDE_ROOT', `The pattern ${pattern} points outside the project root ${root}.`);
    }
    effectiveBase = root;
    effective = toPosix(relative(root, pattern));
  }
  if (effective.split('/').includes('..')) {
    const climbs = toPosix(relative(root, resolve(effectiveBase, effective))).split('/')[0] === '..';
    if (climbs) {
      throw new ToolError('PATH_OUTSIDE_ROOT', `The pattern ${pattern} climbs out of the project root.`);
    }
    throw new ToolError('INVALID_PATTERN', `The pattern ${pattern} contains "..". Set path to the directory to search from instead.`);
  }
  while (effective.startsWith('./')) effective = effective.slice(2);
  if (effective === '' || effective === '.') effective = '**/*';
  return { base: effectiveBase, pattern: effective };
}

/**
 * Modification times of the matches that really lie inside the root (and how many a permission
 * rule hides under their real path). tinyglobby crawls from a pattern's literal prefix even when
 * that prefix is a symlink (`link-to-outside/*`), so a path that looks inside can name a file
 * elsewhere; those are left out like vanished files. Each match gets its own real path, asked
 * just before its stat: a real path remembered per directory would go stale if the directory is
 * swapped for a link to outside while the matches are read (and between two slices the event loop
 * turns), and the stat through it would then report outside files, their names too when the crawl
 * itself read through the link. Synchronous calls in slices: a thousand awaited realpath + stat
 * pairs cost several times as much (libuv's four threads, a promise each) as the same calls made
 * directly.
 */
async function modificationTimes(
  paths: string[],
  root: string,
  hidden: ((absolutePath: string) => boolean) | undefined,
  signal: AbortSignal,
): Promise<{ times: Map<string, number>; hiddenCount: number }> {
  const times = new Map<string, number>();
  let hiddenCount = 0;
  for (let index = 0; index < paths.length; index += 1) {
    if (index % STATS_PER_SLICE === 0) {
      if (index > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      signal.throwIfAborted();
    }
    const path = paths[index]!;
    try {
      const real = realpathSync.native(path);
      if (!isInside(root, real)) continue;
      // A link inside the root (`alias -> secrets`) must not show what a rule hides under its real name.
      if (real !== path && hidden?.(real) === true) {
        hiddenCount += 1;
        continue;
      }
      // lstat, not stat: the real path has no links left, so one found here was swapped in since.
      times.set(path, lstatSync(real).mtimeMs);
    } catch {
      // Deleted between the crawl and now: leave it out.
    }
  }
  return { times, hiddenCount };
}

export function createGlobTool(options: GlobOptions = DEFAULT_GLOB_OPTIONS): Tool<GlobArgs> {
  return {
    name: 'glob',
    description: loadToolDescription(new URL('./glob.md', import.meta.url)),
    schema: globSchema,
    readOnly: true,
    strict: false,
    access: (args, context) => ({ kind: 'read', paths: [resolve(context.root, args.path ?? '.')] }),
    async execute(args: GlobArgs, context: ToolContext): Promise<ToolResult> {
      const { root, signal } = context;
      signal.throwIfAborted();
      const requested = await resolveExisting(root, args.path ?? '.');
      if (!(await stat(requested.absolute)).isDirectory()) {
        throw new ToolError('NOT_A_DIRECTORY', `${args.path} is a file, not a directory to search in.`);
      }
      const { base, pattern } = normalizePattern(root, requested.absolute, args.pattern);
      const { rules } = await IgnoreRules.load(root, base);
      let found: string[];
      try {
        found = await glob(pattern, {
          cwd: base,
          dot: true,
          followSymbolicLinks: false,
          expandDirectories: false,
          onlyFiles: true,
          fs: createIgnoringFileSystem(base, rules),
          signal,
        });
      } catch (error) {
        signal.throwIfAborted();
        throw error;
      }
      signal.throwIfAborted();
      // The filtered fs keeps the crawl inside `base`; this and the real-path check below are the backstop.
      const inside = found.map((path) => resolve(base, path)).filter((path) => isInside(base, path));
      // The decision saw only the directory: names a deny or ask rule covers stay out, as in grep.
      const hidden = executionPolicy(context).hiddenPath;
      const absolutes = hidden === undefined ? inside : inside.filter((path) => !hidden(path));
      const { times, hiddenCount } = await modificationTimes(absolutes, root, hidden, signal);
      const hiddenTotal = inside.length - absolutes.length + hiddenCount;
      const hiddenNote =
        hiddenTotal > 0
          ? `[${hiddenTotal} matching ${hiddenTotal === 1 ? 'file is' : 'files are'} left out: a permission rule covers ${hiddenTotal === 1 ? 'it' : 'them'}.]`
          : null;
      const ranked = absolutes
        .filter((path) => times.has(path))
        .map((path) => ({ path: toPosix(relative(root, path)), mtimeMs: times.get(path) ?? 0 }))
        .sort((a, b) => b.mtimeMs - a.mtimeMs || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      const refusedNote = describeRefusedIgnoreFiles(rules.refused);
      if (ranked.length === 0) {
        const where = requested.relative === '.' ? 'the project root' : requested.relative;
        const none = `No files matched ${args.pattern} in ${where} (files ignored by .gitignore, .git and node_modules are skipped).`;
        return { output: [none, hiddenNote, refusedNote].filter((line) => line !== null).join('\n') };
      }
      const shown = ranked.slice(0, options.maxResults).map((entry) => entry.path);
      if (ranked.length > shown.length) {
        shown.push(
          `[Showing ${shown.length} of ${ranked.length} matching files, newest first; ${ranked.length - shown.length} more not shown. Narrow the pattern or set path.]`,
        );
      }
      if (hiddenNote !== null) shown.push(hiddenNote);
      if (refusedNote !== null) shown.push(refusedNote);
      return { output: shown.join('\n') };
    },
  };
}
