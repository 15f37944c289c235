// What checkpoints cost a call that may write, in a project of real size (issue 30: the bench's
// 20-file project hid it). Every exec or write tool call stamps the project before and after it
// (src/checkpoints/file-checkpointer.ts); the first such call of a turn also copies every file it
// may later have to restore. Here, in-process, on a generated project of 1,000 source files
// (1–16 KB each, 50 directories): the first `before` (stamps and copies all), and a later
// `before` + `after` pair (what each later call pays), against the least the same work can cost
// in Node: a synchronous walk that stamps (lstat) every file, and one that also reads every file.

import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlobStore, FileCheckpointer } from '../../src/checkpoints/index.js';
import { median, withRatio, type BenchRow } from '../bench-table.js';

const quick = process.env.GLASSBOX_BENCH_QUICK === '1';
const RUNS = quick ? 5 : 15;
const DIRECTORIES = 50;
const FILES_PER_DIRECTORY = 20;

function makeProject(root: string): void {
  for (let d = 0; d < DIRECTORIES; d += 1) {
    const dir = join(root, `src-${d % 10}`, `module-${d}`);
    mkdirSync(dir, { recursive: true });
    for (let f = 0; f < FILES_PER_DIRECTORY; f += 1) {
      const lines = 20 + ((d * FILES_PER_DIRECTORY + f) % 16) * 25;
      writeFileSync(
        join(dir, `file-${f}.ts`),
        `${Array.from({ length: lines }, (_, n) => `export const v${n} = ${n * f + d};`).join('\n')}\n`,
      );
    }
  }
}

/** The floor: every file stamped (and, with `read`, read) by synchronous calls. */
function rawWalk(root: string, read: boolean): number {
  const started = performance.now();
  const pending = [root];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) pending.push(path);
      else {
        lstatSync(path);
        if (read) readFileSync(path);
      }
    }
  }
  return performance.now() - started;
}

export async function run(): Promise<BenchRow[]> {
  const base = mkdtempSync(join(tmpdir(), 'glassbox-bench-checkpoints-'));
  const root = join(base, 'project');
  makeProject(root);
  try {
    const first: number[] = [];
    const later: number[] = [];
    const rawStamp: number[] = [];
    const rawRead: number[] = [];
    for (let index = 0; index < RUNS; index += 1) {
      const checkpointer = new FileCheckpointer(root, new BlobStore(join(base, `home-${index}`)));
      let started = performance.now();
      await checkpointer.before([]);
      first.push(performance.now() - started);
      rawRead.push(rawWalk(root, true));
      started = performance.now();
      const mark = await checkpointer.before([]);
      const changes = await checkpointer.after(mark);
      later.push(performance.now() - started);
      if (changes.length !== 0) throw new Error(`the bench project changed during a call: ${changes.map((c) => c.path).join(', ')}`);
      // Two walks: a later call stamps the project before and after it.
      rawStamp.push(rawWalk(root, false) + rawWalk(root, false));
    }
    const note = `${(DIRECTORIES * FILES_PER_DIRECTORY).toLocaleString('en-US')} files; median of ${RUNS}`;
    return [
      withRatio({
        group: 'checkpoints',
        name: 'first call that may write: project stamped and copied',
        value: median(first),
        unit: 'ms',
        baseline: { name: 'synchronous walk reading every file', value: median(rawRead) },
        note,
      }),
      withRatio({
        group: 'checkpoints',
        name: 'a later call: stamps before and after',
        value: median(later),
        unit: 'ms',
        baseline: { name: 'two synchronous stamp walks', value: median(rawStamp) },
      }),
    ];
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}
