// One process runs every test file: on Node 20 `node --test` takes no globs, and one process
// avoids paying tsx start-up per file. `GLASSBOX_TEST_FILTER=substring` narrows the files.
// Browser tests (test/browser) and the fault suite (test/faults) have their own scripts:
// `npm run test:browser`, `npm run test:faults`.
import { readdirSync, statSync } from 'node:fs';
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

for (const file of collect(here)) {
  if (filter && !relative(here, file).includes(filter)) continue;
  await import(pathToFileURL(file).href);
}
