// Runs every test file in one process, or its share of them when scripts/run-tests.js runs several
// such processes side by side: on Node 20 `node --test` takes no globs, and a few processes avoid
// paying tsx start-up per file. Each file's tests run inside one suite named after the file.
// - `GLASSBOX_TEST_QUEUE=<dir>` (what `npm test` uses): the processes share one queue of files,
//   longest first (test/durations.json); each takes the next file when it has finished its last,
//   so they all end within about one file of each other however the machine's load shifts.
// - `GLASSBOX_TEST_SHARD=i/n`: a fixed i-th of n shards (reproducible on its own, for bisecting).
// `GLASSBOX_TEST_FILTER=substring` narrows the files.
// Browser tests (test/browser), the fault suite (test/faults) and the global install (test/install,
// which needs the npm registry) have their own scripts: `npm run test:browser`, `npm run
// test:faults`, `npm run test:install`.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { after, describe, test } from 'node:test';
import { loadCommandClassifier } from '../src/permissions/index.js';
import { detectSandbox } from '../src/sandbox/index.js';
import { locateRipgrep } from '../src/tools/grep/index.js';
import { dirname, join, relative } from 'node:path';
import { BUILD_DONE, BUILD_FAILED } from './helpers/build-ready.js';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const filter = process.env.GLASSBOX_TEST_FILTER ?? '';
const skipDirs = new Set(['browser', 'faults', 'fixtures', 'helpers', 'install']);

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

function measuredDurations(): Record<string, number> {
  const durationsFile = join(here, 'durations.json');
  return existsSync(durationsFile) ? (JSON.parse(readFileSync(durationsFile, 'utf8')) as Record<string, number>) : {};
}

/** The files, longest first (ties by name, so every process sees the same order). */
function longestFirst(all: readonly string[]): Array<{ file: string; weight: number }> {
  const measured = measuredDurations();
  const weighed = all.map((file) => ({ file, weight: weightOf(file, measured) }));
  return weighed.sort((a, b) => b.weight - a.weight || (a.file < b.file ? -1 : 1));
}

/**
 * `GLASSBOX_TEST_SHARD=i/n`: files are dealt out longest first to the shard with the least work
 * so far; the split depends only on the files and test/durations.json.
 */
function shardOf(all: readonly string[], spec: string): string[] {
  const match = /^(\d+)\/(\d+)$/.exec(spec);
  if (match === null) throw new Error(`GLASSBOX_TEST_SHARD=${spec}: expected i/n with 0 ≤ i < n`);
  const [index, count] = [Number(match[1]), Number(match[2])];
  if (count < 1 || index < 0 || index >= count) throw new Error(`GLASSBOX_TEST_SHARD=${spec}: expected i/n with 0 ≤ i < n`);
  const loads = Array.from({ length: count }, () => ({ weight: 0, files: [] as string[] }));
  for (const { file, weight } of longestFirst(all)) {
    const lightest = loads.reduce((best, shard) => (shard.weight < best.weight ? shard : best));
    lightest.weight += weight;
    lightest.files.push(file);
  }
  return (loads[index]?.files ?? []).sort();
}

/** Whether a test file runs built code: it, or a helper it imports, waits for the build (build-ready.ts). */
const buildNeeds = new Map<string, boolean>();
function needsBuild(file: string, seen = new Set<string>()): boolean {
  const known = buildNeeds.get(file);
  if (known !== undefined) return known;
  if (seen.has(file) || !existsSync(file)) return false;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  const local = [...text.matchAll(/from '(\.{1,2}\/[^']+)\.js'/g)].map((match) => join(dirname(file), `${match[1]}.ts`));
  const needs = text.includes('buildReady()') || local.some((helper) => helper.startsWith(here) && needsBuild(helper, seen));
  buildNeeds.set(file, needs);
  return needs;
}

/**
 * The shared queue: the i-th file (longest first) belongs to whichever process creates
 * `<dir>/<i>` first (mkdir is atomic, so no file runs twice and none is left out). While
 * `npm test`'s build is still running, files that need it are passed over for ones that do not,
 * so no process sits waiting for the build while there is other work.
 */
function* claimFromQueue(all: readonly string[], dir: string, buildState: string | undefined): Generator<string> {
  const ordered = longestFirst(all);
  const taken = new Set<number>();
  const built = (): boolean =>
    buildState === undefined || existsSync(join(buildState, BUILD_DONE)) || existsSync(join(buildState, BUILD_FAILED));
  const claim = (eligible: (file: string) => boolean): string | null => {
    for (const [index, { file }] of ordered.entries()) {
      if (taken.has(index) || !eligible(file)) continue;
      taken.add(index);
      try {
        mkdirSync(join(dir, String(index)));
        return file;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
    return null;
  };
  for (;;) {
    const file = (built() ? null : claim((candidate) => !needsBuild(candidate))) ?? claim(() => true);
    if (file === null) return;
    yield file;
  }
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
// The bash grammar likewise: several files await `loadCommandClassifier()` at load time or in a
// root-level hook, and a first load (a second or more under load) there raced the file's suite.
const [sandbox, ripgrep] = await Promise.all([detectSandbox(), locateRipgrep(), loadCommandClassifier()]);
// In CI a missing dependency is a failure, not a silent skip of every test that needs it.
if (process.env.CI) {
  test('CI has the system dependencies the suites need (bubblewrap, ripgrep)', () => {
    assert.ok(sandbox.available, `bubblewrap does not work here: ${sandbox.reason}`);
    assert.ok(ripgrep !== null, 'no ripgrep: the @vscode/ripgrep platform package is not installed and rg is not on PATH');
  });
}

/**
 * A file whose tests have not all ended after this long fails, naming itself, instead of holding
 * the run up until CI's own limit (the longest file takes well under a minute).
 */
const FILE_TIMEOUT_MS = 5 * 60_000;

const files = collect(here).filter((file) => !filter || relative(here, file).includes(filter));
const queue = process.env.GLASSBOX_TEST_QUEUE;
const shard = process.env.GLASSBOX_TEST_SHARD;
const mine = queue ? claimFromQueue(files, queue, process.env.GLASSBOX_TEST_BUILD_STATE) : shard ? shardOf(files, shard) : files;
for (const file of mine) {
  // The next file is taken only when this one's tests have all ended (its suite's `after`), so a
  // process never holds files another one, already idle, could be running.
  let resolve = (): void => {};
  const finished = new Promise<void>((done) => {
    resolve = done;
  });
  describe(relative(here, file), { timeout: FILE_TIMEOUT_MS }, async () => {
    after(() => resolve());
    await import(pathToFileURL(file).href);
  });
  await finished;
}

/**
 * Every test has ended, so the process should exit as soon as its report is written. One that a
 * test left a handle open in (a server a failed test never closed, a child never reaped) would
 * instead stay alive until scripts/run-tests.js gives up on it minutes later: it exits now, failing,
 * and names what held it. The timer itself does not keep the process alive. It starts in the root's
 * `after`, not when the last file's suite ends: a file that awaits at load time (`await
 * detectSandbox()`) has its suites run at the root, after its own file suite has already ended.
 */
const EXIT_GRACE_MS = 10_000;
after(() => {
  setTimeout(() => {
    const held = process.getActiveResourcesInfo().filter((resource) => resource !== 'Timeout');
    process.stdout.write(
      `\n# all.test.ts: still running ${EXIT_GRACE_MS / 1000} s after its last test ended, held open by: ${held.join(', ') || 'nothing listed'}; a test left it open (see the failures above)\n`,
    );
    process.exit(1);
  }, EXIT_GRACE_MS).unref();
});
