// list_dir: one directory's entries, directories first. Gitignored entries are listed like any
// other (the model may need to know `dist/` exists); only `.git` is hidden, and directories show
// how many entries they hold instead of their contents, so `node_modules/` costs one line.

import type { Dirent } from 'node:fs';
import { lstat, readdir, readlink, realpath, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { builtInSchema, loadToolDescription, ToolError, type Tool, type ToolContext, type ToolResult } from '../../agent/index.js';
import { resolveExisting } from '../path-policy.js';
import { isInside } from '../../workspace/index.js';
import { executionPolicy } from '../tool-session-state.js';

const listDirSchema = builtInSchema(
  'list_dir',
  z.object({
    path: z.string().optional().describe('Relative to the project root (default: the root).'),
  }),
);

export type ListDirArgs = z.infer<typeof listDirSchema>;

export interface ListDirOptions {
  /** Entries shown before a "N more" marker. */
  maxEntries: number;
}

export const DEFAULT_LIST_DIR_OPTIONS: ListDirOptions = { maxEntries: 500 };

const HIDDEN_NAMES = new Set(['.git']);

function countOf(count: number, singular: string, pluralForm: string): string {
  return `${count} ${count === 1 ? singular : pluralForm}`;
}

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

function byName(a: Dirent, b: Dirent): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

async function countEntries(directory: string): Promise<string> {
  try {
    return countOf((await readdir(directory)).length, 'entry', 'entries');
  } catch {
    return 'unreadable';
  }
}

async function describeSymlink(root: string, path: string): Promise<string> {
  let target: string;
  try {
    target = await readlink(path);
  } catch {
    return '@';
  }
  let note: string;
  try {
    const real = await realpath(path);
    if (!isInside(root, real)) note = 'outside the project root';
    else note = (await stat(real)).isDirectory() ? 'directory' : 'file';
  } catch {
    note = 'broken';
  }
  return `@ -> ${target} (${note})`;
}

async function describeEntry(root: string, directory: string, entry: Dirent): Promise<string> {
  const path = join(directory, entry.name);
  if (entry.isDirectory()) return `${entry.name}/ (${await countEntries(path)})`;
  if (entry.isSymbolicLink()) return `${entry.name}${await describeSymlink(root, path)}`;
  if (entry.isFile()) {
    try {
      return `${entry.name} (${formatSize((await lstat(path)).size)})`;
    } catch {
      return `${entry.name} (vanished)`;
    }
  }
  const kind = entry.isFIFO() ? 'pipe' : entry.isSocket() ? 'socket' : 'device';
  return `${entry.name} (${kind})`;
}

export function createListDirTool(options: ListDirOptions = DEFAULT_LIST_DIR_OPTIONS): Tool<ListDirArgs> {
  return {
    name: 'list_dir',
    description: loadToolDescription(new URL('./list-dir.md', import.meta.url)),
    schema: listDirSchema,
    readOnly: true,
    strict: false,
    access: (args, context) => ({ kind: 'read', paths: [resolve(context.root, args.path ?? '.')] }),
    async execute(args: ListDirArgs, context: ToolContext): Promise<ToolResult> {
      context.signal.throwIfAborted();
      const input = args.path ?? '.';
      const resolved = await resolveExisting(context.root, input);
      if (!(await stat(resolved.absolute)).isDirectory()) {
        throw new ToolError('NOT_A_DIRECTORY', `${input} is not a directory. Use read_file to read a file.`);
      }
      const listed = (await readdir(resolved.absolute, { withFileTypes: true })).filter((entry) => !HIDDEN_NAMES.has(entry.name));
      // The decision saw only this directory: entries a deny or ask rule covers stay out, as in grep.
      const hidden = executionPolicy(context).hiddenPath;
      const entries = hidden === undefined ? listed : listed.filter((entry) => !hidden(join(resolved.absolute, entry.name)));
      const hiddenCount = listed.length - entries.length;
      const directories = entries.filter((entry) => entry.isDirectory()).sort(byName);
      const others = entries.filter((entry) => !entry.isDirectory()).sort(byName);
      const ordered = [...directories, ...others];
      const shown = ordered.slice(0, options.maxEntries);
      const lines: string[] = [];
      // Sequential on purpose: a few hundred lstat calls are fast, and the signal is checked between them.
      for (const entry of shown) {
        context.signal.throwIfAborted();
        lines.push(await describeEntry(context.root, resolved.absolute, entry));
      }
      const label = resolved.relative === '.' ? '. (project root)' : `${resolved.relative}/`;
      const hiddenNote =
        hiddenCount === 0
          ? null
          : `(${countOf(hiddenCount, 'entry', 'entries')} left out: a permission rule covers ${hiddenCount === 1 ? 'it' : 'them'}.)`;
      if (ordered.length === 0) return { output: hiddenNote === null ? `${label}: (empty directory)` : `${label}: ${hiddenNote}` };
      const symlinks = others.filter((entry) => entry.isSymbolicLink()).length;
      const counts = [countOf(directories.length, 'directory', 'directories'), countOf(others.length - symlinks, 'file', 'files')];
      if (symlinks > 0) counts.push(countOf(symlinks, 'symlink', 'symlinks'));
      const header = `${label}: ${counts.join(', ')}`;
      if (ordered.length > shown.length) {
        lines.push(`... ${ordered.length - shown.length} more entries not shown. Use glob to look for specific files.`);
      }
      if (hiddenNote !== null) lines.push(hiddenNote);
      return { output: [header, ...lines].join('\n') };
    },
  };
}
