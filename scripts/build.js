#!/usr/bin/env node
// Build: compile src/ to dist/ with tsc, copy the data files that code loads at run time (tool
// descriptions, prompts; wasm grammars stay in node_modules), then bundle the CLI into
// dist/bundle/. Runs from `npm install` via `prepare`, so a fresh clone has a runnable
// `bin/glassbox.js` right after install.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, rmSync, statSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildInputsDigest, recordedInputsFile } from './build-inputs.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const dist = join(root, 'dist');

const skipWeb = process.env.GLASSBOX_SKIP_WEB === '1' || process.argv.includes('--skip-web');
// Taken before compiling, so a source edited while the build runs makes the next `npm test` rebuild.
const inputs = buildInputsDigest(root);
// Start clean so deleted sources leave no stale modules; keep the web bundle when it is not rebuilt.
if (existsSync(dist)) {
  for (const name of readdirSync(dist)) {
    if (skipWeb && name === 'web') continue;
    rmSync(join(dist, name), { recursive: true, force: true });
  }
}
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (result.status !== 0) {
  console.error('build: tsc failed');
  process.exit(result.status ?? 1);
}

const dataExtensions = ['.md', '.txt', '.json'];
function copyData(dir) {
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (name === 'web') continue;
    if (statSync(full).isDirectory()) copyData(full);
    else if (dataExtensions.some((ext) => name.endsWith(ext))) {
      const target = join(dist, relative(src, full));
      mkdirSync(dirname(target), { recursive: true });
      cpSync(full, target);
    }
  }
}
copyData(src);

// The CLI as a bundle (dist/bundle/), next to tsc's per-file output that the package's library
// entry points use; bin/glassbox.js runs the bundle.
const { bundleCli } = await import('./bundle-cli.js');
await bundleCli();
// Recorded last, once dist/ is complete (the clean-up above removed the old record): `npm test`
// skips its own build while this matches the sources (scripts/build-inputs.js).
writeFileSync(recordedInputsFile(root), `${inputs}\n`);

const webBuild = join(root, 'scripts', 'build-web.js');
// Tests rebuild only the server side (`--skip-web`): the workbench bundle does not change with them.
if (existsSync(webBuild) && !skipWeb) {
  const web = spawnSync(process.execPath, [webBuild], { stdio: 'inherit' });
  if (web.status !== 0) process.exit(web.status ?? 1);
}
