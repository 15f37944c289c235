// `/diff`: what the agent changed in the workspace during this session. Before a write tool runs
// (at `tool_requested`, which comes before permission and execution) the file's content is kept
// as the baseline the first time the session touches it; `/diff` compares each baseline with the
// file now. Commands run through `shell` can change files too: those are not tracked, and /diff
// says so rather than pretending to be complete (git status is the tool for that).

import { readFileSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { diffLines } from './approval-preview.js';
import { parseArguments, patchFiles } from './tool-summary.js';

const MAX_BASELINE_BYTES = 1024 * 1024;
const WRITE_TOOLS = new Set(['write_file', 'edit_file', 'apply_patch']);

type Baseline = { kind: 'absent' } | { kind: 'text'; text: string } | { kind: 'unreadable'; why: string };

export interface FileChange {
  path: string;
  /** Unified diff lines; empty when the file is as it was. */
  lines: string[];
  status: 'added' | 'modified' | 'deleted' | 'unchanged' | 'unknown';
}

export class WorkspaceChanges {
  private readonly baselines = new Map<string, Baseline>();
  private shellCalls = 0;
  /** Paths written in turns before this process opened the session: no baseline for those. */
  private earlier = new Set<string>();

  constructor(private readonly root: string) {}

  reset(earlierPaths: Iterable<string> = []): void {
    this.baselines.clear();
    this.shellCalls = 0;
    this.earlier = new Set(earlierPaths);
  }

  /** Call at `tool_requested`, before the tool can run. */
  noteToolCall(name: string, rawArguments: string): void {
    if (name === 'shell') this.shellCalls += 1;
    if (!WRITE_TOOLS.has(name)) return;
    for (const path of writtenPaths(name, rawArguments)) {
      const absolute = resolve(this.root, path);
      const rel = relative(this.root, absolute);
      if (rel.startsWith('..') || isAbsolute(rel) || this.baselines.has(rel)) continue;
      this.baselines.set(rel, readBaseline(absolute));
    }
  }

  changes(): { files: FileChange[]; untrackedShellCalls: number; earlierPaths: string[] } {
    const files: FileChange[] = [];
    for (const [path, baseline] of [...this.baselines].sort(([a], [b]) => a.localeCompare(b))) {
      const now = readBaseline(resolve(this.root, path));
      if (baseline.kind === 'unreadable' || now.kind === 'unreadable') {
        files.push({ path, lines: [], status: 'unknown' });
        continue;
      }
      const before = baseline.kind === 'text' ? baseline.text : null;
      const after = now.kind === 'text' ? now.text : null;
      const status = before === after ? 'unchanged' : before === null ? 'added' : after === null ? 'deleted' : 'modified';
      files.push({ path, status, lines: status === 'unchanged' ? [] : diffLines(before ?? '', after ?? '') });
    }
    const earlierPaths = [...this.earlier].filter((p) => !this.baselines.has(p)).sort();
    return { files, untrackedShellCalls: this.shellCalls, earlierPaths };
  }
}

/** The files a write tool call names, relative as the model gave them. */
export function writtenPaths(name: string, rawArguments: string): string[] {
  const args = parseArguments(rawArguments);
  if (args === null) return [];
  if (name === 'apply_patch' && typeof args.patch === 'string') {
    const moved = [...args.patch.matchAll(/^\*\*\* Move to: (.+)$/gm)].map((m) => m[1]!.trim());
    return [...patchFiles(args.patch), ...moved];
  }
  return typeof args.path === 'string' ? [args.path] : [];
}

function readBaseline(absolute: string): Baseline {
  try {
    const bytes = readFileSync(absolute);
    if (bytes.length > MAX_BASELINE_BYTES) return { kind: 'unreadable', why: 'too large' };
    return { kind: 'text', text: bytes.toString('utf8').replace(/\r\n/g, '\n') };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? { kind: 'absent' } : { kind: 'unreadable', why: code ?? 'unreadable' };
  }
}
