// Shared workload pieces: a project tree to read and a provider script of N tool rounds.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CapturedRequest, ScriptedTurn } from '../src/testing/index.js';

export function makeProject(dir: string, files = 20): void {
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'README.md'), '# bench project\n\nA small tree for benchmarks.\n');
  for (let i = 0; i < files; i += 1) {
    const lines = Array.from({ length: 60 }, (_, n) => `export const value${n} = ${i * 100 + n}; // line ${n}`);
    writeFileSync(join(dir, 'src', `file-${i}.ts`), `${lines.join('\n')}\n`);
  }
}

function toolOutputsSoFar(request: CapturedRequest): number {
  const body = request.body as { messages?: Array<{ role?: string }>; input?: Array<{ type?: string }> };
  if (request.wireApi === 'chat') return (body.messages ?? []).filter((m) => m.role === 'tool').length;
  return (body.input ?? []).filter((i) => i.type === 'function_call_output').length;
}

/** A step function: `rounds - 1` rounds each reading one file, then a final answer. */
export function toolRoundsScript(rounds: number, files = 20): (request: CapturedRequest) => ScriptedTurn {
  return toolCallScript(rounds, (done) => ({ name: 'read_file', arguments: { path: `src/file-${done % files}.ts` } }));
}

export interface ScriptedCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** A step function: `rounds - 1` rounds each making the call `callFor(round index)`, then a final answer. */
export function toolCallScript(rounds: number, callFor: (done: number) => ScriptedCall): (request: CapturedRequest) => ScriptedTurn {
  return (request) => {
    const done = toolOutputsSoFar(request);
    if (done >= rounds - 1) return { text: `Made ${done} calls. Done.`, usage: { input: 1000, output: 10 } };
    return {
      text: `Step ${done}.`,
      toolCalls: [callFor(done)],
      usage: { input: 1000 + done * 50, output: 20 },
    };
  };
}

/** One call per round of each kind the first-round benchmark measures; `done` varies the target. */
export const BENCH_CALLS: Record<string, (done: number) => ScriptedCall> = {
  read_file: (done) => ({ name: 'read_file', arguments: { path: `src/file-${done % 20}.ts` } }),
  shell: (done) => ({ name: 'shell', arguments: { command: `grep -c value src/file-${done % 20}.ts | head -n 1` } }),
  grep: (done) => ({ name: 'grep', arguments: { pattern: `value${done % 60} =` } }),
  glob: (done) => ({ name: 'glob', arguments: { pattern: done % 2 ? '**/*.ts' : '**/*.md' } }),
  apply_patch: (done) => ({
    name: 'apply_patch',
    arguments: { patch: `*** Begin Patch\n*** Add File: added/note-${done}.txt\n+note ${done}\n+second line\n*** End Patch\n` },
  }),
};
