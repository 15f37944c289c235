// One process runs every test file: on Node 20 `node --test` takes no globs, and one process
// avoids paying tsx start-up per file. `GLASSBOX_TEST_FILTER=substring` narrows the files.
// Browser tests (test/browser) and the fault suite (test/faults) have their own scripts:
// `npm run test:browser`, `npm run test:faults`.
import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { test } from 'node:test';
import { detectSandbox } from '../src/sandbox/index.js';
import { locateRipgrep } from '../src/tools/grep/index.js';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const filter = process.env.GLASSBOX_TEST_FILTER ?? '';
const skipDirs = new Set(['browser', 'faults', 'fixtures', 'helpers']);

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

for (const file of collect(here)) {
  if (filter && !relative(here, file).includes(filter)) continue;
  await import(pathToFileURL(file).href);
}
