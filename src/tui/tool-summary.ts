// One short line per tool call: what it touches, read from its JSON arguments, so the transcript
// shows `read_file src/app.ts` rather than a blob of JSON. Unknown tools show their first string
// argument; arguments that are not JSON (a model's mistake) are shown raw, clipped.

import { oneLine } from '../terminal-text/index.js';
import { argumentsObject, patchTargets } from '../views/index.js';

/** The files a patch names, in the order the tool applies them. */
function patchFileList(patch: string): string[] {
  const { added, updated, deleted } = patchTargets(patch);
  return [...updated, ...added, ...deleted];
}

const MAIN_ARGUMENT: Record<string, string> = {
  read_file: 'path',
  write_file: 'path',
  edit_file: 'path',
  list_dir: 'path',
  glob: 'pattern',
  grep: 'pattern',
  shell: 'command',
};

export function toolCallSummary(name: string, rawArguments: string, max = 200): string {
  const args = argumentsObject(rawArguments);
  if (args === null) return oneLine(rawArguments, max);
  if (name === 'apply_patch' && typeof args.patch === 'string') return oneLine(patchFileList(args.patch).join(', ') || 'patch', max);
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
