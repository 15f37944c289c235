#!/usr/bin/env node
// `npm test`: the suite in a few processes side by side. Most test time is spent waiting on
// child processes (the CLI, bash, bwrap, tmux, MCP servers), so more shards than cores pays off;
// each shard is one `node --test` process over its share of the files (see test/all.test.ts).
// A shard's output is printed whole when it ends, so the reports do not interleave.
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const requested = Number(process.env.GLASSBOX_TEST_SHARDS);
const shards = Number.isInteger(requested) && requested > 0 ? requested : Math.min(4, availableParallelism() + 1);
const started = Date.now();

function runShard(index) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--test', 'test/all.test.ts'], {
      cwd: root,
      env: { ...process.env, GLASSBOX_TEST_SHARD: `${index}/${shards}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks = [];
    child.stdout.on('data', (chunk) => chunks.push(chunk));
    child.stderr.on('data', (chunk) => chunks.push(chunk));
    child.on('close', (code, signal) => resolve({ index, code: code ?? 1, signal, output: Buffer.concat(chunks).toString('utf8') }));
  });
}

function count(output, name) {
  const match = new RegExp(`^# ${name} (\\d+)$`, 'm').exec(output);
  return match ? Number(match[1]) : 0;
}

const pending = Array.from({ length: shards }, (_, index) =>
  runShard(index).then((result) => {
    process.stdout.write(`\n# ---- shard ${index + 1}/${shards} (exit ${result.signal ?? result.code}) ----\n${result.output}`);
    return result;
  }),
);
const results = await Promise.all(pending);
const totals = Object.fromEntries(
  ['tests', 'pass', 'fail', 'cancelled', 'skipped', 'todo'].map((name) => [
    name,
    results.reduce((sum, r) => sum + count(r.output, name), 0),
  ]),
);
const failed = results.filter((result) => result.code !== 0);
process.stdout.write(
  `\n# all shards: ${Object.entries(totals)
    .map(([name, value]) => `${name} ${value}`)
    .join(', ')} — ${((Date.now() - started) / 1000).toFixed(1)} s with ${shards} shards\n`,
);
if (failed.length > 0) {
  process.stdout.write(`# failed shards: ${failed.map((result) => result.index + 1).join(', ')}\n`);
  process.exit(1);
}
