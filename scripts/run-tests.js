#!/usr/bin/env node
// `npm test`: the suite in a few processes side by side. Most test time is spent waiting on
// child processes (the CLI, bash, bwrap, tmux, MCP servers), so more processes than cores pays
// off. Each process is one `node --test` run of test/all.test.ts; they share one queue of test
// files, longest first (test/durations.json), and each takes the next file when it is done with
// its last, so they end together whatever the load. A process's output is printed whole when it
// ends, so the reports do not interleave.
// `--build` (what `npm test` passes) rebuilds dist/ (scripts/build.js --skip-web) side by side with
// the first test files: only the tests of built code wait for it (test/helpers/build-ready.ts),
// and the queue hands out the others while it runs. It is skipped when dist/ was built from exactly
// the current sources (scripts/build-inputs.js), as right after `npm install` or `npm run build`.
// `--record-durations` also measures each file and rewrites test/durations.json; run it after
// adding or reworking slow tests (the order only affects how evenly the processes end).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIsCurrent } from './build-inputs.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const record = process.argv.includes('--record-durations');
const recordDir = record ? mkdtempSync(join(tmpdir(), 'glassbox-durations-')) : null;
const queueDir = mkdtempSync(join(tmpdir(), 'glassbox-test-queue-'));
const buildState = process.argv.includes('--build') ? mkdtempSync(join(tmpdir(), 'glassbox-test-build-')) : null;
const requested = Number(process.env.GLASSBOX_TEST_SHARDS);
const shards = Number.isInteger(requested) && requested > 0 ? requested : Math.min(4, availableParallelism() + 1);
const started = Date.now();
const SILENCE_LIMIT_MS = 6 * 60_000;

function runShard(index) {
  return new Promise((resolve) => {
    const reporters = ['--test-reporter=tap', '--test-reporter-destination=stdout'];
    if (recordDir)
      reporters.push(
        '--test-reporter=./scripts/test-durations-reporter.js',
        `--test-reporter-destination=${join(recordDir, `${index}.json`)}`,
      );
    // The file is run directly, not under `--test`: that would add a parent process per test
    // process only to relay its report (about a second of CPU each).
    const child = spawn(process.execPath, ['--import', 'tsx', ...reporters, 'test/all.test.ts'], {
      cwd: root,
      env: {
        ...process.env,
        GLASSBOX_TEST_QUEUE: queueDir,
        GLASSBOX_TEST_BUILD_STATE: buildState ?? undefined,
        GLASSBOX_TEST_SHARD: undefined,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks = [];
    // A process that reports nothing for this long is stuck (a test file fails by itself after
    // 5 minutes, test/all.test.ts; a handle a test leaked can still keep the process alive after
    // its last test): it is killed and the run fails, with what it reported so far.
    let silent;
    const watch = () => {
      clearTimeout(silent);
      silent = setTimeout(() => {
        chunks.push(Buffer.from(`\n# run-tests: no output for ${SILENCE_LIMIT_MS / 60_000} minutes; killed as stuck\n`));
        child.kill('SIGKILL');
      }, SILENCE_LIMIT_MS);
    };
    watch();
    const collect = (chunk) => {
      chunks.push(chunk);
      watch();
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('close', (code, signal) => {
      clearTimeout(silent);
      resolve({ index, code: code ?? 1, signal, output: Buffer.concat(chunks).toString('utf8') });
    });
  });
}

/**
 * The failing tests of one process's TAP report, each with its YAML diagnostics (error, location,
 * stack), innermost first as TAP prints them; or how the process ended when it reported none.
 */
function failureSummary(result) {
  const lines = result.output.split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const match = /^(\s*)not ok /.exec(lines[i]);
    if (!match) continue;
    const block = [lines[i]];
    // The diagnostics are the lines between `---` and `...` indented two more than the result.
    if (lines[i + 1]?.trim() === '---') {
      const end = `${match[1]}  ...`;
      for (let j = i + 1; j < lines.length && block.length < 80; j++) {
        block.push(lines[j]);
        if (lines[j] === end) break;
      }
    }
    blocks.push(block.join('\n'));
  }
  const head = `\n# ---- failures of process ${result.index + 1} (exit ${result.signal ?? result.code}) ----\n`;
  if (blocks.length === 0) return `${head}# no failing test reported; the last lines it printed:\n${lines.slice(-40).join('\n')}\n`;
  return `${head}${blocks.join('\n')}\n`;
}

function count(output, name) {
  const match = new RegExp(`^# ${name} (\\d+)$`, 'm').exec(output);
  return match ? Number(match[1]) : 0;
}

/**
 * How the build ended, for the test processes (test/helpers/build-ready.ts): a marker file written
 * whole under another name, then renamed, so a process never reads half of one.
 */
function markBuild(dir, ok, text) {
  const marker = join(dir, ok ? 'build-done' : 'build-failed');
  writeFileSync(`${marker}.tmp`, text);
  renameSync(`${marker}.tmp`, marker);
}

/** The build, reported to the test processes through a marker file. */
function runBuild(dir) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(root, 'scripts', 'build.js'), '--skip-web'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks = [];
    child.stdout.on('data', (chunk) => chunks.push(chunk));
    child.stderr.on('data', (chunk) => chunks.push(chunk));
    child.on('close', (code, signal) => {
      const output = Buffer.concat(chunks).toString('utf8');
      const ok = code === 0;
      markBuild(dir, ok, ok ? '' : `build exited with ${signal ?? code}\n${output}`);
      resolve({ ok, output });
    });
  });
}

/** The build is skipped when dist/ was built from exactly these sources (scripts/build-inputs.js). */
function skipBuild(dir) {
  markBuild(dir, true, '');
  process.stdout.write('# dist/ is up to date with the sources; not rebuilt (GLASSBOX_TEST_REBUILD=1 forces it)\n');
  return Promise.resolve({ ok: true, output: '' });
}

const build = !buildState
  ? Promise.resolve({ ok: true, output: '' })
  : process.env.GLASSBOX_TEST_REBUILD !== '1' && buildIsCurrent(root)
    ? skipBuild(buildState)
    : runBuild(buildState);
build.then(({ ok, output }) => {
  if (!ok) process.stdout.write(`# the build failed; the tests of built code will fail:\n${output}`);
});

const pending = Array.from({ length: shards }, (_, index) =>
  runShard(index).then((result) => {
    process.stdout.write(`\n# ---- process ${index + 1}/${shards} (exit ${result.signal ?? result.code}) ----\n${result.output}`);
    return result;
  }),
);
const [results, built] = await Promise.all([Promise.all(pending), build]);
const totals = Object.fromEntries(
  ['tests', 'pass', 'fail', 'cancelled', 'skipped', 'todo'].map((name) => [
    name,
    results.reduce((sum, r) => sum + count(r.output, name), 0),
  ]),
);
process.stdout.write(
  `\n# all processes: ${Object.entries(totals)
    .map(([name, value]) => `${name} ${value}`)
    .join(', ')} — ${((Date.now() - started) / 1000).toFixed(1)} s with ${shards} processes\n`,
);
const failed = results.filter((result) => result.code !== 0);
// Only a passing run is a fair measure (a failing test may stop early or hang until its timeout).
if (recordDir && failed.length === 0) {
  // Files not run this time (GLASSBOX_TEST_FILTER) keep their last measure, if they still exist.
  const durationsFile = join(root, 'test', 'durations.json');
  const durations = existsSync(durationsFile) ? JSON.parse(readFileSync(durationsFile, 'utf8')) : {};
  for (const file of Object.keys(durations)) if (!existsSync(join(root, 'test', file))) delete durations[file];
  for (const result of results) {
    // A process that found the queue empty ran no tests and may have written nothing.
    const report = join(recordDir, `${result.index}.json`);
    const measured = existsSync(report) ? JSON.parse(readFileSync(report, 'utf8') || '{}') : {};
    for (const [file, ms] of Object.entries(measured)) durations[file] = Math.round(ms);
  }
  const sorted = Object.fromEntries(Object.entries(durations).sort(([a], [b]) => (a < b ? -1 : 1)));
  writeFileSync(durationsFile, `${JSON.stringify(sorted, null, 2)}\n`);
  process.stdout.write(`# wrote test/durations.json (${Object.keys(sorted).length} files)\n`);
}
if (recordDir) rmSync(recordDir, { recursive: true, force: true });
rmSync(queueDir, { recursive: true, force: true });
if (buildState) rmSync(buildState, { recursive: true, force: true });
if (failed.length > 0) {
  // Repeated at the very end: a CI log is often shown only by its tail, and a process's report
  // can be long enough that its failure scrolled out of it.
  for (const result of failed) process.stdout.write(failureSummary(result));
  process.stdout.write(`# failed processes: ${failed.map((result) => result.index + 1).join(', ')}\n`);
  process.exit(1);
}
if (!built.ok) {
  process.stdout.write('# the build failed (its output is above)\n');
  process.exit(1);
}
