// One short line per tool call: what it touches, read from its JSON arguments, so the transcript
// shows `read_file src/app.ts` rather than a blob of JSON. Unknown tools show their first string
// argument; arguments that are not JSON (a model's mistake) are shown raw, clipped.

import { oneLine } from '../terminal-text/index.js';

const MAIN_ARGUMENT: Record<string, string> = {
  read_file: 'path',
  write_file: 'path',
  edit_file: 'path',
  list_dir: 'path',
  glob: 'pattern',
  grep: 'pattern',
  shell: 'command',
};

export function parseArguments(raw: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(raw) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Files an apply_patch patch names (`*** Add/Update/Delete File: path`). */
export function patchFiles(patch: string): string[] {
  const files: string[] = [];
  for (const match of patch.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm)) files.push(match[1]!.trim());
  return files;
}

export function toolCallSummary(name: string, rawArguments: string, max = 200): string {
  const args = parseArguments(rawArguments);
  if (args === null) return oneLine(rawArguments, max);
  if (name === 'apply_patch' && typeof args.patch === 'string') return oneLine(patchFiles(args.patch).join(', ') || 'patch', max);
  if (name === 'shell' && Array.isArray(args.command)) return oneLine(args.command.map(String).join(' '), max);
  const key = MAIN_ARGUMENT[name];
  const value = key !== undefined ? args[key] : Object.values(args).find((v) => typeof v === 'string');
  return typeof value === 'string' ? oneLine(value, max) : oneLine(rawArguments, max);
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  return `${Math.floor(ms / 60_000)}m${Math.round((ms % 60_000) / 1000)}s`;
}
