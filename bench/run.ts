// `npm run bench`: every benchmark, one Markdown table and one JSON file in bench/results/.
// Figures are ratios against a baseline measured in the same run, so machines can be compared.
// `GLASSBOX_BENCH_ONLY=name,name` runs a subset; `GLASSBOX_BENCH_QUICK=1` shrinks the workloads.

import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem, platform, release } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderMarkdown, type BenchRow } from './bench-table.js';

interface BenchCase {
  name: string;
  run: () => Promise<BenchRow[]>;
}

const cases: BenchCase[] = [
  { name: 'startup', run: async () => (await import('./cases/startup.js')).run() },
  { name: 'loop', run: async () => (await import('./cases/loop-overhead.js')).run() },
  { name: 'history', run: async () => (await import('./cases/history-curve.js')).run() },
  { name: 'tools', run: async () => (await import('./cases/tool-rounds.js')).run() },
  { name: 'sessions', run: async () => (await import('./cases/sessions.js')).run() },
  { name: 'resume', run: async () => (await import('./cases/resume-large.js')).run() },
  { name: 'session-database', run: async () => (await import('./cases/session-database.js')).run() },
  { name: 'extensions', run: async () => (await import('./cases/extensions.js')).run() },
  { name: 'context', run: async () => (await import('./cases/context-economy.js')).run() },
  { name: 'cache', run: async () => (await import('./cases/prompt-cache.js')).run() },
  { name: 'workbench', run: async () => (await import('./cases/workbench-long-session.js')).run() },
  { name: 'classifier', run: async () => (await import('./cases/command-classifier.js')).run() },
  { name: 'sandbox', run: async () => (await import('./cases/sandbox-walks.js')).run() },
  { name: 'checkpoints', run: async () => (await import('./cases/checkpoints.js')).run() },
  { name: 'acp', run: async () => (await import('./cases/acp-turn.js')).run() },
];

const only = (process.env.GLASSBOX_BENCH_ONLY ?? '').split(',').filter(Boolean);
const rows: BenchRow[] = [];
for (const benchCase of cases) {
  if (only.length && !only.includes(benchCase.name)) continue;
  process.stderr.write(`bench: ${benchCase.name}…\n`);
  const started = performance.now();
  rows.push(...(await benchCase.run()));
  process.stderr.write(`bench: ${benchCase.name} done in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
}

const cpu = cpus()[0]?.model ?? 'unknown cpu';
const machine = `${platform()} ${release()}, ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
const markdown = renderMarkdown(rows, machine);
const dir = join(fileURLToPath(new URL('.', import.meta.url)), 'results');
mkdirSync(dir, { recursive: true });
const stamp = new Date().toISOString().replace(/[:.]/g, '-');
writeFileSync(join(dir, `bench-${stamp}.md`), `${markdown}\n`);
writeFileSync(join(dir, `bench-${stamp}.json`), `${JSON.stringify({ machine, at: new Date().toISOString(), rows }, null, 2)}\n`);
writeFileSync(join(dir, 'latest.md'), `${markdown}\n`);
writeFileSync(join(dir, 'latest.json'), `${JSON.stringify({ machine, at: new Date().toISOString(), rows }, null, 2)}\n`);
process.stdout.write(`${markdown}\n\nWritten to bench/results/latest.md and latest.json\n`);
