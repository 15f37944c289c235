// How each built-in tool presents its calls (see tool-presentation.ts): one entry per tool, keyed
// by its name, read by the web workbench, the terminal and the tools alike. A new tool adds its
// entry here; without one its calls read "Called <name>" and it writes nothing the faces track.

import { capped, patchRows, projectRelative, rowsOf } from './change-rows.js';
import { patchPaths, patchTargets } from './patch-targets.js';
import { checklistOf } from './plan-checklist.js';
import type { ActionPhrase, ToolPresentation } from './tool-presentation.js';

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

function firstLine(command: string, max = 120): string {
  const line = command.trim().split('\n')[0] ?? '';
  const multi = command.trim().includes('\n');
  if (line.length > max) return `${line.slice(0, max - 1)}…`;
  return multi ? `${line} …` : line;
}

function inPath(path: string | null): string {
  return path === null || path === '.' || path === './' ? '' : ` in ${path}`;
}

function listFiles(paths: string[]): string {
  if (paths.length <= 3) return paths.join(', ');
  return `${paths.slice(0, 2).join(', ')} and ${paths.length - 2} more`;
}

function patchPhrase(patch: string, done: boolean): ActionPhrase {
  const { added, updated, deleted } = patchTargets(patch);
  const groups = [
    { verb: done ? 'Edited' : 'Edit', paths: updated },
    { verb: done ? 'Created' : 'Create', paths: added },
    { verb: done ? 'Deleted' : 'Delete', paths: deleted },
  ].filter((group) => group.paths.length > 0);
  if (groups.length === 0) return { verb: done ? 'Applied a patch' : 'Apply a patch', subject: '', style: 'plain', detail: '' };
  if (groups.length === 1) return { verb: groups[0]!.verb, subject: listFiles(groups[0]!.paths), style: 'path', detail: '' };
  const all = [...updated, ...added, ...deleted];
  return { verb: done ? 'Patched' : 'Patch', subject: listFiles(all), style: 'path', detail: '' };
}

const pathOf = (args: Record<string, unknown>): string[] => (typeof args.path === 'string' ? [args.path] : []);

export const TOOL_PRESENTATIONS: Readonly<Record<string, ToolPresentation>> = {
  read_file: {
    title: 'Read file',
    phrase(args) {
      const offset = typeof args.offset === 'number' ? args.offset : null;
      const limit = typeof args.limit === 'number' ? args.limit : null;
      let detail = '';
      if (offset !== null && limit !== null) detail = ` (lines ${offset}–${offset + limit - 1})`;
      else if (offset !== null) detail = ` (from line ${offset})`;
      else if (limit !== null) detail = ` (first ${limit} lines)`;
      return { verb: 'Read', subject: text(args.path) ?? '?', style: 'path', detail };
    },
  },
  list_dir: {
    title: 'List directory',
    phrase(args, done) {
      const path = text(args.path);
      if (path === null || path === '.')
        return { verb: done ? 'Listed the project root' : 'List the project root', subject: '', style: 'plain', detail: '' };
      return { verb: done ? 'Listed' : 'List', subject: path, style: 'path', detail: '' };
    },
  },
  skill: {
    title: 'Skill',
    phrase(args, done) {
      const file = text(args.file);
      if (file !== null) return { verb: 'Read', subject: file, style: 'path', detail: ` of skill ${text(args.name) ?? '?'}` };
      return { verb: done ? 'Loaded skill' : 'Load skill', subject: text(args.name) ?? '?', style: 'plain', detail: '' };
    },
  },
  glob: {
    title: 'Find files',
    phrase: (args, done) => ({
      verb: done ? 'Found files matching' : 'Find files matching',
      subject: text(args.pattern) ?? '?',
      style: 'quote',
      detail: inPath(text(args.path)),
    }),
  },
  grep: {
    title: 'Search file contents',
    phrase(args, done) {
      const glob = text(args.glob);
      return {
        verb: done ? 'Searched for' : 'Search for',
        subject: text(args.pattern) ?? '?',
        style: 'quote',
        detail: `${inPath(text(args.path))}${glob === null ? '' : ` (${glob})`}`,
      };
    },
  },
  write_file: {
    title: 'Write file',
    phrase: (args, done) => ({ verb: done ? 'Wrote' : 'Write', subject: text(args.path) ?? '?', style: 'path', detail: '' }),
    writes: pathOf,
    changes(args, root) {
      if (typeof args.path !== 'string' || typeof args.content !== 'string') return null;
      const rows = rowsOf(args.content, 'add');
      const lines = `${rows.length} line${rows.length === 1 ? '' : 's'}`;
      return {
        paths: [projectRelative(args.path, root)],
        note: `Writes the whole file (${lines}); an existing file is replaced.`,
        rows: capped(rows),
      };
    },
  },
  edit_file: {
    title: 'Edit file',
    phrase: (args, done) => ({
      verb: done ? 'Edited' : 'Edit',
      subject: text(args.path) ?? '?',
      style: 'path',
      detail: args.replace_all === true ? ' (every match)' : '',
    }),
    writes: pathOf,
    changes(args, root) {
      if (typeof args.path !== 'string' || typeof args.old_string !== 'string' || typeof args.new_string !== 'string') return null;
      const note =
        args.replace_all === true ? 'Replaces every occurrence of the old text.' : 'Replaces the one occurrence of the old text.';
      const rows = [...rowsOf(args.old_string, 'del'), ...rowsOf(args.new_string, 'add')];
      return { paths: [projectRelative(args.path, root)], note, rows: capped(rows) };
    },
  },
  apply_patch: {
    title: 'Apply patch',
    phrase: (args, done) => patchPhrase(text(args.patch) ?? '', done),
    writes: (args) => (typeof args.patch === 'string' ? patchPaths(args.patch) : []),
    changes(args, root) {
      if (typeof args.patch !== 'string') return null;
      const { paths, rows } = patchRows(args.patch, root);
      return { paths, note: `Patches ${paths.length} file${paths.length === 1 ? '' : 's'}.`, rows: capped(rows) };
    },
  },
  update_plan: {
    title: 'Plan',
    phrase(args, done) {
      const plan = checklistOf(args);
      if (plan === null) return { verb: done ? 'Updated the plan' : 'Update the plan', subject: '', style: 'plain', detail: '' };
      const completed = plan.steps.filter((step) => step.status === 'completed').length;
      return {
        verb: done ? 'Updated the plan' : 'Update the plan',
        subject: '',
        style: 'plain',
        detail: ` (${completed} of ${plan.steps.length} done)`,
      };
    },
    checklist: checklistOf,
  },
  shell: {
    title: 'Run command',
    phrase(args, done) {
      // Some models send the command as an argv array; it still reads as one line.
      const command = Array.isArray(args.command) ? args.command.map(String).join(' ') : text(args.command);
      return { verb: done ? 'Ran' : 'Run', subject: firstLine(command ?? '?'), style: 'code', detail: '' };
    },
  },
};

/** A tool without an entry (an MCP server's, a made-up name): its name, and no files it writes. */
function unknownTool(name: string): ToolPresentation {
  return {
    title: name,
    phrase: (_args, done) => ({ verb: done ? `Called ${name}` : `Call ${name}`, subject: '', style: 'plain', detail: '' }),
  };
}

export function presentationOf(name: string): ToolPresentation {
  return Object.hasOwn(TOOL_PRESENTATIONS, name) ? TOOL_PRESENTATIONS[name]! : unknownTool(name);
}

/** The files a call writes, as the model named them ([] for a tool that writes none, or bad arguments). */
export function writtenPaths(name: string, args: Record<string, unknown> | null): string[] {
  if (args === null) return [];
  return presentationOf(name).writes?.(args) ?? [];
}
