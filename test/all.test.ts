// Runs every test file in one process (or one shard of them: `GLASSBOX_TEST_SHARD`, set by
// scripts/run-tests.js, which runs the shards side by side): on Node 20 `node --test` takes no
// globs, and a few processes avoid paying tsx start-up per file. `GLASSBOX_TEST_FILTER=substring`
// narrows the files.
// Browser tests (test/browser) and the fault suite (test/faults) have their own scripts:
// `npm run test:browser`, `npm run test:faults`.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { test } from 'node:test';
import { detectSandbox } from '../src/sandbox/index.js';
import { locateRipgrep } from '../src/tools/grep/index.js';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const filter = process.env.GLASSBOX_TEST_FILTER ?? '';
const skipDirs = new Set(['browser', 'faults', 'fixtures', 'helpers']);

/**
 * How long each file took when last measured (`node scripts/run-tests.js --record-durations`), in
 * ms. A file not measured yet is guessed from its size and whether it starts processes (CLI,
 * tmux, MCP servers, bash), which is where the time goes.
 */
function weightOf(file: string, measured: Readonly<Record<string, number>>): number {
  const known = measured[relative(here, file)];
  if (known !== undefined) return known;
  const text = readFileSync(file, 'utf8');
  const spawns = (text.match(/runCli|startCli|spawn\(|spawnSync|execFile|tmux|startMcp|startServe|chromium/g) ?? []).length;
  return text.length * (spawns > 0 ? 0.5 : 0.05);
}

/**
 * `GLASSBOX_TEST_SHARD=i/n` (set by scripts/run-tests.js): this process runs the i-th of n
 * shards. Files are dealt out longest first to the shard with the least work so far, so the shards
 * end together and no core waits on the last one; the split depends only on the files and
 * test/durations.json, so a shard is reproducible on its own.
 */
function shardOf(all: readonly string[]): string[] {
  const spec = /^(\d+)\/(\d+)$/.exec(process.env.GLASSBOX_TEST_SHARD ?? '');
  if (spec === null) return [...all];
  const [index, count] = [Number(spec[1]), Number(spec[2])];
  if (count < 1 || index < 0 || index >= count)
    throw new Error(`GLASSBOX_TEST_SHARD=${process.env.GLASSBOX_TEST_SHARD}: expected i/n with 0 ≤ i < n`);
  const durationsFile = join(here, 'durations.json');
  const measured = existsSync(durationsFile) ? (JSON.parse(readFileSync(durationsFile, 'utf8')) as Record<string, number>) : {};
  const weighed = all.map((file) => ({ file, weight: weightOf(file, measured) }));
  weighed.sort((a, b) => b.weight - a.weight || (a.file < b.file ? -1 : 1));
  const loads = Array.from({ length: count }, () => ({ weight: 0, files: [] as string[] }));
  for (const { file, weight } of weighed) {
    const lightest = loads.reduce((best, shard) => (shard.weight < best.weight ? shard : best));
    lightest.weight += weight;
    lightest.files.push(file);
  }
  return (loads[index]?.files ?? []).sort();
}

function collect(dir: string): string[] {
  const files: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) {
      if (!skipDirs.has(name)) files.push(...collect(full));
    } else if (name.endsWith('.test.ts') && full !== fileURLToPath(import.meta.url)) {
      files.push(full);
    }
  }
  return files;
}

// Probe the system dependencies once, before any file registers its tests. Several files decide
// at load time (a top-level `await detectSandbox()`); were that the first, slow probe, the tests
// registered earlier would start running meanwhile, and tests registered during one of them
// would be attached to it as subtests. With the answer cached, those awaits resolve at once.
const [sandbox, ripgrep] = await Promise.all([detectSandbox(), locateRipgrep()]);
// In CI a missing dependency is a failure, not a silent skip of every test that needs it.
if (process.env.CI) {
  test('CI has the system dependencies the suites need (bubblewrap, ripgrep)', () => {
    assert.ok(sandbox.available, `bubblewrap does not work here: ${sandbox.reason}`);
    assert.ok(ripgrep !== null, 'no ripgrep: the @vscode/ripgrep platform package is not installed and rg is not on PATH');
  });
}

const files = collect(here).filter((file) => !filter || relative(here, file).includes(filter));
for (const file of shardOf(files)) await import(pathToFileURL(file).href);
